#include "harness/report/plots.h"

#include <fmt/format.h>

#include <cmath>

#include "harness/proc/subprocess.h"
#include "harness/record/files.h"

namespace sparsebench {
namespace fs = std::filesystem;
namespace {

// A label as one tab-separated gnuplot data field: no tabs, line breaks or quotes.
std::string DataLabel(const std::string& text) {
  std::string label;
  for (unsigned char c : text)
    label += c < 0x20 || c == 0x7f ? ' ' : c == '"' ? '\'' : static_cast<char>(c);
  return label;
}

std::string DataNumber(double v) { return std::isfinite(v) ? fmt::format("{:.9g}", v) : "NaN"; }

// One script for every dataset. Nothing a user wrote is ever part of it: names, labels and
// paths arrive as data, the labels in the data files' header and first column, the rest as
// gnuplot's ARG variables (`gnuplot -c plot.gp ARG1 ...`), which are strings, never code.
// ARG1: plots directory, ARG2: file stem, ARG3: dataset, ARG4: metric, ARG5: curve files,
// ARG6: "1" when the bars are costs.
constexpr const char* kPlotScript =
    R"gp(# Written by sparsebench report; run as gnuplot -c plot.gp DIR STEM DATASET METRIC CURVES PRICED
set terminal pngcairo size 900,640 noenhanced
set datafile separator "\t"
set key below
set grid
stem = ARG1 . "/" . ARG2
curves = ARG5 + 0
if (curves > 0) {
  set output stem . "-curves.png.tmp"
  set logscale x
  set xlabel "training seconds"
  set ylabel ARG4
  set title ARG3 . ": time to accuracy"
  plot for [i=0:curves-1] sprintf("%s-curve%d.dat", stem, i) using 1:2 with linespoints title columnheader(3)
  unset logscale x
}
set output stem . "-cost.png.tmp"
set style fill solid
set boxwidth 0.6
set yrange [0:*]
set xtics rotate by -30
set ylabel (ARG6 eq "1" ? "USD per run" : "training seconds")
set title ARG3 . (ARG6 eq "1" ? ": cost per run" : ": training time (no price given)")
set xlabel ""
plot stem . "-bars.dat" using 0:2:xtic(1) with boxes notitle
)gp";

// gnuplot writes STEM-*.png.tmp; only a run that ended well renames them onto the plots the
// report links, so a failed or killed gnuplot never leaves a half-written PNG there.
void PublishPlots(const fs::path& plots, const std::string& stem, bool ran) {
  for (const char* kind : {"-curves.png", "-cost.png"}) {
    const fs::path done = plots / (stem + kind), temporary = plots / (stem + kind + ".tmp");
    std::error_code error;
    if (!fs::exists(temporary, error)) continue;
    if (ran) fs::rename(temporary, done, error);
    if (!ran || error) fs::remove(temporary, error);
  }
}

}  // namespace

std::string Slug(const std::string& text) {
  std::string s;
  for (char c : text) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s;
}

std::string Plot(const std::string& stem, const std::string& dataset,
                 const std::vector<Group>& groups, const fs::path& plots) {
  const std::string gnuplot = FindExecutable("gnuplot");
  if (gnuplot.empty()) return "gnuplot not installed";
  size_t curves = 0;
  std::string bars = "label\tvalue\n";
  for (const Group& g : groups) {
    std::string points;
    for (const CurvePoint& p : g.curves.empty() ? Curve{} : g.curves.front()) {
      if (p.usable()) points += DataNumber(*p.seconds) + "\t" + DataNumber(*p.value) + "\t0\n";
    }
    if (!points.empty()) {
      const std::string label =
          DataLabel(fmt::format("{} ({}t, {})", g.engine, g.threads, g.machine.substr(0, 24)));
      WriteFileAtomically((plots / fmt::format("{}-curve{}.dat", stem, curves++)).string(),
                          "seconds\tvalue\t" + label + "\n" + points);
    }
    bars += DataLabel(fmt::format("{} {}t", g.engine, g.threads)) + "\t" +
            DataNumber(std::isnan(g.cost.median) ? g.train_seconds.median : g.cost.median) + "\n";
  }
  const bool priced = !groups.empty() && !std::isnan(groups[0].cost.median);
  WriteFileAtomically((plots / (stem + "-bars.dat")).string(), bars);
  const fs::path script = fs::absolute(plots / "plot.gp");
  WriteFileAtomically(script.string(), kPlotScript);
  const std::string metric = groups.empty() ? std::string("metric") : groups[0].metric_name;
  // A gnuplot failure leaves its message in the .gp.err file; the report still links the plots.
  const ProcessResult run =
      RunProcess({gnuplot, "-c", script.string(), fs::absolute(plots).string(), stem, dataset,
                  metric, std::to_string(curves), priced ? "1" : "0"},
                 plots / (stem + ".gp.out"), plots / (stem + ".gp.err"));
  PublishPlots(plots, stem, run.ok());
  return "";
}

}  // namespace sparsebench
