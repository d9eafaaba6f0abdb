#pragma once

#include <string>

#include "datasets/dataset.h"

namespace sparsebench {

struct SparseReadOptions {
  bool has_header = true;      // XMC: "N D L" first; libsvm variant: no header
  int threads = 1;
  uint32_t num_features = 0;   // without a header: 0 infers max id + 1; else ids must be below
  uint32_t num_labels = 0;
};

// Extreme Classification Repository format: header "N D L", then one row per line,
// "l1,l2,... f:v f:v ...", ids 0-based. With has_header = false, the multi-label libsvm
// variant. Duplicate feature or label ids within a row are errors. Throws DataError.
// D and L (from the header, or max id + 1) are at most kMaxDimension. A UTF-8 byte-order
// mark at the start is skipped.
Dataset ReadSparseText(const std::string& path, const SparseReadOptions& options);
class InputFile;
Dataset ReadSparseText(const InputFile& file, const SparseReadOptions& options);

}  // namespace sparsebench
