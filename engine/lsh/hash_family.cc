#include "engine/lsh/hash_family.h"

#include <cassert>
#include <string>
#include <vector>

#include "engine/api/engine_error.h"
#include "engine/common/vector_ops.h"
#include "engine/lsh/dwta_hash.h"
#include "engine/lsh/srp_hash.h"

namespace sparsebench {

void HashFamily::HashRows(const float* rows, uint32_t count, size_t stride, uint32_t* codes,
                          size_t codes_stride, HashScratch& scratch) const {
  std::vector<uint32_t> row_codes(tables());
  for (uint32_t r = 0; r < count; ++r) {
    Hash(std::span(rows + r * stride, dim()), row_codes, scratch);
    for (uint32_t t = 0; t < tables(); ++t) codes[t * codes_stride + r] = row_codes[t];
  }
}

void HashFamily::HashRows(const uint16_t* rows, uint32_t count, size_t stride, uint32_t* codes,
                          size_t codes_stride, HashScratch& scratch) const {
  std::vector<float>& row = scratch.row;
  row.resize(dim());
  for (uint32_t r = 0; r < count; ++r) {
    WidenBf16(rows + r * stride, dim(), row.data());
    HashRows(row.data(), 1, dim(), codes + r, codes_stride, scratch);
  }
}

void HashFamily::HashProbes(std::span<const float> x, uint32_t probes, std::span<uint32_t> codes,
                            HashScratch& scratch) const {
  assert(probes == 0);  // ResolveLsh gives a family without probes none
  Hash(x, codes, scratch);
}

std::unique_ptr<HashFamily> MakeHashFamily(const HashParams& params) {
  if (params.dim == 0 || params.tables == 0 || params.k == 0) {
    throw ConfigError("hash: dim, k and l must be positive");
  }
  // The largest family stores k x l x dim numbers (SRP's projections); cap that at 2^26.
  if (uint64_t{params.k} * params.tables * params.dim > kMaxHashCoefficients) {
    throw ConfigError("hash: k x l x dim = " + std::to_string(params.k) + " x " +
                      std::to_string(params.tables) + " x " + std::to_string(params.dim) +
                      " is more than " + std::to_string(kMaxHashCoefficients));
  }
  if (params.family == "dwta") return std::make_unique<DwtaHash>(params);
  if (params.family == "srp") return std::make_unique<SrpHash>(params);
  if (params.family == "fastsrp") return std::make_unique<FastSrpHash>(params);
  throw ConfigError("unknown hash family '" + params.family +
                    "' (known: dwta, srp, fastsrp, random)");
}

}  // namespace sparsebench
