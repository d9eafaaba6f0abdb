#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "baselines/fasttext_learner.h"
#include "engine/tests/test_util.h"
#include "baselines/subprocess.h"
#include "datasets/random.h"
#include "engine/engine_error.h"
#include "datasets/metrics.h"

namespace sparsebench {
namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

// Small enough that fastText allocates and saves its n-gram table in milliseconds.
constexpr const char* kSmallModel = "bucket=1000";

TrainOptions OneThread() {
  TrainOptions options;
  options.threads = 1;
  options.seed = 3;
  return options;
}

void AddLabels(Dataset& d, std::initializer_list<uint32_t> labels) {
  d.label_ids.insert(d.label_ids.end(), labels);
  d.label_offsets.push_back(d.label_ids.size());
}

// "good great" rows are label 1, "bad awful" rows label 0, padded with shared filler words.
Dataset ReviewData(uint32_t rows, uint64_t seed) {
  const std::vector<std::vector<std::string>> words = {{"Bad", "awful", "terrible!", "poor"},
                                                       {"Good", "great", "excellent!", "nice"}};
  const std::vector<std::string> filler = {"the", "food", "service", "was", "place", "staff"};
  Dataset d;
  d.name = "reviews";
  d.num_labels = 2;
  Rng rng(seed);
  for (uint32_t r = 0; r < rows; ++r) {
    const uint32_t label = rng.Below(2);
    std::string text = filler[rng.Below(6)];
    for (int w = 0; w < 2; ++w) {
      text += " " + words[label][rng.Below(4)] + " " + filler[rng.Below(6)];
    }
    d.text.push_back(text);
    AddLabels(d, {label});
  }
  return d;
}

// Label l's rows draw features from [10 l, 10 l + 10); every third row also carries label l + 1.
Dataset XmcData(uint32_t rows, uint64_t seed) {
  constexpr uint32_t kLabels = 6;
  Dataset d;
  d.name = "xmc";
  d.num_features = 10 * kLabels;
  d.num_labels = kLabels;
  Rng rng(seed);
  for (uint32_t r = 0; r < rows; ++r) {
    const uint32_t label = rng.Below(kLabels);
    for (uint32_t f = 10 * label; f < 10 * label + 10; ++f) {
      if (!rng.Bernoulli(0.4)) continue;
      d.feature_ids.push_back(f);
      d.values.push_back(0.25f + static_cast<float>(rng.Uniform()));
    }
    d.row_offsets.push_back(d.feature_ids.size());
    if (r % 3 == 0) {
      AddLabels(d, {label, (label + 1) % kLabels});
    } else {
      AddLabels(d, {label});
    }
  }
  return d;
}

// An empty row must still get its own line of predictions.
Dataset WithEmptyFirstRow(Dataset data) {
  TextColumn text;
  text.push_back("");
  for (size_t r = 1; r < data.rows(); ++r) text.push_back(data.text.at(r));
  data.text = std::move(text);
  return data;
}

bool HaveFastText() { return !FindExecutable("fasttext").empty(); }

TEST(FastTextPredictions, ParsesCannedOutputAndPads) {
  std::istringstream out(
      "__label__3 0.91 __label__0 0.05\n"
      "__label__1 1.00001 __label__2 1.00001e-05 __label__0 0 __label__4 0 __label__3 0\n"
      "\n");
  const TopK top = ParseFastTextPredictions(out, 3, 5, 5);
  ASSERT_EQ(top.rows(), 3u);
  EXPECT_EQ(std::vector<uint32_t>(top.ids.begin(), top.ids.begin() + 5),
            (std::vector<uint32_t>{3, 0, kNone, kNone, kNone}));
  EXPECT_EQ(std::vector<float>(top.scores.begin(), top.scores.begin() + 5),
            (std::vector<float>{0.91f, 0.05f, kMinusInf, kMinusInf, kMinusInf}));
  EXPECT_EQ(std::vector<uint32_t>(top.ids.begin() + 5, top.ids.begin() + 10),
            (std::vector<uint32_t>{1, 2, 0, 4, 3}));
  EXPECT_FLOAT_EQ(top.scores[6], 1.00001e-05f);
  EXPECT_TRUE(
      std::all_of(top.ids.begin() + 10, top.ids.end(), [](uint32_t id) { return id == kNone; }));
}

TEST(FastTextPredictions, MalformedOutputThrows) {
  const std::vector<std::string> bad = {
      "__label__3\n",                      // no probability
      "__label__x 0.5\n",                  // no id
      "label3 0.5\n",                      // no prefix
      "__label__3 high\n",                 // no number
      "__label__3 0.5junk\n",              // trailing junk
      "__label__-1 0.5\n",                 // negative id
      "__label__1 0.5 __label__2 0.4\n",   // more than k = 1
      "",                                  // fewer lines than rows
      "__label__1 0.5\n__label__2 0.5\n",  // more lines than rows
  };
  for (const std::string& text : bad) {
    std::istringstream out(text);
    EXPECT_THROW(ParseFastTextPredictions(out, 1, 1, 5), std::runtime_error) << text;
  }
}

TEST(FastTextPredictions, OutOfRangeLabelThrows) {
  std::istringstream out("__label__5 0.5\n");
  try {
    ParseFastTextPredictions(out, 1, 5, 5);
    FAIL() << "label 5 of 5 accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
  }
}

// What fastText prints for a row: every label by falling score, the first k of them.
std::string PredictProbLine(const std::vector<float>& scores, uint32_t k) {
  std::vector<uint32_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return scores[a] > scores[b]; });
  std::ostringstream line;
  line.precision(9);
  for (size_t i = 0; i < std::min<size_t>(k, order.size()); ++i) {
    line << (i ? " " : "") << "__label__" << order[i] << " " << scores[order[i]];
  }
  return line.str();
}

