#pragma once

#include <vector>

#include "engine/lsh/hash_family.h"

namespace sparsebench {

// Densified winner-take-all (Chen & Shrivastava): each hash is the position of the largest
// of `bin_size` randomly chosen coordinates; a bin whose coordinates are all zero (common
// for ReLU outputs) borrows the hash of another bin along a fixed probe sequence.
class DwtaHash : public HashFamily {
 public:
  explicit DwtaHash(const HashParams& params);
  uint32_t tables() const override { return params_.tables; }
  uint32_t dim() const override { return params_.dim; }
  uint32_t code_bits() const override { return params_.k * bits_per_hash_; }
  void Hash(std::span<const float> x, std::span<uint32_t> codes,
            HashScratch& scratch) const override;
  void HashProbes(std::span<const float> x, uint32_t probes, std::span<uint32_t> codes,
                  HashScratch& scratch) const override;
  void HashRows(const float* rows, uint32_t count, size_t stride, uint32_t* codes,
                size_t codes_stride, HashScratch& scratch) const override;
  // bf16 rows in blocks of 32 (dwta_hash_bf16.cc).
  void HashRows(const uint16_t* rows, uint32_t count, size_t stride, uint32_t* codes,
                size_t codes_stride, HashScratch& scratch) const override;
  std::string Describe() const override;

 private:
  HashParams params_;
  uint32_t bits_per_hash_;
  std::vector<uint32_t> positions_;  // bin_size x bins coordinates (slot-major)
  std::vector<uint32_t> probes_;     // per bin, the first bin tried when it is empty

  // A block of rows transposed, so one winner-take-all runs across all of them at once.
  static constexpr uint32_t kBlock = 16;
  // Winner and runner-up of every bin for one vector; false for bins with no nonzero value.
  void Winners(std::span<const float> x, HashScratch& scratch) const;
  void HashBlock(const float* rows, uint32_t count, size_t stride, uint32_t* codes,
                 size_t codes_stride, HashScratch& scratch) const;
  static constexpr uint32_t kBf16Block = 32;
  void HashBf16Block(const uint16_t* rows, uint32_t count, size_t stride, uint32_t* codes,
                     size_t codes_stride, HashScratch& scratch) const;
  // The one-row path, for a row with a bin of zeros only (it needs the densification probes).
  void HashOneRow(std::span<const float> row, uint32_t* codes, size_t codes_stride) const;
};

}  // namespace sparsebench
