#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace sparsebench {

// k and tables have no defaults of their own: ResolveLsh (lsh_config.h) sets them from the
// layer's width, and that is the only configuration the engine trains with.
struct HashParams {
  std::string family = "dwta";  // dwta, srp or fastsrp
  uint32_t dim = 128;           // length of the hashed vectors
  uint32_t k = 0;               // hashes per table
  uint32_t tables = 0;          // L
  uint32_t bin_size = 8;        // DWTA: coordinates per winner-take-all bin (power of two)
  uint64_t seed = 1;
};

// Per-thread buffers a hash family may use, so hashing allocates nothing in the hot loop.
struct HashScratch {
  std::vector<float> floats;
  std::vector<uint32_t> ints;
  std::vector<const float*> columns;
  std::vector<float> row;        // one bf16 row widened
  std::vector<int16_t> keys;     // DWTA: a transposed block of bf16 rows as ordered keys
  std::vector<int16_t> winners;  // DWTA: that block's winners
};

// Probes a table of k hashes offers: each hash swapped alone, then each pair swapped.
constexpr uint32_t MaxProbes(uint32_t k) { return k + k * (k - 1) / 2; }

// Locality-sensitive hash: maps a dense vector to one code per table. Codes are the K
// concatenated hashes of a table; LshTables folds a code longer than its range by a hash.
class HashFamily {
 public:
  virtual ~HashFamily() = default;
  virtual uint32_t tables() const = 0;
  virtual uint32_t dim() const = 0;
  // Bits in one table's code.
  virtual uint32_t code_bits() const = 0;
  // codes.size() == tables()
  virtual void Hash(std::span<const float> x, std::span<uint32_t> codes,
                    HashScratch& scratch) const = 0;
  // Hash, then for each table up to `probes` more codes of nearby buckets, most likely first
  // (multi-probe LSH): codes[t * (probes + 1) + p], p = 0 the table's own code. At most
  // MaxProbes(k) probes; a family without probes (the default) takes none.
  virtual void HashProbes(std::span<const float> x, uint32_t probes, std::span<uint32_t> codes,
                          HashScratch& scratch) const;
  // Hashes `count` rows of dim() floats, `stride` floats apart, starting at `rows`: row r's
  // code in table t goes to codes[t * codes_stride + r]. The same codes as Hash row by row;
  // families may override it with a faster pass over blocks of rows.
  virtual void HashRows(const float* rows, uint32_t count, size_t stride, uint32_t* codes,
                        size_t codes_stride, HashScratch& scratch) const;
  // The same for bf16 rows (the upper halves of floats): the codes of their float values.
  virtual void HashRows(const uint16_t* rows, uint32_t count, size_t stride, uint32_t* codes,
                        size_t codes_stride, HashScratch& scratch) const;
  virtual std::string Describe() const = 0;
};

// The most k x l x dim a family may have (SRP stores that many floats: 256 MiB).
inline constexpr uint64_t kMaxHashCoefficients = uint64_t{1} << 26;

// Builds the family named by params.family; ConfigError for unknown names or bad sizes.
std::unique_ptr<HashFamily> MakeHashFamily(const HashParams& params);

}  // namespace sparsebench
