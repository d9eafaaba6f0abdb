#include "baselines/epoch_loop.h"

#include <algorithm>
#include <vector>

#include "datasets/random.h"

namespace sparsebench {

bool RunEpoch(const Dataset& data, uint64_t seed, uint64_t epoch, uint32_t batch,
              const PausePlan& plan, double epoch_offset,
              const std::function<double(std::span<const uint32_t>)>& train_batch,
              const std::function<std::map<std::string, double>()>& details) {
  const std::vector<uint32_t> order = SeededPermutation(data.rows(), MixSeed(seed, epoch));
  const std::vector<RowRange> batches = Batches(order.size(), batch);
  const uint64_t every = plan.per_epoch == 0 ? 0 : std::max<uint64_t>(1, batches.size() / plan.per_epoch);
  std::vector<uint32_t> rows;
  Progress progress;
  double loss = 0, epoch_loss = 0;
  uint64_t since = 0, done = 0;
  for (const RowRange& range : batches) {
    rows.clear();
    for (size_t i = range.begin; i < range.end; ++i) {
      if (!data.labels(order[i]).empty()) rows.push_back(order[i]);
    }
    if (!rows.empty()) loss += train_batch(rows);
    progress.samples += rows.size();
    since += rows.size();
    if (++done < batches.size() && every != 0 && done % every == 0) {
      progress.epoch = epoch_offset + static_cast<double>(done) / static_cast<double>(batches.size());
      progress.mean_loss = since == 0 ? NAN : loss / static_cast<double>(since);
      epoch_loss += loss;
      loss = 0;
      since = 0;
      if (!plan(progress)) return false;
    }
  }
  epoch_loss += loss;
  progress.epoch = epoch_offset + 1;
  progress.mean_loss = progress.samples == 0 ? NAN : epoch_loss / static_cast<double>(progress.samples);
  progress.epoch_end = true;
  if (details) progress.details = details();
  return plan(progress);
}

}  // namespace sparsebench
