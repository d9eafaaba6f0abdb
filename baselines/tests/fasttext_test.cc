#include <fasttext/fasttext.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "baselines/fasttext_autotune.h"
#include "baselines/fasttext_learner.h"
#include "baselines/temp_dir.h"
#include "datasets/metrics.h"
#include "datasets/random.h"
#include "engine/api/engine_error.h"
#include "engine/api/tests/test_util.h"

namespace sparsebench {
namespace {

// Small enough that fastText allocates its n-gram table in milliseconds.
constexpr const char* kSmallModel = "bucket=1000";

TrainOptions Threads(int threads) {
  TrainOptions options;
  options.threads = threads;
  options.seed = 3;
  return options;
}

void AddLabels(Dataset& d, std::initializer_list<uint32_t> labels) {
  d.label_ids.insert(d.label_ids.end(), labels);
  d.label_offsets.push_back(d.label_ids.size());
}

// "good great" rows are label 1, "bad awful" rows label 0, padded with shared filler words.
// sorted: every label-0 row first, as real DBPedia files are sorted by class.
Dataset ReviewData(uint32_t rows, uint64_t seed, bool sorted = false) {
  const std::vector<std::vector<std::string>> words = {{"Bad", "awful", "terrible!", "poor"},
                                                       {"Good", "great", "excellent!", "nice"}};
  const std::vector<std::string> filler = {"the", "food", "service", "was", "place", "staff"};
  Dataset d;
  d.name = "reviews";
  d.num_labels = 2;
  Rng rng(seed);
  for (uint32_t r = 0; r < rows; ++r) {
    const uint32_t label = sorted ? (r < rows / 2 ? 0 : 1) : rng.Below(2);
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

// An empty row must still get its own predictions.
Dataset WithEmptyFirstRow(Dataset data) {
  TextColumn text;
  text.push_back("");
  for (size_t r = 1; r < data.rows(); ++r) text.push_back(data.text.at(r));
  data.text = std::move(text);
  return data;
}

std::vector<Progress> TrainRecordingPauses(Learner& learner, const Dataset& data, uint32_t per_epoch) {
  std::vector<Progress> pauses;
  learner.Train(data, PausePlan{per_epoch, [&](const Progress& p) { pauses.push_back(p); }});
  return pauses;
}

TEST(FastTextText, NormalizesLikeClassificationExample) {
  EXPECT_EQ(NormalizeForFastText("Hello, World! It's \"GREAT\".<BR />Next:line\r\n(ok);\tend?"),
            "hello , world ! it ' s great . next line ( ok ) end ?");
  EXPECT_EQ(NormalizeForFastText("  a   __label__7 b__label__ Caf\xc3\xa9 "),
            "a label__7 b__label__ caf\xc3\xa9");
  EXPECT_EQ(NormalizeForFastText(""), "");
}

TEST(FastTextFormat, LinesAndLabels) {
  const Dataset xmc = XmcData(3, 1);
  EXPECT_EQ(FastTextLine(ReviewData(1, 1), 0, {.labels = false, .text = true}).find("__label__"),
            std::string::npos);
  const std::string line = FastTextLine(xmc, 0, {.labels = true, .text = false});
  EXPECT_EQ(line.rfind("__label__", 0), 0u) << line;
  EXPECT_NE(line.find(" f"), std::string::npos) << line;
  EXPECT_EQ(ParseFastTextLabel("__label__12"), 12u);
  EXPECT_EQ(ParseFastTextLabel("__label__0"), 0u);
  for (const char* bad : {"__label__", "__label__x", "label3", "__label__-1", "__label__3x", "f3"}) {
    EXPECT_FALSE(ParseFastTextLabel(bad).has_value()) << bad;
  }
}

std::string SpecOf(const std::string& spec) { return FastTextLearner(spec, {}, Threads(1)).spec(); }

TEST(FastTextSpec, CanonicalNamesEverySetting) {
  const std::string defaults =
      "fasttext:dim=10,ngrams=2,bucket=10000000,epoch=5,lr=0.1,mincount=1,loss=auto,neg=5,"
      "values=drop,autotune=0";
  EXPECT_EQ(SpecOf("fasttext"), defaults);
  EXPECT_EQ(SpecOf(defaults), defaults);
  EXPECT_EQ(SpecOf("fasttext:lr=0.5,loss=ns,neg=336,dim=20,values=repeat,mincount=3,threads=1"),
            "fasttext:dim=20,ngrams=2,bucket=10000000,epoch=5,lr=0.5,mincount=3,loss=ns,neg=336,"
            "values=repeat,autotune=0,threads=1");
  // fastText tunes only what it is not given, so an autotuned spec names only the fixed settings.
  EXPECT_EQ(SpecOf("fasttext:autotune=30,dim=50"),
            "fasttext:dim=50,mincount=1,loss=auto,neg=5,values=drop,autotune=30");
}

TEST(FastTextSpec, RejectsUnknownKeysAndBadValues) {
  for (const char* spec :
       {"fasttext:dims=10", "fasttext:loss=nce", "fasttext:values=keep", "fasttext:dim=0",
        "fasttext:lr=fast", "fasttext:autotune=-1", "fasttext:autotune=often", "fasttext:neg=0",
        "fasttext:bin=/usr/bin/fasttext", "fasttext:bucket=0", "fasttext:bucket=0,ngrams=2",
        "fasttext:autotune=10,bucket=0", "blas:dim=10"}) {
    EXPECT_THROW(SpecOf(spec), ConfigError) << spec;
  }
}

TEST(FastTextLearner, NothingBeforeTraining) {
  FastTextLearner learner("fasttext", {0, 2}, Threads(1));
  EXPECT_THROW(learner.Predict(ReviewData(10, 1), 5), std::logic_error);
  EXPECT_THROW(learner.PredictOne(ReviewData(10, 1), 0, 5), std::logic_error);
  EXPECT_THROW(learner.Save("/nonexistent/model.bin"), std::logic_error);
  EXPECT_EQ(learner.model_bytes(), 0u);
}

TEST(FastTextLearner, TextEndToEnd) {
  const Dataset train = ReviewData(200, 1);
  const Dataset test = WithEmptyFirstRow(ReviewData(100, 2));
  FastTextLearner learner(std::string("fasttext:epoch=20,lr=0.5,") + kSmallModel, {0, 2}, Threads(1));
  learner.Stage(train);
  const Progress report = testing::TrainReportingLastEpoch(learner, train);
  EXPECT_EQ(report.epoch, 20.0);
  EXPECT_GT(report.mean_loss, 0.0);
  const Metrics m = ComputeMetrics(learner.Predict(test, 5), test);
  EXPECT_GE(*m.accuracy, 0.9);
  EXPECT_EQ(learner.spec(),
            "fasttext:dim=10,ngrams=2,bucket=1000,epoch=20,lr=0.5,mincount=1,loss=softmax,neg=5,"
            "autotune=0");
  EXPECT_EQ(learner.settings().epochs, 20u);
  EXPECT_NE(learner.context().at("fasttext_args").find("-wordNgrams 2"), std::string::npos);
  EXPECT_GT(learner.model_bytes(), 0u);
}

TEST(FastTextLearner, PredictOneIsPredictsRow) {
  const Dataset train = ReviewData(200, 1), test = WithEmptyFirstRow(ReviewData(40, 2));
  FastTextLearner learner(std::string("fasttext:epoch=10,lr=0.5,") + kSmallModel, {0, 2}, Threads(2));
  learner.Train(train, {});
  const TopK all = learner.Predict(test, 5);
  for (size_t r = 0; r < test.rows(); ++r) {
    const TopK one = learner.PredictOne(test, r, 5);
    EXPECT_EQ(std::vector<uint32_t>(one.ids.begin(), one.ids.end()),
              std::vector<uint32_t>(all.ids.begin() + r * 5, all.ids.begin() + r * 5 + 5)) << r;
    EXPECT_EQ(std::vector<float>(one.scores.begin(), one.scores.end()),
              std::vector<float>(all.scores.begin() + r * 5, all.scores.begin() + r * 5 + 5)) << r;
  }
  // Two labels: the rest of the top 5 is padding.
  EXPECT_EQ(all.ids[2], std::numeric_limits<uint32_t>::max());
}

TEST(FastTextLearner, SavesAModelFastTextLoads) {
  const Dataset train = ReviewData(200, 1), test = ReviewData(20, 2);
  FastTextLearner learner(std::string("fasttext:epoch=10,lr=0.5,") + kSmallModel, {0, 2}, Threads(1));
  learner.Train(train, {});
  const TempDir dir(std::filesystem::temp_directory_path(), "fasttext-test-");
  const std::filesystem::path saved = dir.path() / "saved model.bin";
  learner.Save(saved.string());
  const auto size = static_cast<double>(std::filesystem::file_size(saved));
  EXPECT_NEAR(static_cast<double>(learner.model_bytes()), size, 0.1 * size);
  fasttext::FastText loaded;
  loaded.loadModel(saved.string());
  const TopK top = learner.Predict(test, 1);
  for (size_t r = 0; r < test.rows(); ++r) {
    std::istringstream line(FastTextLine(test, static_cast<uint32_t>(r), {.labels = false, .text = true}) + "\n");
    std::vector<std::pair<fasttext::real, std::string>> predictions;
    ASSERT_TRUE(loaded.predictLine(line, predictions, 1, 0.0));
    ASSERT_EQ(predictions.size(), 1u);
    EXPECT_EQ(predictions[0].second, "__label__" + std::to_string(top.ids[r])) << r;
  }
}

TEST(FastTextLearner, XmcEndToEndWithOvaAndNs) {
  const Dataset train = XmcData(300, 1), test = XmcData(60, 2);
  for (const std::string loss : {"loss=auto", "loss=ns,neg=3"}) {
    for (const char* values : {"drop", "repeat"}) {
      FastTextLearner learner("fasttext:epoch=30,lr=0.5,values=" + std::string(values) + "," + loss + "," + kSmallModel,
                              {train.num_features, train.num_labels}, Threads(1));
      learner.Train(train, {});
      const Metrics m = ComputeMetrics(learner.Predict(test, 5), test);
      EXPECT_GE(m.p_at_1, 0.9) << loss << " " << values;
      const std::string resolved = loss == "loss=auto" ? "loss=ova,neg=5" : "loss=ns,neg=3";
      EXPECT_NE(learner.spec().find(resolved + ",values=" + values), std::string::npos) << learner.spec();
    }
  }
}

TEST(FastTextLearner, StagesAShuffledFileInMemoryAndRemovesIt) {
  const Dataset train = ReviewData(400, 1, /*sorted=*/true);
  std::filesystem::path dir;
  {
    FastTextLearner learner(std::string("fasttext:epoch=5,") + kSmallModel, {0, 2}, Threads(1));
    learner.Stage(train);
    dir = learner.context().at("staged_in");
    if (std::filesystem::is_directory("/dev/shm")) {
      EXPECT_EQ(dir.parent_path(), "/dev/shm");
    }
    std::ifstream in(dir / "train.txt");
    uint32_t lines = 0, label1_in_first_half = 0;
    for (std::string line; std::getline(in, line); ++lines) {
      if (lines < 200 && line.starts_with("__label__1 ")) ++label1_in_first_half;
    }
    EXPECT_EQ(lines, 400u);
    // The file's size is stated; in /dev/shm it is memory, which the cell's peak adds.
    const auto facts = learner.context();
    const double mb =
        static_cast<double>(std::filesystem::file_size(dir / "train.txt")) / (1024.0 * 1024.0);
    EXPECT_NEAR(std::stod(facts.at(kStagedMbKey)), mb, 0.051);
    EXPECT_EQ(facts.at(kStagedMemoryMbKey),
              dir.parent_path() == "/dev/shm" ? facts.at(kStagedMbKey) : "0.0");
    EXPECT_GT(label1_in_first_half, 60u);  // sorted input: 0 before shuffling
    EXPECT_LT(label1_in_first_half, 140u);
    learner.Train(train, {});
    EXPECT_EQ(std::vector<std::string>(1, learner.context().at("staged_in")),
              std::vector<std::string>(1, dir.string()));  // Train reads what Stage wrote
  }
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST(FastTextLearner, RemovesWhatAKilledRunLeftStaged) {
  const Dataset train = ReviewData(50, 1);
  FastTextLearner first(std::string("fasttext:epoch=1,") + kSmallModel, {0, 2}, Threads(1));
  first.Stage(train);
  const std::filesystem::path parent =
      std::filesystem::path(first.context().at("staged_in")).parent_path();
  // pid 2^22 + 1 is above Linux's pid_max limit, so no process has it.
  const std::filesystem::path stale = parent / "sparsebench-fasttext-4194305-AbCdEf";
  const std::filesystem::path other = parent / "sparsebench-fasttext-notapid";
  std::filesystem::create_directories(stale);
  std::filesystem::create_directories(other);
  std::ofstream(stale / "train.txt") << "__label__0 x\n";
  FastTextLearner second(std::string("fasttext:epoch=1,") + kSmallModel, {0, 2}, Threads(1));
  second.Stage(train);
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_TRUE(std::filesystem::exists(other));  // not named after a process: left alone
  EXPECT_TRUE(std::filesystem::exists(first.context().at("staged_in")));  // alive: kept
  std::filesystem::remove_all(other);
}

TEST(FastTextLearner, PausesEveryThreadAsPlanned) {
  const Dataset train = ReviewData(2000, 4), test = ReviewData(100, 5);
  for (const uint32_t per_epoch : {0u, 2u, 3u}) {
    FastTextLearner learner(std::string("fasttext:epoch=5,lr=0.5,") + kSmallModel, {0, 2}, Threads(2));
    double accuracy_at_pauses = 0;
    std::vector<Progress> pauses;
    learner.Train(train, PausePlan{per_epoch, [&](const Progress& p) {
                                     pauses.push_back(p);
                                     // The harness evaluates while every training thread waits.
                                     accuracy_at_pauses = *ComputeMetrics(learner.Predict(test, 5), test).accuracy;
                                   }});
    const size_t expected = per_epoch == 0 ? 5 : 5 * per_epoch;
    EXPECT_EQ(pauses.size(), expected) << per_epoch << ": " << learner.context().at("fasttext_pauses");
    uint64_t epoch_samples = 0;
    size_t epoch_ends = 0;
    for (size_t i = 0; i < pauses.size(); ++i) {
      if (i > 0) {
        EXPECT_GE(pauses[i].epoch, pauses[i - 1].epoch) << i;
      }
      if (pauses[i].epoch_end) {
        ++epoch_ends;
        epoch_samples += pauses[i].samples;
      }
    }
    ASSERT_FALSE(pauses.empty());
    EXPECT_EQ(pauses.back().epoch, 5.0);
    EXPECT_TRUE(pauses.back().epoch_end);
    EXPECT_EQ(epoch_ends, 5u);
    EXPECT_EQ(epoch_samples, 2000u * 5);  // what samples_per_second adds up
    EXPECT_GE(accuracy_at_pauses, 0.9);
  }
}

TEST(FastTextLearner, APlanThatSaysStopEndsTrainingAndKeepsTheModel) {
  const Dataset train = ReviewData(2000, 4), test = ReviewData(100, 5);
  FastTextLearner learner(std::string("fasttext:epoch=5,lr=0.5,") + kSmallModel, {0, 2},
                          Threads(2));
  std::vector<Progress> pauses;
  learner.Train(train, PausePlan{2, [&](const Progress& p) { pauses.push_back(p); },
                                 [&] { return pauses.size() == 3; }});
  ASSERT_EQ(pauses.size(), 3u) << learner.context().at("fasttext_pauses");  // of 10 planned
  EXPECT_LT(pauses.back().epoch, 5.0);
  EXPECT_NE(learner.context().at("fasttext_pauses").find("stopped by the plan"), std::string::npos);
  EXPECT_GE(*ComputeMetrics(learner.Predict(test, 5), test).accuracy, 0.9);
}

TEST(FastTextLearner, AnExceptionInAPauseStopsTrainingCleanly) {
  const Dataset train = ReviewData(2000, 4);
  FastTextLearner learner(std::string("fasttext:epoch=5,") + kSmallModel, {0, 2}, Threads(2));
  int calls = 0;
  const PausePlan plan{2, [&](const Progress&) {
                         if (++calls == 2) throw std::runtime_error("evaluation failed");
                       }};
  EXPECT_THROW(
      {
        try {
          learner.Train(train, plan);
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "evaluation failed");
          throw;
        }
      },
      std::runtime_error);
  EXPECT_EQ(calls, 2);
  EXPECT_THROW(learner.Predict(train, 5), std::logic_error);
}

TEST(FastTextLearner, AutotuneSearchesForItsSecondsThenRetrainsOnAllRows) {
  const Dataset train = ReviewData(2000, 1), test = ReviewData(200, 2);
  // The seconds are wall time: on a loaded machine they scale with what one training takes,
  // so that several trials fit; 2 s on an idle one.
  FastTextLearner plain("fasttext:dim=10,bucket=10000", {0, 2}, Threads(2));
  plain.Stage(train);
  auto start = std::chrono::steady_clock::now();
  plain.Train(train, {});
  const double one = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int budget = std::max(2, static_cast<int>(std::ceil(8 * one)));

  FastTextLearner learner("fasttext:autotune=" + std::to_string(budget) + ",dim=10,bucket=10000", {0, 2}, Threads(2));
  learner.Stage(train);
  start = std::chrono::steady_clock::now();
  std::vector<Progress> pauses = TrainRecordingPauses(learner, train, 1);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto context = learner.context();
  const std::string tuned = context.at("fasttext_tuned_args");
  EXPECT_NE(tuned.find("-dim 10"), std::string::npos) << tuned;    // given, so not tuned
  EXPECT_NE(tuned.find("-loss softmax"), std::string::npos) << tuned;
  EXPECT_NE(context.at("fasttext_args").find(tuned), std::string::npos);
  const std::string budget_split = context.at("autotune_budget");
  RecordProperty("autotune_budget", budget_split);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      budget_split, m,
      std::regex(
          R"(^search ([0-9.]+) s of ([0-9.]+) s \(([0-9]+) trials, ([0-9]+) finished, .* final training on all rows ([0-9.]+) s = ([0-9.]+) s$)")))
      << budget_split;
  EXPECT_EQ(std::stod(m[2]), budget);
  EXPECT_EQ(context.at("autotune_finished_trials"), m[4].str());
  EXPECT_GE(std::stoi(m[4]), 2) << budget_split;
  EXPECT_NEAR(std::stod(m[1]) + std::stod(m[5]), std::stod(m[6]), 0.11) << budget_split;
  // The search uses its seconds (no trial starts that the fastest pace says cannot end in
  // time) and stops the trial running at its end within one callback.
  EXPECT_GE(std::stod(m[1]), 0.5 * budget) << budget_split;
  EXPECT_LE(std::stod(m[1]), budget + std::max(0.5, one)) << budget_split;
  // The final training is outside the search's seconds, on the clock, on all rows.
  EXPECT_LE(seconds, std::stod(m[6]) + std::max(0.5, one)) << budget_split;
  ASSERT_FALSE(pauses.empty());
  EXPECT_EQ(pauses.back().epoch, static_cast<double>(learner.settings().epochs));
  EXPECT_GE(*ComputeMetrics(learner.Predict(test, 5), test).accuracy, 0.9);
}

// A trial's projected time is its seconds until 2% of its training is done, then its seconds
// plus the rest at the pace since its first report (setup excluded).
TEST(FastTextAutotune, TrialPaceProjectsTheWholeTrialFromItsPace) {
  TrialPace pace;
  EXPECT_DOUBLE_EQ(pace.Projected(1.0, 0.0), 1.0);    // setup took 1 s
  EXPECT_DOUBLE_EQ(pace.Projected(1.5, 0.01), 1.5);   // pace not known yet
  EXPECT_DOUBLE_EQ(pace.Projected(3.0, 0.1), 21.0);   // 2 s for 10%: 18 s for the other 90%
  EXPECT_DOUBLE_EQ(pace.Projected(21.0, 1.0), 21.0);  // done
}

// The budget text says the search went on past its seconds only when it did so to let
// enough trials finish, not when it ended a moment late with enough finished in time.
TEST(FastTextAutotune, BudgetTextSaysWhenTheSearchWentOnForFinishedTrials) {
  AutotuneSearch s;
  s.duration = 60;
  s.seconds = 60.1;
  s.trials = 9;
  s.finished = 7;
  s.min_finished = 5;
  s.finished_in_time = 7;
  EXPECT_EQ(AutotuneBudgetText(s, 2).find("went on past"), std::string::npos)
      << AutotuneBudgetText(s, 2);
  s.seconds = 90;
  s.finished_in_time = 3;
  EXPECT_NE(AutotuneBudgetText(s, 2).find("went on past its 60.0 s until 5 trials had finished"),
            std::string::npos)
      << AutotuneBudgetText(s, 2);
  s.finished = 4;
  EXPECT_NE(AutotuneBudgetText(s, 2).find("stopped at 4 × its 60.0 s with fewer than 5"),
            std::string::npos)
      << AutotuneBudgetText(s, 2);
}

// autotune=auto searches for 12 times its first trial, so the trials that fit grow with the
// data rather than shrink.
// auto: 12 first trials, and on until five trials have finished (at most 4 × that).
TEST(FastTextLearner, AutotuneAutoSearchesForTwelveFirstTrialsAndFiveFinished) {
  const Dataset train = ReviewData(2000, 1);
  FastTextLearner learner("fasttext:autotune=auto,dim=10,bucket=10000", {0, 2}, Threads(2));
  EXPECT_EQ(learner.spec(),
            "fasttext:dim=10,bucket=10000,mincount=1,loss=auto,neg=5,values=drop,autotune=auto");
  learner.Stage(train);
  learner.Train(train, {});
  const std::string budget_split = learner.context().at("autotune_budget");
  RecordProperty("autotune_budget", budget_split);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      budget_split, m,
      std::regex(R"(^search ([0-9.]+) s of ([0-9.]+) s \(([0-9]+) trials, ([0-9]+) finished)")))
      << budget_split;
  EXPECT_GE(std::stoi(m[4]), 5) << budget_split;
  EXPECT_NE(budget_split.find(" stopped as slower than 4 first trials"), std::string::npos)
      << budget_split;
  EXPECT_EQ(learner.context().at("autotune_finished_trials"), m[4].str());
  // Each trial is logged with its settings and its end; the counts agree with the summary.
  const std::string trials = learner.context().at("autotune_trials");
  RecordProperty("autotune_trials", trials);
  const auto count = [&](const std::string& pattern) {
    const std::regex re(pattern);
    return std::distance(std::sregex_iterator(trials.begin(), trials.end(), re),
                         std::sregex_iterator());
  };
  EXPECT_EQ(count(R"((^|; )[0-9]+\. -epoch [0-9]+ -lr )"), std::stoi(m[3])) << trials;
  EXPECT_EQ(count(R"( s: f1 [0-9.]+)"), std::stoi(m[4])) << trials;
  std::smatch slow;
  ASSERT_TRUE(
      std::regex_search(budget_split, slow, std::regex(R"(([0-9]+) stopped as slower than)")));
  EXPECT_EQ(count(R"( s: stopped: too slow)"), std::stoi(slow[1])) << trials;
  const double searched = std::stod(m[1]), duration = std::stod(m[2]);
  EXPECT_LE(searched, (AutotuneDuration::kMaxExtension + 0.3) * duration) << budget_split;
  if (searched > 1.3 * duration) {
    EXPECT_NE(budget_split.find("went on past its"), std::string::npos) << budget_split;
  }
}

}  // namespace
}  // namespace sparsebench
