// The referee against engines that misbehave on purpose (engines/broken.py, BROKEN_MODE):
// every misbehaviour is an EngineFault with its status and reason, and no process is left.
#include "harness/measure/external/exec_learner.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <tuple>

#include "baselines/epoch_loop.h"
#include "datasets/tests/test_paths.h"
#include "engine/api/engine_family.h"
#include "harness/record/cell_json.h"
#include "harness/cli/engines.h"
#include "harness/measure/external/protocol.h"
#include "harness/measure/external/tests/marked_processes.h"
#include "harness/measure/measure.h"

namespace sparsebench {
namespace {

const std::string kBroken =
    SPARSEBENCH_SOURCE_DIR "/harness/measure/external/tests/engines/broken.py";

// `rows` rows of 4 features; 8 labels, row r has label r % 8.
Dataset Rows(uint32_t rows) {
  Dataset d;
  d.num_features = 4;
  d.num_labels = 8;
  for (uint32_t r = 0; r < rows; ++r) {
    d.feature_ids.push_back(r % 4);
    d.values.push_back(1);
    d.row_offsets.push_back(d.feature_ids.size());
    d.label_ids.push_back(r % 8);
    d.label_offsets.push_back(d.label_ids.size());
  }
  return d;
}

TrainOptions Epochs(uint32_t epochs) {
  TrainOptions options;
  options.epochs = epochs;
  return options;
}

struct Outcome {
  std::string status, reason;
};

// One engine through everything the harness asks: stage, train with 2 pauses an epoch and a
// prediction in each, predictions after training, one single row, finish.
// Only the silent engine meets a short deadline: a loaded machine (ctest -j) may take seconds
// to start Python.
Outcome Referee(const std::string& mode) {
  const std::string settings = mode == "silent" ? ",reply_seconds=3" : "";
  setenv("BROKEN_MODE", mode.c_str(), 1);
  MarkEngines();
  Dataset train = Rows(100);
  const Dataset test = Rows(30);
  Outcome outcome{"ok", ""};
  try {
    ExecLearner learner("exec:" + kBroken + settings, {4, 8}, Epochs(2));
    learner.Stage(train);
    learner.Train(train, PausePlan{2, [&](const Progress&) { learner.Predict(test, 5); }});
    learner.Predict(test, 5);
    learner.PredictOne(test, 3, 5);
    learner.Finish();
  } catch (const EngineFault& fault) {
    outcome = {std::string(Text(fault.status())), fault.what()};
  }
  EXPECT_EQ(MarkedProcessesRunning(), 0)
      << mode << ": the engine or a child of it outlived its learner";
  return outcome;
}

struct Case {
  std::string mode, status, reason;
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.mode; }

class Misbehaving : public ::testing::TestWithParam<Case> {};

TEST_P(Misbehaving, IsARowWithAReason) {
  const Case& c = GetParam();
  const Outcome outcome = Referee(c.mode);
  EXPECT_EQ(outcome.status, c.status) << outcome.reason;
  EXPECT_NE(outcome.reason.find(c.reason), std::string::npos) << outcome.reason;
  EXPECT_NE(outcome.reason.find("broken.py"), std::string::npos)
      << "names the engine: " << outcome.reason;
}

INSTANTIATE_TEST_SUITE_P(
    ExecLearner, Misbehaving,
    ::testing::Values(
        Case{"early_exit", "crash", "exited with status 3 before sending loaded"},
        Case{"silent", "timeout", "sent no predictions within 3 s"},
        Case{"flood", "protocol_error", "without a line end"},
        Case{"not_json", "protocol_error", "not a protocol message"},
        Case{"version", "protocol_error", "speaks protocol version 3; this harness speaks 1 and 2"},
        Case{"out_of_range", "invalid", "label id 8 outside 0..7"},
        Case{"duplicate", "invalid", "label id 0 twice"},
        Case{"wrong_rows", "invalid", "29 rows where 30 were asked for"},
        Case{"wrong_k", "invalid", "4 ids where 5 label ids were asked for"},
        Case{"early_answer", "protocol_error", "sent predictions where the protocol expects pause"},
        Case{"wrong_pause", "protocol_error", "paused at epoch 0 rows 51"},
        Case{"bad_type", "protocol_error",
             "sent loaded with \"batch\": -10, a value of the wrong type"},
        Case{"leftover", "protocol_error", "left 2 process(es) running after quit"},
        // a grandchild in a session of its own (double fork, setsid) that ignores SIGTERM
        Case{"escape", "protocol_error", "left 1 process(es) running after quit"}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.mode; });

TEST(ExecLearner, WellBehavedEngineIsRefereedToTheEnd) { EXPECT_EQ(Referee("none").status, "ok"); }

// As Measure.TheClockHoldsTrainingAndNothingElse, with the steps in another process: the engine
// sleeps kStep before each pause, kPredict in each predict reply and kLoad while loading. The
// sleeps are lower bounds of what really ran, so a busy machine cannot fail the test.
TEST(ExecLearner, TheClockHoldsTrainingAndNothingElse) {
  constexpr double kStep = 0.05, kPredict = 0.3, kLoad = 0.6;
  constexpr int kEpochs = 2, kPauses = 2;
  setenv("BROKEN_MODE", "none", 1);
  Dataset train = Rows(100);
  const Dataset test = Rows(30);
  MeasureSettings s;
  s.evals_per_epoch = kPauses;
  s.recall_sample = 0;
  s.progress = false;
  const std::string spec =
      fmt::format("exec:{},step={},predict={},load={}", kBroken, kStep, kPredict, kLoad);
  const auto start = std::chrono::steady_clock::now();
  const Measurement m = TrainAndMeasure(
      [&](const DataShape& shape) {
        return std::make_unique<ExecLearner>(spec, shape, Epochs(kEpochs));
      },
      train, test, s);
  m.learner->Finish();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double train_seconds = m.result.train_seconds.value_or(NAN);
  const int pauses = kEpochs * kPauses;
  EXPECT_GE(train_seconds, pauses * kStep);
  // Loading and every prediction (one a pause, the final one, no latency samples) are outside.
  EXPECT_LE(train_seconds, wall - kLoad - (pauses + 1) * kPredict);
  EXPECT_GE(m.result.curve_eval_seconds.value_or(NAN), pauses * kPredict);
  const nlohmann::json curve = ToJson(m.result)["curve"];
  ASSERT_EQ(curve.size(), static_cast<size_t>(pauses));
  for (size_t i = 0; i < curve.size(); ++i) {
    EXPECT_DOUBLE_EQ(curve[i][1].get<double>(), 0.5 * static_cast<double>(i + 1));
    const double before = i == 0 ? 0 : curve[i - 1][0].get<double>();
    EXPECT_GE(curve[i][0].get<double>() - before, kStep);  // each step on the clock
  }
  const auto& context = m.learner->context();
  EXPECT_GT(std::stod(context.at("engine_peak_memory_mb")), 1.0);
}

// One engine in `mode` through stage, train (no pauses), a prediction and finish; its context.
std::map<std::string, std::string> Context(const std::string& mode, const std::string& options) {
  setenv("BROKEN_MODE", mode.c_str(), 1);
  MarkEngines();
  Dataset train = Rows(100);
  ExecLearner learner("exec:" + kBroken + options, {4, 8}, Epochs(1));
  learner.Stage(train);
  learner.Train(train, PausePlan{});
  learner.Predict(Rows(10), 5);
  learner.Finish();
  EXPECT_EQ(MarkedProcessesRunning(), 0) << mode;
  return learner.context();
}

// A grandchild in a session of its own burns 1.5 CPU-s while training: counted on the clock.
TEST(ExecLearner, CpuOfEveryProcessTheEngineStartedIsCounted) {
  const auto context = Context("escape_burn", ",burn=1.5");
  EXPECT_GE(std::stod(context.at("engine_cpu_train_seconds")), 1.2);
  EXPECT_LE(std::stod(context.at("engine_cpu_load_seconds")), 1.0);
}

// The engine holds 300 MB and forks a child that shares them: 300 MB, not 600.
TEST(ExecLearner, PagesSharedAfterAForkCountOnce) {
  const double mb = std::stod(Context("fork_shared", ",hog_mb=300").at("engine_peak_memory_mb"));
  EXPECT_GE(mb, 300.0);
  EXPECT_LE(mb, 420.0);
}

// The cell's peak is this process and the engine's tree at the same moments: at least the
// engine's 300 MB plus this process's share, at most their two peaks added.
TEST(ExecLearner, TheCellsPeakMeasuresTheHarnessAndTheEngineTogether) {
  const auto context = Context("fork_shared", ",hog_mb=300");
  const double engine = std::stod(context.at("engine_peak_memory_mb"));
  const double cell = std::stod(context.at("cell_peak_memory_mb"));
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  EXPECT_GE(engine, 300.0);
  EXPECT_GE(cell, engine + 5.0);  // this test process holds some MB of its own
  EXPECT_LE(cell, engine + static_cast<double>(self.ru_maxrss) / 1024.0);
}

// Protocol 2: the rows at load carry no labels; the labels file `train` names has each row's.
TEST(ExecLearner, LabelsArriveWithTrainNotWithLoad) {
  testing::TempDir dir;
  const auto context = Context("none", ",spy=" + dir.file("spy.json"));
  EXPECT_EQ(context.at("engine_protocol"), "2");
  const nlohmann::json seen = nlohmann::json::parse(std::ifstream(dir.file("spy.json")));
  EXPECT_FALSE(seen.at("load_labels").get<bool>());
  ASSERT_EQ(seen.at("train_labels").size(), 100u);
  for (size_t r = 0; r < 100; ++r) EXPECT_EQ(seen["train_labels"][r], nlohmann::json({r % 8}));
}

// An engine that speaks protocol 1 still runs, with the labels in the rows at load, and its
// context says so.
TEST(ExecLearner, ProtocolOneEnginesGetTheLabelsAtLoad) {
  testing::TempDir dir;
  const auto context = Context("v1", ",spy=" + dir.file("spy.json"));
  EXPECT_EQ(context.at("engine_protocol"), "1: labels given at load");
  const nlohmann::json seen = nlohmann::json::parse(std::ifstream(dir.file("spy.json")));
  EXPECT_TRUE(seen.at("load_labels").get<bool>());
  EXPECT_FALSE(seen.contains("train_labels"));
}

// An engine burns `seconds` of CPU in one phase: they land in that phase's counter (within
// 20%), the others stay near zero, and the rule flags work off the clock where it was.
struct BurnCase {
  std::string options, counter, flag;
  double seconds = 0;
};

void PrintTo(const BurnCase& c, std::ostream* out) { *out << c.counter; }

class OffClock : public ::testing::TestWithParam<BurnCase> {};

TEST_P(OffClock, CpuLandsInItsPhaseAndTheRuleFlagsIt) {
  const BurnCase& c = GetParam();
  setenv("BROKEN_MODE", "none", 1);
  MarkEngines();
  Dataset train = Rows(100);
  const Dataset test = Rows(30);
  ExecLearner learner("exec:" + kBroken + c.options, {4, 8}, Epochs(2));
  learner.Stage(train);
  learner.Train(train, PausePlan{2, [&](const Progress&) { learner.Predict(test, 5); }});
  learner.Predict(test, 5);
  learner.Finish();
  const auto context = learner.context();
  for (const char* phase : {"load", "train", "pause", "after"}) {
    const std::string key = fmt::format("engine_cpu_{}_seconds", phase);
    const double seconds = std::stod(context.at(key));
    if (key == c.counter) {
      EXPECT_GE(seconds, 0.8 * c.seconds) << key;
      EXPECT_LE(seconds, 1.2 * c.seconds) << key;
    } else {
      EXPECT_LE(seconds, 0.5) << key << " where " << c.counter << " burned";
    }
  }
  const std::string& flag = context.at("engine_off_clock");
  if (c.flag.empty()) {
    EXPECT_EQ(flag, "");
  } else {
    EXPECT_NE(flag.find(c.flag), std::string::npos) << flag;
  }
}

INSTANTIATE_TEST_SUITE_P(
    ExecLearner, OffClock,
    ::testing::Values(BurnCase{"", "none", ""},
                      BurnCase{",burn_load=3", "engine_cpu_load_seconds", "load took", 3},
                      BurnCase{",burn_pause=0.5", "engine_cpu_pause_seconds", "pauses took", 2},
                      BurnCase{",burn_after=2", "engine_cpu_after_seconds",
                               "the test set's predictions after done took", 2}),
    [](const ::testing::TestParamInfo<BurnCase>& info) {
      return info.param.counter == "none"
                 ? std::string("honest")
                 : info.param.counter.substr(11, info.param.counter.size() - 19);
    });

// The pause points the harness sends an external engine are where the built-in dense learners
// pause (baselines/epoch_loop.cc), for any rows, batch and pauses an epoch.
TEST(ExecLearner, PausesComeWhereBuiltInLearnersPause) {
  for (const auto& [rows, batch, per_epoch] :
       {std::tuple{100u, 10u, 2u}, {4904u, 64u, 2u}, {1000u, 7u, 3u}, {50u, 64u, 4u}}) {
    std::vector<uint64_t> paused;
    const PausePlan plan{per_epoch, [&](const Progress& p) {
                           if (!p.epoch_end) paused.push_back(p.samples);
                         }};
    RunEpoch(Rows(rows), 1, 0, batch, plan, 0, [](std::span<const uint32_t>) { return 0.0; });
    EXPECT_EQ(PausePositions(rows, batch, per_epoch), paused) << rows << " rows, batch " << batch;
  }
  EXPECT_EQ(PausePositions(4904, 64, 2), (std::vector<uint64_t>{2432, 4864}));
  EXPECT_TRUE(PausePositions(100, 10, 0).empty());
}

TEST(ExecSpec, NamesAreResolvedAndMistakesRefused) {
  const ExecSpec spec = ExecSpec::Parse("exec:null,b=2,a=1");
  EXPECT_NE(spec.path.find("tools/engines/null.py"), std::string::npos);
  EXPECT_EQ(spec.Canonical(), "exec:null,a=1,b=2");
  EXPECT_THROW(ExecSpec::Parse("exec:no-such-engine"), std::invalid_argument);
  EXPECT_THROW(ExecSpec::Parse("exec:null,a"), std::invalid_argument);
  EXPECT_THROW(ExecSpec::Parse("exec:null,reply_seconds=0"), std::invalid_argument);
  EXPECT_THROW(ExecSpec::Parse("exec:"), std::invalid_argument);
  EXPECT_THROW(ExecSpec::Parse("exec:null,input=words"), std::invalid_argument);
}

// input=text: the spec reads raw text, so the train command gives it no shared featurizer and
// the report names it among the text readers; its clock no longer lists the featurizer.
TEST(ExecSpec, InputTextMakesTheSpecATextReader) {
  const EngineRegistry& engines = BuiltinEngines();
  EXPECT_TRUE(engines.ReadsText("exec:null,input=text"));
  EXPECT_FALSE(engines.ReadsText("exec:null,input=ids"));
  EXPECT_FALSE(engines.ReadsText("exec:null"));
  EXPECT_TRUE(engines.ReadsText("text"));
  EXPECT_FALSE(engines.ReadsText("blas"));
  EXPECT_EQ(engines.FactsOf("exec:null,input=text").clock_covers.find("featurizer"),
            std::string::npos);
  EXPECT_NE(engines.FactsOf("exec:null").clock_covers.find("the shared featurizer"),
            std::string::npos);
}

TEST(ParsePredictions, ChecksEveryRow) {
  const nlohmann::json good = {{"ids", {{1, 0}, {0, 1}}}};
  const TopK top = ParsePredictions(good, 2, 5, 2, "e");
  EXPECT_EQ(top.k, 5u);
  EXPECT_EQ(top.ids[0], 1u);
  EXPECT_EQ(top.ids[2], UINT32_MAX);  // padded past the two labels
  EXPECT_THROW(ParsePredictions({{"ids", {{1, 0}}}}, 2, 5, 2, "e"), EngineFault);
  EXPECT_THROW(ParsePredictions({{"ids", {{1, -1}, {0, 1}}}}, 2, 5, 2, "e"), EngineFault);
  EXPECT_THROW(ParsePredictions({{"ids", {{1, 0.5}, {0, 1}}}}, 2, 5, 2, "e"), EngineFault);
  EXPECT_THROW(ParsePredictions({{"rows", 2}}, 2, 5, 2, "e"), EngineFault);
}

}  // namespace
}  // namespace sparsebench