TEST(FastTextPredictions, IdenticalMetricsFromIdenticalScoreMatrices) {
  constexpr uint32_t kRows = 6, k = 5;
  for (const uint32_t labels : {9u, 3u}) {
    Dataset truth;
    truth.num_labels = labels;
    Rng rng(labels);
    std::vector<std::vector<float>> matrix(kRows);
    for (uint32_t r = 0; r < kRows; ++r) {
      for (uint32_t l = 0; l < labels; ++l) matrix[r].push_back(static_cast<float>(rng.Uniform()));
      AddLabels(truth, {rng.Below(labels)});
    }
    TopK direct{k, std::vector<uint32_t>(kRows * k), std::vector<float>(kRows * k)};
    std::string printed;
    for (uint32_t r = 0; r < kRows; ++r) {
      SelectTopK(matrix[r], {}, k, &direct.ids[r * k], &direct.scores[r * k]);
      printed += PredictProbLine(matrix[r], k) + "\n";
    }
    std::istringstream in(printed);
    const TopK parsed = ParseFastTextPredictions(in, kRows, k, labels);
    EXPECT_EQ(parsed.ids, direct.ids);
    EXPECT_EQ(parsed.scores, direct.scores);
    const Metrics a = ComputeMetrics(direct, truth), b = ComputeMetrics(parsed, truth);
    EXPECT_EQ(a.p_at_1, b.p_at_1);
    EXPECT_EQ(a.p_at_3, b.p_at_3);
    EXPECT_EQ(a.p_at_5, b.p_at_5);
    EXPECT_EQ(a.accuracy, b.accuracy);
  }
}

TEST(FastTextText, NormalizesLikeClassificationExample) {
  EXPECT_EQ(NormalizeForFastText("Hello, World! It's \"GREAT\".<BR />Next:line\r\n(ok);\tend?"),
            "hello , world ! it ' s great . next line ( ok ) end ?");
  EXPECT_EQ(NormalizeForFastText("  a   __label__7 b__label__ Caf\xc3\xa9 "),
            "a label__7 b__label__ caf\xc3\xa9");
  EXPECT_EQ(NormalizeForFastText(""), "");
}

std::string SpecOf(const std::string& spec) {
  return FastTextLearner(spec, {}, OneThread()).spec();
}

TEST(FastTextSpec, CanonicalNamesEverySetting) {
  const std::string defaults =
      "fasttext:dim=10,ngrams=2,bucket=10000000,epoch=5,lr=0.1,mincount=1,loss=auto,values=drop,"
      "autotune=0";
  EXPECT_EQ(SpecOf("fasttext"), defaults);
  EXPECT_EQ(SpecOf(defaults), defaults);
  EXPECT_EQ(SpecOf("fasttext:lr=0.5,loss=hs,dim=20,values=repeat,mincount=3,bin=/opt/ft"),
            "fasttext:dim=20,ngrams=2,bucket=10000000,epoch=5,lr=0.5,mincount=3,loss=hs,"
            "values=repeat,autotune=0,bin=/opt/ft");
  // fastText tunes only what it is not given, so an autotuned spec names only the fixed settings.
  EXPECT_EQ(SpecOf("fasttext:autotune=30,dim=50"),
            "fasttext:dim=50,mincount=1,loss=auto,values=drop,autotune=30");
}

