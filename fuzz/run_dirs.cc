// Run directories as `report` and `compare` read them: the input is split at lines "----"
// into context.json, a results.csv and up to eight cell files of one run directory. Then
// LoadRows, WriteResultFiles and ReadResultsCsv (the written table reads back with the same
// rows), GroupRows, the report without plots, and Compare against a fixed baseline (with the
// run directory and the results.csv as the current run, and the results.csv as baseline).
// Malformed input must end in DataError naming a file; a comparison that finds no regression
// must have had, for every baseline cell that ended ok, ok current rows with finite numbers.
// fuzz-options: -max_len=16384
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "datasets/data_error.h"
#include "fuzz/fuzz_util.h"
#include "fuzz/scratch.h"
#include "harness/compare.h"
#include "harness/csv.h"
#include "harness/report.h"
#include "harness/results.h"
#include "harness/summary.h"

using namespace sparsebench;
namespace fs = std::filesystem;

namespace {

const std::string& Baseline() {
  static const std::string path = [] {
    std::string text = CsvLine(ResultColumns());
    for (const char* engine : {"sparse", "blas"}) {
      for (int repeat = 1; repeat <= 2; ++repeat) {
        std::vector<std::string> f;
        for (const std::string& c : ResultColumns()) {
          if (c == "dataset")
            f.push_back("d");
          else if (c == "engine")
            f.push_back(engine);
          else if (c == "threads")
            f.push_back("2");
          else if (c == "repeat")
            f.push_back(std::to_string(repeat));
          else if (c == "status")
            f.push_back("ok");
          else if (c == "machine")
            f.push_back("m");
          else if (c == "train_seconds")
            f.push_back(engine == std::string("sparse") ? "1.5" : "10");
          else if (c == "metric_value")
            f.push_back("0.5");
          else
            f.push_back("");
        }
        text += CsvLine(f);
      }
    }
    const std::string file = (fuzz::ScratchDir() / "baseline.csv").string();
    fuzz::WriteBytes(file, text);
    return file;
  }();
  return path;
}

using Key = std::tuple<std::string, std::string, int>;

double Number(const nlohmann::json& row, const char* key) {
  const auto it = row.find(key);
  return it != row.end() && it->is_number() ? it->get<double>() : NAN;
}

// Compare's promise: "no regression" only when every baseline cell that ended ok has current
// rows, each ok with a finite time and metric.
void CheckCompare(const std::vector<nlohmann::json>& base,
                  const std::vector<nlohmann::json>& current, const CompareOptions& options) {
  CompareResult result;
  try {
    result = Compare(options);
  } catch (const DataError&) {
    return;
  }
  FUZZ_REQUIRE(!result.markdown.empty());
  if (result.regression) return;
  FUZZ_REQUIRE(!current.empty());
  std::map<Key, int>
      state;  // baseline cells that ended ok -> 0: no current row, 1: all usable, 2: not
  for (const auto& r : base) {
    if (r.value("status", "") == "ok")
      state[{r.value("dataset", ""), r.value("engine", ""), r.value("threads", 0)}] = 0;
  }
  FUZZ_REQUIRE(!state.empty());
  for (const auto& r : current) {
    const auto it =
        state.find({r.value("dataset", ""), r.value("engine", ""), r.value("threads", 0)});
    if (it == state.end()) continue;
    const bool usable = r.value("status", "") == "ok" && std::isfinite(Number(r, "metric_value")) &&
                        std::isfinite(Number(r, "train_seconds"));
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

  const std::vector<nlohmann::json> base = ReadResultsCsv(Baseline());
  CompareOptions options;
  options.baseline = Baseline();

  // The run directory: cell files.
  std::vector<nlohmann::json> rows;
  bool loaded = true;
  try {
    rows = LoadRows({dir.string()});
  } catch (const DataError& e) {
    FUZZ_REQUIRE(e.file().starts_with(dir.string()));
    loaded = false;
  }
  if (loaded) {
    FUZZ_REQUIRE(rows.size() + 2 == std::max<size_t>(parts.size(), 2));
    WriteResultFiles({dir.string()}, out.string());
    const std::vector<nlohmann::json> back = ReadResultsCsv((out / "results.csv").string());
    FUZZ_REQUIRE(back.size() == rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      for (const char* key : {"cell_id", "dataset", "engine", "status", "reason", "machine"}) {
        FUZZ_REQUIRE(back[i].value(key, "") == rows[i].value(key, ""));
      }
    }
    GroupRows(rows);
    ReportOptions report;
    report.run_dirs = {dir.string()};
    report.out_dir = out.string();
    report.prices_path = "/nonexistent/instances.csv";
    report.published_path = "/nonexistent/published.csv";
    report.plots = false;
    WriteReport(report);
    options.current = dir.string();
    CheckCompare(base, rows, options);
  }

  // The results.csv, as the current run and as a baseline.
  std::vector<nlohmann::json> table;
  try {
    table = ReadResultsCsv(csv);
  } catch (const DataError& e) {
    FUZZ_REQUIRE(e.file() == csv);
    return 0;
  }
  GroupRows(table);
  ResolveTargets(table);
  options.current = csv;
  CheckCompare(base, table, options);
  CompareOptions reverse;
  reverse.baseline = csv;
  reverse.current = Baseline();
  CheckCompare(table, base, reverse);
  return 0;
}
