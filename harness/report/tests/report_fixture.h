#pragma once

// Run directories written by hand for the report's tests: cell files and contexts.

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "baselines/temp_dir.h"
#include "datasets/tests/test_paths.h"
#include "harness/report/report.h"

namespace sparsebench::report_fixture {

namespace fs = std::filesystem;

inline nlohmann::json Cell(const std::string& dataset, const std::string& engine, int repeat) {
  return {{"cell_id", dataset + "/" + engine + "/t2/r" + std::to_string(repeat)},
          {"cell_index", repeat},
          {"dataset", dataset},
          {"engine", engine},
          {"spec", engine},
          {"threads", 2},
          {"repeat", repeat},
          {"status", "ok"},
          {"machine", "m"},
          {"metric", "p_at_1"},
          {"metric_value", 0.5},
          {"train_seconds", 1.5},
          {"target_rule", "0.4"},
          {"curve", {{0.5, 0.5, 0.3, nullptr, nullptr}, {1.0, 1.0, 0.45, 0.9, 0.8}}}};
}

// A run directory with these cell files (raw text) and context.json.
inline std::string RunDir(
    const testing::TempDir& dir, const std::string& name, const std::vector<std::string>& cells,
    const std::string& context = R"({"cpu_model": "x", "cores": 2, "price_per_hour": 0.5})") {
  const fs::path run = fs::path(dir.path()) / name;
  fs::create_directories(run / "cells");
  for (size_t i = 0; i < cells.size(); ++i)
    std::ofstream(run / "cells" / ("c" + std::to_string(i) + ".json")) << cells[i];
  std::ofstream(run / "context.json") << context;
  return run.string();
}

inline ReportOptions Options(const std::string& run, const std::string& out, bool plots = false) {
  ReportOptions o;
  o.run_dirs = {run};
  o.out_dir = out;
  o.prices_path = std::string(SPARSEBENCH_SOURCE_DIR) + "/harness/instances.csv";
  o.published_path = std::string(SPARSEBENCH_SOURCE_DIR) + "/harness/published.csv";
  o.plots = plots;
  return o;
}

inline std::string Read(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

}  // namespace sparsebench::report_fixture
