// Adding an engine family is this file and one registration line (`engines.Add(ToyFamily())`):
// the toy family then trains through the CLI, and results, compare and report treat it by what
// its entry says, with no other file edited.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "baselines/temp_dir.h"
#include "datasets/data_error.h"
#include "datasets/tests/test_paths.h"
#include "engine/api/engine_error.h"
#include "engine/api/engine_family.h"
#include "engine/api/spec.h"
#include "harness/cli/command_line.h"
#include "harness/cli/engines.h"
#include "harness/record/rows.h"
#include "harness/report/compare.h"
#include "harness/report/report.h"
#include "harness/run/matrix.h"

namespace sparsebench {
namespace {

namespace fs = std::filesystem;

// Predicts the most frequent training labels; with oracle=1 it reads the row's own labels first.
class ToyLearner : public Learner {
 public:
  ToyLearner(const std::string& text, const DataShape& shape) : counts_(shape.labels, 0) {
    Spec spec = Spec::Parse(text);
    oracle_ = spec.Int("oracle", 0, 0, 1) == 1;
    oom_ = spec.Int("oom", 0, 0, 1) == 1;
    role_ = spec.String("role", "none");
    spec.Finish();
    if (role_ != "none" && role_ != "subject" && role_ != "random" && role_ != "all") {
      throw ConfigError("role must be none, subject, random or all");
    }
  }
  std::string spec() const override {
    return "toy:oracle=" + std::to_string(oracle_) + ",role=" + role_;
  }
  TrainSettings settings() const override { return {1, 0.1, 1, "counting labels"}; }
  void Train(const Dataset& train, const PausePlan& plan) override {
    if (oom_) throw std::bad_alloc();
    for (size_t r = 0; r < train.rows(); ++r) {
      for (uint32_t label : train.labels(r)) ++counts_[label];
      if (r + 1 < train.rows()) continue;
      Progress end;
      end.epoch = 1;
      end.samples = r + 1;
      end.epoch_end = true;
      static_cast<void>(plan(end));
    }
  }
  TopK Predict(const Dataset& data, uint32_t k) const override {
    TopK top{k, {}, {}};
    for (size_t r = 0; r < data.rows(); ++r) Append(data, r, top);
    return top;
  }
  TopK PredictOne(const Dataset& data, size_t row, uint32_t k) const override {
    TopK top{k, {}, {}};
    Append(data, row, top);
    return top;
  }
  void Save(const std::string&) const override { throw ConfigError("toy models are not saved"); }
  size_t model_bytes() const override { return counts_.size() * sizeof(uint64_t); }

 private:
  void Append(const Dataset& data, size_t row, TopK& top) const {
    std::vector<uint32_t> order;
    if (oracle_) {
      for (uint32_t label : data.labels(row)) order.push_back(label);
    }
    std::vector<uint32_t> by_count(counts_.size());
    for (uint32_t i = 0; i < by_count.size(); ++i) by_count[i] = i;
    std::stable_sort(by_count.begin(), by_count.end(),
                     [&](uint32_t a, uint32_t b) { return counts_[a] > counts_[b]; });
    for (uint32_t id : by_count) {
      if (std::find(order.begin(), order.end(), id) == order.end()) order.push_back(id);
    }
    order.resize(top.k);
    for (uint32_t i = 0; i < top.k; ++i) {
      top.ids.push_back(order[i]);
      top.scores.push_back(static_cast<float>(top.k - i));
    }
  }

