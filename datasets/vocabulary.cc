#include "datasets/vocabulary.h"

namespace sparsebench {

std::string PseudoWord(uint64_t index) {
  static constexpr std::string_view kOnsets = "bdfgklmnprstvz";
  static constexpr std::string_view kVowels = "aeiou";
  const uint64_t base = kOnsets.size() * kVowels.size();
  std::string word;
  uint64_t n = index + base;  // at least two syllables
  while (n > 0) {
    const uint64_t syllable = n % base;
    word.push_back(kOnsets[syllable / kVowels.size()]);
    word.push_back(kVowels[syllable % kVowels.size()]);
    n /= base;
  }
  return word;
}

void AppendCsvEscaped(std::string_view text, std::string& out) {
  for (char c : text) {
    if (c == '"') {
      out.append("\"\"");
    } else if (c == '\n') {
      out.append("\\n");
    } else {
      out.push_back(c);
    }
  }
}

const std::vector<std::string_view>& CommonWords() {
  static const std::vector<std::string_view> kWords = {
      "the", "and", "i", "a", "to", "was", "it", "of", "for", "is", "in", "my", "this", "that",
      "we", "they", "with", "but", "you", "on", "had", "were", "have", "so", "at", "be", "there",
      "our", "food", "place", "are", "me", "all", "as", "just", "if", "time", "one", "out", "when",
      "here", "get", "like", "go", "back", "would", "from", "their", "an", "up", "service", "or",
      "about", "what", "which", "some", "can", "been", "will", "more", "also", "only", "came",
      "order", "us", "he", "she", "there's", "it's", "i've", "after", "then", "got", "did", "by"};
  return kWords;
}

}  // namespace sparsebench
