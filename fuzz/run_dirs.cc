// Run directories as `report` and `compare` read them: the input is split at lines "----"
// into context.json, a results.csv and up to eight cell files of one run directory. Then
// LoadRows, WriteResultFiles, ReadResultsCsv and ReadCurvesCsv (the written tables read back
// as the same text), GroupRows, the report without plots, and Compare against a fixed baseline
// (with the run directory and the results.csv as the current run, and the results.csv as baseline).
// Malformed input must end in DataError naming a file; a comparison that finds no regression
// must have had, for every baseline cell that ended ok, ok current rows with finite numbers.
// fuzz-options: -max_len=16384
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "datasets/data_error.h"
#include "fuzz/fuzz_util.h"
#include "fuzz/scratch.h"
#include "harness/cli/engines.h"
#include "harness/record/results_csv.h"
#include "harness/record/rows.h"
#include "harness/report/compare.h"
#include "harness/report/report.h"
#include "harness/report/summary.h"

using namespace sparsebench;
namespace fs = std::filesystem;

namespace {

const std::string& Baseline() {
  static const std::string path = [] {
    std::vector<CellResult> rows;
    for (const char* engine : {"sparse", "blas"}) {
      for (int repeat = 1; repeat <= 2; ++repeat) {
        CellResult r;
        r.dataset = "d";
        r.name = engine;
        r.threads = 2;
        r.repeat = repeat;
        r.status = CellStatus::kOk;
        r.machine = "m";
        r.train_seconds = engine == std::string("sparse") ? 1.5 : 10;
        r.metric_value = 0.5;
        rows.push_back(r);
      }
    }
    const std::string text = ResultsCsvText(rows);
    const std::string file = (fuzz::ScratchDir() / "baseline.csv").string();
    fuzz::WriteBytes(file, text);
    return file;
  }();
  return path;
}

using Key = std::tuple<std::string, std::string, int>;

double Number(const std::optional<double>& v) { return v.value_or(NAN); }

Key KeyOf(const CellResult& r) {
  return {r.dataset, r.name, static_cast<int>(r.threads.value_or(0))};
}

// Compare's promise: "no regression" only when every baseline cell that ended ok has current
// rows, each ok with a finite time and metric.
void CheckCompare(const std::vector<CellResult>& base, const std::vector<CellResult>& current,
                  const CompareOptions& options) {
  CompareResult result;
  try {
    result = Compare(options, BuiltinEngines());
  } catch (const DataError&) {
    return;
  }
  FUZZ_REQUIRE(!result.markdown.empty());
  if (result.regression) return;
  FUZZ_REQUIRE(!current.empty());
  std::map<Key, int>
      state;  // baseline cells that ended ok -> 0: no current row, 1: all usable, 2: not
  for (const auto& r : base) {
    if (r.ok()) state[KeyOf(r)] = 0;
  }
  FUZZ_REQUIRE(!state.empty());
  for (const auto& r : current) {
    const auto it = state.find(KeyOf(r));
    if (it == state.end()) continue;
    const bool usable =
        r.ok() && std::isfinite(Number(r.metric_value)) && std::isfinite(Number(r.train_seconds));
    it->second = std::max(it->second, usable ? 1 : 2);
  }
  for (const auto& [key, s] : state) FUZZ_REQUIRE(s == 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t at = input.find("\n----\n", start);
    parts.push_back(
        input.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos || parts.size() == 10) break;
    start = at + 6;
  }
  const fs::path dir = fuzz::ScratchDir() / "run", cells = dir / "cells",
                 out = fuzz::ScratchDir() / "out";
  static const bool made = fs::create_directories(cells) || true;
  (void)made;
  for (const auto& entry : fs::directory_iterator(cells)) fs::remove(entry.path());
  fuzz::WriteBytes(dir / "context.json", parts[0]);
  const std::string csv = (dir / "results.csv.in").string();
  fuzz::WriteBytes(csv, parts.size() > 1 ? parts[1] : std::string_view());
  for (size_t i = 2; i < parts.size(); ++i)
    fuzz::WriteBytes(cells / ("c" + std::to_string(i) + ".json"), parts[i]);

  const std::vector<CellResult> base = ReadResultsCsv(Baseline());
  CompareOptions options;
  options.baseline = Baseline();

  // The run directory: cell files.
  std::vector<CellResult> rows;
  bool loaded = true;
  try {
    rows = LoadRows({dir.string()}, BuiltinEngines());
  } catch (const DataError& e) {
    FUZZ_REQUIRE(e.file().starts_with(dir.string()));
    loaded = false;
  }
  if (loaded) {
    FUZZ_REQUIRE(rows.size() + 2 == std::max<size_t>(parts.size(), 2));
    WriteResultFiles(rows, out.string());
    std::vector<CellResult> back = ReadResultsCsv((out / "results.csv").string());
    ReadCurvesCsv((out / "curves.csv").string(), back);
    FUZZ_REQUIRE(back.size() == rows.size());
    // The written tables read back as the same text.
    FUZZ_REQUIRE(ResultsCsvText(back) == ResultsCsvText(rows));
    std::set<std::pair<std::string, std::string>> cells;
    for (const CellResult& r : rows) cells.insert({r.cell_id, r.machine});
    if (cells.size() == rows.size()) FUZZ_REQUIRE(CurvesCsvText(back) == CurvesCsvText(rows));
    GroupRows(rows, BuiltinEngines());
    ReportOptions report;
    report.run_dirs = {dir.string()};
    report.out_dir = out.string();
    report.prices_path = "/nonexistent/instances.csv";
    report.published_path = "/nonexistent/published.csv";
    report.plots = false;
    WriteReport(report, BuiltinEngines());
    options.current = dir.string();
    CheckCompare(base, rows, options);
  }

  // The results.csv, as the current run and as a baseline.
  std::vector<CellResult> table;
  try {
    table = ReadResultsCsv(csv);
  } catch (const DataError& e) {
    FUZZ_REQUIRE(e.file() == csv);
    return 0;
  }
  GroupRows(table, BuiltinEngines());
  ResolveTargets(table, BuiltinEngines());
  options.current = csv;
  CheckCompare(base, table, options);
  CompareOptions reverse;
  reverse.baseline = csv;
  reverse.current = Baseline();
  CheckCompare(table, base, reverse);
  return 0;
}
