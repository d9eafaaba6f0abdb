#pragma once

#include <cstddef>
#include <string_view>

namespace sparsebench {

// Offset of the first byte that is not part of well-formed UTF-8 (no overlong forms,
// surrogates or code points above U+10FFFF), or npos when the text is valid.
size_t FindInvalidUtf8(std::string_view text);

}  // namespace sparsebench
