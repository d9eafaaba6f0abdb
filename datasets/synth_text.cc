#include "datasets/synth_text.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <vector>

#include "datasets/synth_writer.h"
#include "datasets/vocabulary.h"
#include "datasets/zipf.h"

namespace sparsebench {
namespace {

// A vocabulary: the common words first, then pseudo-words from `first_index`; Zipf-ranked.
class WordList {
 public:
  WordList(uint64_t first_index, uint32_t pseudo_words, bool with_common, double exponent)
      : zipf_(static_cast<uint32_t>((with_common ? CommonWords().size() : 0) + pseudo_words), exponent) {
    if (with_common) words_.assign(CommonWords().begin(), CommonWords().end());
    for (uint32_t i = 0; i < pseudo_words; ++i) words_.push_back(PseudoWord(first_index + i));
  }
  const std::string& Draw(Rng& rng) const { return words_[zipf_.Sample(rng)]; }
  const std::string& Uniform(Rng& rng) const {
    return words_[rng.Below(static_cast<uint32_t>(words_.size()))];
  }

 private:
  Zipf zipf_;
  std::vector<std::string> words_;
};

void AppendWord(std::string_view word, std::string& out) {
  if (!out.empty()) out.push_back(' ');
  AppendCsvEscaped(word, out);
}

// Ends a sentence now and then, and sometimes starts a new paragraph (an escaped newline).
void MaybeEndSentence(Rng& rng, std::string& text) {
  if (!rng.Bernoulli(1.0 / 12)) return;
  text.push_back(rng.Bernoulli(0.8) ? '.' : '!');
  if (rng.Bernoulli(0.05)) text.append("\\n");
}

class YelpStory {
 public:
  YelpStory()
      : neutral_(0, 30'000, true, 1.0),
        positive_(1'000'000, 80, false, 0.8),
        negative_(1'100'000, 80, false, 0.8) {
    for (auto w : {"good", "great", "amazing", "delicious", "friendly", "excellent", "love",
                   "best", "perfect", "awesome", "fresh", "nice", "tasty", "wonderful",
                   "recommend", "favorite", "clean", "fast", "helpful", "fantastic"}) {
      positive_real_.emplace_back(w);
    }
    for (auto w : {"bad", "terrible", "awful", "rude", "slow", "worst", "horrible", "cold",
                   "dirty", "disappointing", "bland", "overpriced", "gross", "mediocre", "poor",
                   "wrong", "stale", "greasy", "soggy", "boring"}) {
      negative_real_.emplace_back(w);
    }
  }

  uint64_t WriteRow(uint64_t seed, uint64_t row, std::string& out) {
    Rng rng(MixSeed(seed, row));
    const int polarity = static_cast<int>(rng.Below(2));  // 0 negative, 1 positive
    const double clarity = 0.62 + 0.33 * rng.Uniform();
    const auto words = static_cast<uint32_t>(std::max(5.0, LogNormal(rng, 130, 0.7)));
    text_.clear();
    for (uint32_t i = 0; i < words; ++i) {
      if (rng.Bernoulli(0.07)) {
        const int meaning = rng.Bernoulli(clarity) ? polarity : 1 - polarity;
        if (rng.Bernoulli(0.35)) {
          AppendWord(rng.Bernoulli(0.5) ? "not" : "never", text_);
          AppendWord(Sentiment(rng, 1 - meaning), text_);
        } else {
          if (rng.Bernoulli(0.2)) AppendWord("really", text_);
          AppendWord(Sentiment(rng, meaning), text_);
        }
      } else if (rng.Bernoulli(0.01)) {
        AppendWord("not", text_);
      } else if (rng.Bernoulli(0.003)) {
        text_.append(" \"\"");
        AppendCsvEscaped(neutral_.Draw(rng), text_);
        text_.append("\"\"");
      } else {
        AppendWord(neutral_.Draw(rng), text_);
      }
      MaybeEndSentence(rng, text_);
    }
    out.append(polarity == 0 ? "\"1\",\"" : "\"2\",\"");
    out.append(text_);
    out.append("\"\n");
    return words;
  }

 private:
  const std::string& Sentiment(Rng& rng, int polarity) const {
    const bool real = rng.Bernoulli(0.6);
    if (polarity == 1) return real ? positive_real_[rng.Below(20)] : positive_.Draw(rng);
    return real ? negative_real_[rng.Below(20)] : negative_.Draw(rng);
  }

  WordList neutral_, positive_, negative_;
  std::vector<std::string> positive_real_, negative_real_;
  std::string text_;
};

constexpr uint32_t kDbpediaClasses = 14;

class DbpediaStory {
 public:
  DbpediaStory() : general_(0, 20'000, true, 1.0), names_(500'000, 50'000, false, 0.0) {
    for (uint32_t c = 0; c < kDbpediaClasses; ++c) {
      topics_.emplace_back(200'000 + uint64_t{c} * 1200, 1500, false, 1.0);
    }
  }

  uint64_t WriteRow(uint64_t seed, uint64_t row, std::string& out) {
    Rng rng(MixSeed(seed, row));
    const auto label = static_cast<uint32_t>(row % kDbpediaClasses);
    const uint32_t confuser = rng.Bernoulli(0.04) ? rng.Below(kDbpediaClasses) : label;
    const double topical = 0.15 + 0.25 * rng.Uniform();
    title_.clear();
    const uint32_t title_words = 1 + rng.Below(3);
    for (uint32_t i = 0; i < title_words; ++i) AppendWord(Capitalized(names_.Uniform(rng)), title_);
    text_.clear();
    const auto words = static_cast<uint32_t>(std::max(4.0, LogNormal(rng, 45, 0.5)));
    for (uint32_t i = 0; i < words; ++i) {
      if (rng.Bernoulli(topical)) {
        const uint32_t c = rng.Bernoulli(0.5) ? confuser : label;
        AppendWord(topics_[c].Draw(rng), text_);
      } else if (rng.Bernoulli(0.1)) {
        AppendWord(Capitalized(names_.Uniform(rng)), text_);
      } else {
        AppendWord(general_.Draw(rng), text_);
      }
      MaybeEndSentence(rng, text_);
    }
    out.append("\"" + std::to_string(label + 1) + "\",\"");
    out.append(title_);
    out.append("\",\"");
    out.append(text_);
    out.append("\"\n");
    return words + title_words;
  }

 private:
  static std::string Capitalized(std::string word) {
    word[0] = static_cast<char>(word[0] - 32);
    return word;
  }

  WordList general_, names_;
  std::vector<WordList> topics_;
  std::string title_, text_;
};

template <typename Story>
uint64_t WriteCsv(uint64_t rows, uint64_t seed, int threads, const std::string& path) {
  OutputFile out(path);
  std::vector<Story> stories(static_cast<size_t>(std::max(1, threads)));
  const uint64_t words = WriteRowsInOrder(out, rows, threads, [&](uint64_t row, std::string& buf) {
    return stories[static_cast<size_t>(omp_get_thread_num())].WriteRow(seed, row, buf);
  });
  out.Close();
  return words;
}

template <typename Story>
SynthSummary WriteTextPreset(uint64_t train, uint64_t test, uint64_t seed, int threads,
                             const std::string& out_dir) {
  SynthSummary s;
  s.format = "csv";
  s.train_path = out_dir + "/train.csv";
  s.test_path = out_dir + "/test.csv";
  s.train_rows = train;
  s.test_rows = test;
  s.nonzeros = WriteCsv<Story>(train, MixSeed(seed, 1), threads, s.train_path);
  s.nonzeros += WriteCsv<Story>(test, MixSeed(seed, 2), threads, s.test_path);
  return s;
}

uint64_t Scaled(double full, double scale, double minimum) {
  return static_cast<uint64_t>(std::max(minimum, std::round(full * scale)));
}

}  // namespace

SynthSummary WriteSyntheticYelp(double scale, uint64_t seed, int threads, const std::string& out_dir) {
  return WriteTextPreset<YelpStory>(Scaled(560'000, scale, 100), Scaled(38'000, scale, 50), seed,
                                    threads, out_dir);
}

SynthSummary WriteSyntheticDbpedia(double scale, uint64_t seed, int threads,
                                   const std::string& out_dir) {
  return WriteTextPreset<DbpediaStory>(Scaled(560'000, scale, 140), Scaled(70'000, scale, 70), seed,
                                       threads, out_dir);
}

}  // namespace sparsebench
