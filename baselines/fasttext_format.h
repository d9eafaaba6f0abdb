#pragma once

#include <cstdint>
#include <filesystem>
#include <istream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/dataset.h"
#include "datasets/metrics.h"

namespace sparsebench {

// Text prepared the way fastText's classification-example.sh prepares Yelp and DBPedia:
// lowercase ASCII, spaces around . , ( ) ! ? and ', " and <br /> dropped, ; : and line breaks
// as spaces, one space between tokens. A token that would read as a label ("__label__x")
// loses its leading underscores.
std::string NormalizeForFastText(std::string_view text);

struct FastTextRows {
  bool labels = true;          // "__label__<id>" per label first
  bool text = true;            // normalized text, else "f<feature id>" tokens
  bool repeat_values = false;  // a feature repeated round(value / row's smallest value), <= 10
};

// One line per row, in the order given; a row without tokens is an empty line, for which
// fastText still predicts (from its end-of-line token), so predictions stay aligned.
void WriteFastTextRows(const Dataset& data, std::span<const uint32_t> rows, FastTextRows format,
                       const std::filesystem::path& file);

// Reads `rows` lines of `fasttext predict-prob` output ("__label__3 0.91 __label__0 0.05 ...")
// into a TopK, best first, padding short lines with id UINT32_MAX and score -inf. Throws
// std::runtime_error on a malformed line, a label id >= num_labels, more than k pairs on a
// line, or a number of lines other than `rows`.
TopK ParseFastTextPredictions(std::istream& in, size_t rows, uint32_t k, uint32_t num_labels);

// The arguments an autotuned model was trained with, as command-line flags, from
// `fasttext dump model.bin args` output ("key value" lines: dim, ws, epoch, minCount, neg,
// wordNgrams, loss, model, bucket, minn, maxn, lrUpdateRate, t; no lr) and the autotune run's
// -verbose 3 stdout, whose closing "Best selected args" block holds the chosen "lr = 0.1".
std::vector<std::string> ReadTunedArgs(const std::filesystem::path& dump,
                                       const std::filesystem::path& autotune_log);

}  // namespace sparsebench
