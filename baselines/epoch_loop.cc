#include "baselines/epoch_loop.h"

#include <chrono>
#include <vector>

#include "datasets/random.h"

namespace sparsebench {

EpochReport RunEpoch(const Dataset& data, uint64_t seed, uint64_t epoch, uint32_t batch,
                     const BatchHook& hook,
                     const std::function<double(std::span<const uint32_t>)>& train_batch) {
  const std::vector<uint32_t> order = SeededPermutation(data.rows(), MixSeed(seed, epoch));
  EpochReport report;
  std::vector<uint32_t> rows;
  uint64_t batches = 0;
  double loss = 0;
  for (const RowRange& range : Batches(order.size(), batch)) {
    rows.clear();
    for (size_t i = range.begin; i < range.end; ++i) {
      if (!data.labels(order[i]).empty()) rows.push_back(order[i]);
    }
    const auto start = std::chrono::steady_clock::now();
    if (!rows.empty()) loss += train_batch(rows);
    report.seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.samples += rows.size();
    ++batches;
    if (hook.interval != 0 && batches % hook.interval == 0 && hook.call)
      hook.call(batches, report.seconds);
  }
  report.mean_loss = report.samples == 0 ? 0.0 : loss / static_cast<double>(report.samples);
  return report;
}

}  // namespace sparsebench
