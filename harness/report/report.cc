#include "harness/report/report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "harness/record/csv.h"
#include "harness/record/files.h"
#include "harness/record/machine.h"
#include "harness/record/prices.h"
#include "harness/record/rows.h"
#include "harness/report/dataset_notes.h"
#include "harness/report/group_tables.h"
#include "harness/report/headline.h"
#include "harness/report/plots.h"
#include "harness/report/prose.h"
#include "harness/report/report_external.h"
#include "harness/report/report_text.h"
#include "harness/report/summary.h"
#include "harness/report/thread_scaling.h"

namespace sparsebench {
namespace fs = std::filesystem;
namespace {

// A context.json field of the expected type, or the fallback: contexts come from files that
// may be old, hand-edited or from another version.
std::string ContextText(const nlohmann::json& c, const char* key, const std::string& fallback) {
  const auto it = c.find(key);
  return it != c.end() && it->is_string() ? it->get<std::string>() : fallback;
}
double ContextNumber(const nlohmann::json& c, const char* key) {
  const auto it = c.find(key);
  return it != c.end() && it->is_number() ? it->get<double>() : NAN;
}

// One row per run context: the hardware that decides "one machine" (its fingerprint hashes the
// CPU, its family/model/stepping, ISA, cores and memory) and, beside it, what may differ
// between VMs of that hardware.
std::string MachineTable(const std::vector<nlohmann::json>& contexts) {
  std::string md =
      "| machine | fingerprint | CPU | ISA | kernel · hypervisor | BLAS core | instance | $/h | "
      "commit | date |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : contexts) {
    const double price = ContextNumber(c, "price_per_hour");
    const std::string fingerprint = MachineFingerprint(c);
    md +=
        fmt::format("| {}, {} cores, {} GiB | {} | {} | {} | {} · {} | {} | {} | {} | {} | {} |\n",
                    ContextText(c, "cpu_model", "?"), Num(ContextNumber(c, "cores"), "{:.0f}"),
                    Num(ContextNumber(c, "memory_gb"), "{:.0f}"),
                    fingerprint.empty() ? "— (not recorded)" : fingerprint,
                    ContextText(c, "arch", "?") +
                        (c.contains("cpu_id") ? ", " + ContextText(c, "cpu_id", "") : ""),
                    ContextText(c, "isa_flags", ""), ContextText(c, "kernel", "—"),
                    ContextText(c, "hypervisor", "—"), ContextText(c, "blas_core", "—"),
                    ContextText(c, "instance", "?"), price >= 0 ? fmt::format("{:g}", price) : "—",
                    ContextText(c, "git_commit", "").substr(0, 10), ContextText(c, "date", ""));
  }
  return md;
}

// The contexts in a run directory's context.json: one object (a run) or a list (a report).
void ReadContexts(const fs::path& file, std::vector<nlohmann::json>& contexts) {
  std::error_code error;
  if (!fs::is_regular_file(file, error) || fs::file_size(file, error) > (16u << 20)) return;
  std::ifstream in(file, std::ios::binary);
  for (nlohmann::json& c : ContextsIn(nlohmann::json::parse(in, nullptr, false)))
    contexts.push_back(std::move(c));
}

std::string PublishedTable(const std::string& published_path, const std::string& prices_path) {
  if (!fs::exists(published_path)) return "";
  std::map<std::string, double> prices;
  for (const Instance& i : ReadInstances(prices_path)) prices[i.name] = i.usd_per_hour;
  const auto rows = ReadCsv(published_path);
  std::string md =
      std::string(prose::kPublishedTitle) + "\n\n" + std::string(prose::kPublishedNote) +
      "\n\n"
      "| dataset | system | hardware | seconds | metric | cost $ |\n|---|---|---|---|---|---|\n";
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto& f = rows[r];
    if (f.size() < 7) continue;
    const double seconds = std::atof(f[4].c_str());
    const auto price = prices.find(f[3]);
    md += fmt::format("| {} | {} | {} | {:g} | {} | {} |\n", f[0], f[1], f[2], seconds,
                      f[6].empty() ? "—" : f[5] + " " + f[6],
                      price == prices.end() ? "— (instance not stated)" : fmt::format("{:.4f}", seconds / 3600 * price->second));
  }
  return md + "\n";
}

