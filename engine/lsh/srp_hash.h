#pragma once

#include <vector>

#include "engine/lsh/hash_family.h"

namespace sparsebench {

// Signed random projections (SimHash): bit = sign(<g, x>) for Gaussian g; two vectors at
// angle theta agree on a bit with probability 1 - theta / pi. K bits per table code.
class SrpHash : public HashFamily {
 public:
  explicit SrpHash(const HashParams& params);
  uint32_t tables() const override { return params_.tables; }
  uint32_t dim() const override { return params_.dim; }
  uint32_t code_bits() const override { return params_.k; }
  void Hash(std::span<const float> x, std::span<uint32_t> codes,
            HashScratch& scratch) const override;
  std::string Describe() const override;

 private:
  HashParams params_;
  std::vector<float> projections_;  // (k * tables) x dim
};

// SRP through randomised Hadamard transforms: sign flips, a fast Walsh-Hadamard transform
// and a coordinate permutation give dim' (dim padded to a power of two) nearly independent
// projections per transform in O(dim' log dim') instead of O(dim'^2).
class FastSrpHash : public HashFamily {
 public:
  explicit FastSrpHash(const HashParams& params);
  uint32_t tables() const override { return params_.tables; }
  uint32_t dim() const override { return params_.dim; }
  uint32_t code_bits() const override { return params_.k; }
  void Hash(std::span<const float> x, std::span<uint32_t> codes,
            HashScratch& scratch) const override;
  std::string Describe() const override;

 private:
  HashParams params_;
  uint32_t padded_;
  uint32_t transforms_;
  std::vector<float> signs_;          // transforms x padded
  std::vector<uint32_t> bit_source_;  // for each of k * tables bits, its transform output index
};

}  // namespace sparsebench