TEST(FastTextSpec, RejectsUnknownKeysAndBadValues) {
  for (const char* spec :
       {"fasttext:dims=10", "fasttext:loss=ns", "fasttext:values=keep", "fasttext:dim=0",
        "fasttext:lr=fast", "fasttext:autotune=-1", "blas:dim=10"}) {
    EXPECT_THROW(SpecOf(spec), ConfigError) << spec;
  }
}

TEST(FastTextLearner, MissingBinaryNamesThePackage) {
  FastTextLearner learner("fasttext:bin=/nonexistent/fasttext", {}, OneThread());
  try {
    learner.Train(ReviewData(10, 1), {});
    FAIL() << "trained without a binary";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("install Debian's `fasttext`"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(learner.Predict(ReviewData(10, 1), 5), std::logic_error);
}

TEST(FastTextLearner, FailingBinaryNamesTheCommand) {
  if (FindExecutable("false").empty()) GTEST_SKIP() << "no `false` in PATH";
  FastTextLearner learner("fasttext:bin=false", {}, OneThread());
  try {
    learner.Train(ReviewData(10, 1), {});
    FAIL() << "a failing binary passed";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("exit status 1"), std::string::npos) << what;
    EXPECT_NE(what.find("supervised -input"), std::string::npos) << what;
  }
}

TEST(FastTextLearner, TextEndToEnd) {
  if (!HaveFastText()) GTEST_SKIP() << "Debian's fasttext is not installed";
  const Dataset train = ReviewData(200, 1);
  const Dataset test = WithEmptyFirstRow(ReviewData(100, 2));
  FastTextLearner learner(std::string("fasttext:epoch=20,lr=0.5,") + kSmallModel, {0, 2},
                          OneThread());
  const Progress report = testing::TrainReportingLastEpoch(learner, train);
  EXPECT_EQ(report.samples, 200u * 20u);
  const Metrics m = ComputeMetrics(learner.Predict(test, 5), test);
  EXPECT_GE(*m.accuracy, 0.9);
  EXPECT_EQ(
      learner.spec(),
      "fasttext:dim=10,ngrams=2,bucket=1000,epoch=20,lr=0.5,mincount=1,loss=softmax,autotune=0");
  EXPECT_NE(learner.context().at("fasttext_args").find("-wordNgrams 2"), std::string::npos);
  const TempDir dir(std::filesystem::temp_directory_path(), "fasttext-test-");
  const std::filesystem::path saved = dir.path() / "saved model.bin";
  learner.Save(saved.string());
  EXPECT_GT(learner.model_bytes(), 0u);
  EXPECT_EQ(std::filesystem::file_size(saved), learner.model_bytes());
}

TEST(FastTextLearner, XmcEndToEnd) {
  if (!HaveFastText()) GTEST_SKIP() << "Debian's fasttext is not installed";
  const Dataset train = XmcData(300, 1), test = XmcData(60, 2);
  for (const char* values : {"drop", "repeat"}) {
    FastTextLearner learner(
        std::string("fasttext:epoch=30,lr=0.5,values=") + values + "," + kSmallModel,
        {train.num_features, train.num_labels}, OneThread());
    learner.Train(train, {});
    const Metrics m = ComputeMetrics(learner.Predict(test, 5), test);
    EXPECT_GE(m.p_at_1, 0.9) << values;
    EXPECT_NE(learner.spec().find(std::string("loss=ova,values=") + values), std::string::npos)
        << learner.spec();
  }
}

TEST(FastTextLearner, AutotuneRetrainsWithTheChosenArguments) {
  if (!HaveFastText()) GTEST_SKIP() << "Debian's fasttext is not installed";
  const Dataset train = ReviewData(200, 1), test = ReviewData(100, 2);
  FastTextLearner learner(std::string("fasttext:autotune=1,dim=10,") + kSmallModel, {0, 2},
                          OneThread());
  learner.Train(train, {});
  const std::string tuned = learner.context().at("fasttext_tuned_args");
  EXPECT_NE(tuned.find("-dim 10"), std::string::npos) << tuned;
  EXPECT_NE(tuned.find("-lr "), std::string::npos) << tuned;
  EXPECT_NE(learner.context().at("fasttext_args").find(tuned), std::string::npos);
  EXPECT_GE(*ComputeMetrics(learner.Predict(test, 5), test).accuracy, 0.9);
}

}  // namespace
}  // namespace sparsebench
