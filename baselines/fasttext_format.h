#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
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

// One row as fastText reads it, without the line break: its labels ("__label__<id> ") when
// format.labels, then its normalized text or feature tokens.
std::string FastTextLine(const Dataset& data, uint32_t row, FastTextRows format);

// One line per row, in the order given; a row without tokens is an empty line, for which
// fastText still predicts (from its end-of-line token).
void WriteFastTextRows(const Dataset& data, std::span<const uint32_t> rows, FastTextRows format,
                       const std::filesystem::path& file);

// The id in a fastText label "__label__<id>"; nullopt for anything else.
std::optional<uint32_t> ParseFastTextLabel(std::string_view label);

}  // namespace sparsebench
