#include "engine/lsh/lsh_config.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "engine/api/engine_error.h"
#include "engine/lsh/hash_family.h"

namespace sparsebench {
namespace {

constexpr double kBucketSize = 16;        // mean neurons per bucket the code length aims at
constexpr double kCandidatesPerPick = 2;  // neurons the buckets return per place they fill
constexpr uint32_t kMinTables = 16, kMaxTables = 64;
constexpr double kReadsPerMeanQuery = 1.5;  // a query reads at most this many mean queries' neurons
constexpr double kReadsPerPick = 8;         // and at most this many per place the tables fill

}  // namespace

// Codes long enough that a bucket holds about kBucketSize neurons (DWTA: log2(bin) bits per
// hash); enough probed buckets that they return about kCandidatesPerPick neurons for each
// place the tables fill, spread over as few tables as reach it (a multiple of 8, 16 to 64)
// with K to 1.5 K probes a table (DWTA; other families have none): each hash swapped for its
// runner-up, then the closest pairs; a bucket capacity of 4 mean buckets; and a query reads at
// most 1.5 times the neurons its buckets hold on average (crowded buckets, as early in
// training, would otherwise make the count cost several times as much) and at most 8 for each
// place the tables fill, or every table's own bucket if that is more (at small active sets the
// floors of 16 tables and k probes read far more than the places need; this keeps the count's
// cost following the active count, not the width). The measurements behind it:
// docs/engine-notes.md.
void ResolveLsh(SelectorParams& p, uint32_t outputs, uint32_t active) {
  HashParams& h = p.hash;
  const bool dwta = h.family == "dwta";
  if (h.bin_size == 0) h.bin_size = 8;
  const double bits_per_hash = dwta ? std::log2(h.bin_size) : 1.0;
  const double wanted_bits = std::log2(std::max(2.0, outputs / kBucketSize));
  if (h.k == 0)
    h.k = static_cast<uint32_t>(std::clamp(std::lround(wanted_bits / bits_per_hash), 1L,
                                           static_cast<long>(32 / bits_per_hash)));
  const auto code_bits = static_cast<uint32_t>(h.k * bits_per_hash);
  if (p.range_bits == 0) p.range_bits = std::min(code_bits, 28u);
  const double mean_bucket =
      outputs / std::ldexp(1.0, static_cast<int>(std::min(code_bits, p.range_bits)));
  const double lookups = kCandidatesPerPick * p.lsh_share * active / std::max(mean_bucket, 1.0);
  // Only DWTA has probes (its runners-up); SRP's tables carry the whole target.
  const uint32_t max_probes = dwta ? MaxProbes(h.k) : 0;
  if (p.probes == SelectorParams::kAutoProbes) {
    const double per_table = std::ceil(lookups / (h.tables == 0 ? kMinTables : h.tables)) - 1;
    p.probes = dwta ? static_cast<uint32_t>(std::clamp<double>(per_table, h.k, h.k + h.k / 2)) : 0;
  }
  if (p.probes > max_probes) {
    throw ConfigError(dwta ? "probes must be at most k + k(k-1)/2 (each hash, then each pair)"
                           : "probes: only hash=dwta has probes (" + h.family + " has none)");
  }
  if (h.tables == 0) {
    h.tables = std::clamp<uint32_t>(
        static_cast<uint32_t>(std::ceil(lookups / (p.probes + 1) / 8) * 8), kMinTables, kMaxTables);
  }
  if (p.capacity == 0)
    p.capacity = static_cast<uint32_t>(std::max(32.0, std::ceil(4 * mean_bucket)));
  if (p.reads == 0) {
    const double buckets = static_cast<double>(h.tables) * (p.probes + 1);
    const double mean_query = buckets * mean_bucket, own_buckets = h.tables * mean_bucket;
    const double per_picks = std::max(kReadsPerPick * std::ceil(p.lsh_share * active), own_buckets);
    p.reads = static_cast<uint32_t>(
        std::clamp(std::ceil(std::min(kReadsPerMeanQuery * mean_query, per_picks)), 1.0, 1e9));
  }
}

}  // namespace sparsebench