  std::vector<uint64_t> counts_;
  bool oracle_ = false, oom_ = false;
  std::string role_;
};

SpecFacts ToyFacts(const std::string& spec) {
  const std::string role = ToyLearner(spec, DataShape{1, 1}).spec();
  SpecFacts f;
  f.clock_covers = "counting the toy's labels";
  if (role.ends_with("role=subject")) f.role = AblationRole::kSubject;
  if (role.ends_with("role=random")) f.role = AblationRole::kUniformSampling;
  return f;
}

EngineFamily ToyFamily() {
  EngineFamily f;
  f.name = "toy";
  f.summary = "a test-only family that counts labels";
  f.dense_baseline = true;
  f.check = [](const std::string& spec) { ToyLearner(spec, DataShape{1, 1}); };
  f.make = [](const std::string& spec, const DataShape& shape, const TrainOptions&) {
    return std::make_unique<ToyLearner>(spec, shape);
  };
  f.facts = ToyFacts;
  f.weak_note = [](std::string_view, std::string_view) {
    return std::string("the toy only counts labels");
  };
  return f;
}

EngineRegistry WithToy() {
  EngineRegistry engines = BuiltinEngines();
  engines.Add(ToyFamily());
  return engines;
}

// Six rows over six labels, label 0 the most frequent (two rows); the same file trains and tests.
std::string ToyData(const testing::TempDir& dir) {
  fs::create_directories(dir.file("toydata"));
  const std::string path = dir.file("toydata/rows.txt");
  std::ofstream(path) << "6 4 6\n0 0:1\n0 1:1\n1 2:1\n2 3:1\n3 0:1\n5 1:1\n";
  return path;
}

// `sparsebench train` in this process, with these engines: its JSON line.
nlohmann::json Train(const EngineRegistry& engines, const std::string& spec,
                     const std::string& data, int exit_status = 0) {
  cli::CommandLine command_line(engines);
  const std::vector<std::string> args = {
      "sparsebench", "train", "--engine",          spec,     "--train",           data,
      "--test",      data,    "--metric",          "p_at_1", "--evals-per-epoch", "1",
      "--threads",   "1",     "--latency-samples", "0"};
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  ::testing::internal::CaptureStdout();
  const int status = command_line.Run(static_cast<int>(argv.size()), argv.data());
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(status, exit_status) << spec;
  return nlohmann::json::parse(out, nullptr, false);
}

// A run directory as `sparsebench run` writes one: the train lines as cells, labelled.
std::string RunDir(const testing::TempDir& dir, const std::string& name, const std::string& machine,
                   const std::vector<std::pair<std::string, nlohmann::json>>& cells) {
  const fs::path run = dir.file(name);
  fs::create_directories(run / "cells");
  for (size_t i = 0; i < cells.size(); ++i) {
    nlohmann::json row = cells[i].second;
    row["engine"] = cells[i].first;  // the matrix's label; the line holds the spec
    row["cell_id"] = "toydata/" + cells[i].first + "/t1/r0";
    row["cell_index"] = i;
    row["repeat"] = 0;
    row["machine"] = machine;
    row["target_rule"] = "dense-10pt";
    std::ofstream(run / "cells" / (cells[i].first + ".json")) << row.dump();
  }
  std::ofstream(run / "context.json") << R"({"cpu_model": ")" + machine + R"(", "cores": 1})";
  return run.string();
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(ToyFamily, UnknownUntilRegistered) {
  EXPECT_THROW(BuiltinEngines().CheckSpec("toy"), ConfigError);
  const EngineRegistry engines = WithToy();
  EXPECT_NO_THROW(engines.CheckSpec("toy:role=subject"));
  EXPECT_THROW(engines.CheckSpec("toy:role=boss"), ConfigError);
  try {
    engines.CheckSpec("nosuch:x=1");
    FAIL() << "an unknown family was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("toy"), std::string::npos) << e.what();
  }
  EngineRegistry twice = engines;
  EXPECT_THROW(twice.Add(ToyFamily()), ConfigError);
}

TEST(ToyFamily, EnginesCommandListsIt) {
  cli::CommandLine command_line(WithToy());
  const char* argv[] = {"sparsebench", "engines"};
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(command_line.Run(2, argv), 0);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("toy        a test-only family that counts labels [dense baseline]"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("fasttext"), std::string::npos) << out;
}

// An engine that runs out of memory: the child's line says so, the runner takes its status.
TEST(ToyFamily, OutOfMemoryIsTheChildsStatus) {
  testing::TempDir dir;
  const nlohmann::json line = Train(WithToy(), "toy:oom=1", ToyData(dir), 1);
  EXPECT_EQ(line.value("status", ""), "oom") << line.dump();
  EXPECT_EQ(line.value("reason", ""), "out of memory (std::bad_alloc)");
  EXPECT_EQ(line.value("spec", ""), "toy:oom=1");
}

TEST(ToyFamily, MatrixAcceptsItsSpecs) {
  testing::TempDir dir;
  const std::string path = dir.file("m.toml");
  std::ofstream(path) << "name = \"t\"\n[[datasets]]\nname = \"d\"\ntrain = \"a\"\ntest = \"b\"\n"
                         "engines = [ { spec = \"toy:oracle=1\" } ]\n";
  EXPECT_THROW(ReadMatrix(path, BuiltinEngines(), false), DataError);
  EXPECT_EQ(ReadMatrix(path, WithToy(), false).datasets.at(0).engines.at(0).spec, "toy:oracle=1");
}

TEST(ToyFamily, FlowsThroughTrainResultsCompareAndReport) {
  const EngineRegistry engines = WithToy();
  testing::TempDir dir;
  const std::string data = ToyData(dir);
  const nlohmann::json oracle = Train(engines, "toy:oracle=1,role=subject", data);
  const nlohmann::json counter = Train(engines, "toy:role=random", data);
  ASSERT_EQ(oracle.value("status", ""), "ok") << oracle.dump();
  EXPECT_EQ(oracle.value("spec", ""), "toy:oracle=1,role=subject");
  EXPECT_FALSE(oracle.contains("engine"));  // the child knows no matrix label
  EXPECT_EQ(oracle.value("optimizer", ""), "counting labels");
  EXPECT_DOUBLE_EQ(oracle.value("p_at_1", 0.0), 1.0);
  EXPECT_NEAR(counter.value("p_at_1", 0.0), 2.0 / 6, 1e-9);  // label 0: two rows of six

  // Results: the toy is a dense baseline by its entry, so "dense-10pt" resolves from its rows.
  const std::string run = RunDir(dir, "run", "m1", {{"oracle", oracle}, {"counter", counter}});
  const auto rows = LoadRows({run}, engines);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NEAR(rows[0].target.value_or(0.0), 0.9, 1e-12);
  EXPECT_FALSE(LoadRows({run}, BuiltinEngines())[0].target);  // the built-in registry knows no toy

  // Compare: across machines, ratios to the registry's first dense baseline.
  const std::string other = RunDir(dir, "other", "m2", {{"oracle", oracle}, {"counter", counter}});
  EngineRegistry only_toy;
  only_toy.Add(ToyFamily());
  const CompareResult compared = Compare({.baseline = run, .current = other}, only_toy);
  EXPECT_NE(compared.markdown.find("ratios to `toy`"), std::string::npos) << compared.markdown;

  // Report: the clock, the ablation role and the low-score note come from the entry.
  ReportOptions o;
  o.run_dirs = {run};
  o.out_dir = dir.file("report");
  o.plots = false;
  WriteReport(o, engines);
  const std::string md = ReadAll(dir.file("report/report.md"));
  EXPECT_NE(md.find("clock: counting the toy's labels"), std::string::npos) << md;
  EXPECT_NE(md.find("Ablation at the target: `oracle` (LSH)"), std::string::npos) << md;
  EXPECT_NE(md.find("`counter` (uniform sampling, same active count)"), std::string::npos) << md;
  EXPECT_NE(md.find("`counter` scores far below the others: the toy only counts labels"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("(blas, torch, toy)"), std::string::npos) << md;
}

}  // namespace
}  // namespace sparsebench
