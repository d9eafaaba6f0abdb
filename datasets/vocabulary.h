#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sparsebench {

// Pronounceable, distinct pseudo-words: word i spells i in base-36 syllables, so any range
// of indices gives distinct words.
std::string PseudoWord(uint64_t index);

// Appends `word` to a Zhang CSV field body: '"' doubled, newlines as the two characters \n.
void AppendCsvEscaped(std::string_view text, std::string& out);

// English function words, most frequent first; they head every synthetic vocabulary.
const std::vector<std::string_view>& CommonWords();

}  // namespace sparsebench