// The sections of one dataset, with its plots' file names from its place in the report.
std::string DatasetSection(const DatasetGroups& d, size_t index, const ReportOptions& o) {
  std::string md =
      fmt::format("## {} ({}, target {})\n\n", d.dataset, d.metric, Num(d.target, "{:.4g}")) +
      Headline(d) + Differences(d) + GroupTable(d.groups) + "\n" + ExternalRows(d) +
      ExternalCpu(d) + WeakRows(d) + TuningLine(d) + AtTheTarget(d) + Attribution(d) +
      ThreadScaling(d);
  // Plot files: an index (distinct names whatever the datasets are called) and a slug.
  const std::string stem = fmt::format("{}-{}", index + 1, Slug(d.dataset).substr(0, 40));
  const fs::path plots = fs::path(o.out_dir) / "plots";
  const std::string missing =
      o.plots ? Plot(stem, d.dataset, d.groups, plots) : std::string("not asked for");
  if (!missing.empty()) return md + "(no plots: " + missing + ")\n\n";
  return md + fmt::format(
                  "![{0} time to accuracy](plots/{1}-curves.png) ![{0} cost](plots/{1}-cost.png)"
                  "\n\n",
                  d.dataset, stem);
}

// A line linking the history page, relative to the report, where the page exists.
std::string HistoryLink(const ReportOptions& o) {
  std::error_code error;
  if (o.history_page.empty() || !fs::is_regular_file(o.history_page, error)) return "";
  const fs::path page = fs::weakly_canonical(o.history_page, error);
  const std::string link =
      fs::relative(page, fs::weakly_canonical(o.out_dir, error), error).string();
  return fmt::format(fmt::runtime(prose::Prose(prose::kHistoryLink)),
                     link.empty() ? page.string() : link) +
         "\n\n";
}

}  // namespace

ReportInput ReadRunDirs(const std::vector<std::string>& run_dirs, const EngineRegistry& engines) {
  ReportInput input{LoadRows(run_dirs, engines), {}};
  for (const std::string& dir : run_dirs)
    ReadContexts(fs::path(dir) / "context.json", input.contexts);
  return input;
}

void WriteReport(const ReportInput& input, const ReportOptions& o, const EngineRegistry& engines) {
  const fs::path out(o.out_dir);
  EnsureDirectory(o.out_dir);
  if (o.plots) EnsureDirectory((out / "plots").string());
  if (o.run_dirs.size() != 1 || fs::weakly_canonical(o.run_dirs[0]) != fs::weakly_canonical(out)) {
    WriteFileAtomically((out / "context.json").string(),
                        nlohmann::json(input.contexts)
                                .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
                            "\n");
  }
  WriteResultFiles(input.rows, o.out_dir);
  std::string md = "# SparseBench report\n\n" +
                   fmt::format(fmt::runtime(prose::Prose(prose::kOpening)),
                               fmt::join(engines.DenseBaselineNames(), ", ")) +
                   "\n\n" + HistoryLink(o) + "## Machines\n\n" + MachineTable(input.contexts) +
                   "\n";
  const std::vector<DatasetGroups> datasets = GroupRows(input.rows, engines);
  for (size_t i = 0; i < datasets.size(); ++i) md += DatasetSection(datasets[i], i, o);
  md += PublishedTable(o.published_path, o.prices_path);
  WriteFileAtomically((out / "report.md").string(), md);
}

void WriteReport(const ReportOptions& o, const EngineRegistry& engines) {
  WriteReport(ReadRunDirs(o.run_dirs, engines), o, engines);
}

}  // namespace sparsebench
