#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harness/history/page_html.h"
#include "harness/history/series.h"
#include "harness/history/show.h"

namespace sparsebench {
namespace {

constexpr size_t kSparkPoints = 30;  // a comment's line stays readable

std::string Latest(const PageCell& c) {
  for (size_t i = c.value.size(); i-- > 0;) {
    if (!std::isfinite(c.value[i])) continue;
    std::string text = fmt::format("{:.3g}", c.value[i]);
    if (std::isfinite(c.speedup[i])) text += fmt::format(" ({:.2f}× dense)", c.speedup[i]);
    return text;
  }
  return c.status.empty() ? "—" : c.status.back();
}

std::string CellChanges(const HistoryPage& page, const PageMachine& m, const PageCell& c) {
  std::vector<std::string> parts;
  for (const PageChange& ch : page.changes) {
    if (ch.machine != m.key || ch.cell != c.id) continue;
    parts.push_back(fmt::format("{} {:+.1f}%{}", ShortCommit(ch.to_commit), 100 * ch.change(),
                                ch.acknowledged ? " (acknowledged)" : ""));
  }
  return parts.empty() ? "—" : fmt::format("{}", fmt::join(parts, "; "));
}

std::string FindingsList(const HistoryPage& page) {
  std::string md;
  for (const PageMachine& m : page.machines) {
    for (const Finding& f : m.latest.findings) {
      if (f.verdict == Verdict::kOk || f.verdict == Verdict::kNew) continue;
      md += fmt::format("- **{}** `{}` {}: {}\n", VerdictText(f.verdict), f.cell, f.what, f.detail);
    }
  }
  return md.empty() ? "" : md + "\n";
}

}  // namespace

std::string PageMarkdown(const HistoryPage& page, const std::string& page_link) {
  std::string md =
      fmt::format("### SparseBench history\n\n**{}**\n\n{}", VerdictLine(page), FindingsList(page));
  for (const PageMachine& m : page.machines) {
    md += fmt::format(
        "{} ({}), {} commits:\n\n| cell | series | oldest → newest | latest | changes |\n"
        "|---|---|---|---|---|\n",
        m.name, m.key, m.commits.size());
    for (const PageCell& c : m.cells) {
      const size_t from = c.value.size() > kSparkPoints ? c.value.size() - kSparkPoints : 0;
      const std::vector<double> drawn(c.value.begin() + static_cast<std::ptrdiff_t>(from),
                                      c.value.end());
      md += fmt::format("| `{}` | {} | {} | {} | {} |\n", c.id, c.measure, Sparkline(drawn),
                        Latest(c), CellChanges(page, m, c));
    }
    md += "\n";
  }
  size_t listed = 0;
  for (const PageChange& c : page.changes) listed += !c.acknowledged;
  if (listed > 0) {
    md += fmt::format("{} change point(s) nobody has annotated.\n\n", listed);
  }
  if (!page_link.empty()) md += fmt::format("The charts: [{}]({}).\n", page_link, page_link);
  return md;
}

}  // namespace sparsebench
