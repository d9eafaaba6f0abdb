#include "engine/lsh/sparse_inference.h"

#include <omp.h>

#include "engine/common/aligned.h"

namespace sparsebench {

namespace {

// Calls visit(i, hidden, active) for every row with the neurons the selector returns for it.
template <typename Visit>
void ForEachSelection(const Network& net, const NeuronSelector& selector, uint32_t active_target,
                      const Dataset& data, int threads, bool inference, Visit&& visit) {
  const auto rows = static_cast<int64_t>(data.rows());
#pragma omp parallel num_threads(threads)
  {
    FloatVector hidden(net.shape.hidden_dim);
    std::vector<uint32_t> active;
    SelectorScratch scratch;
    scratch.inference = inference;
#pragma omp for schedule(dynamic, 64)
    for (int64_t i = 0; i < rows; ++i) {
      Rng rng(MixSeed(0x1f, static_cast<uint64_t>(i)));
      const SparseRow row = data.row(static_cast<size_t>(i));
      net.Hidden(row.features, row.values, hidden.data());
      selector.Select(std::span<const float>(hidden.data(), hidden.size()), {}, active_target,
                      scratch, rng, active);
      visit(static_cast<size_t>(i), hidden.data(), active);
    }
  }
}

}  // namespace

TopK PredictSparse(const Network& net, const NeuronSelector& selector, uint32_t active_target,
                   const Dataset& data, uint32_t k, int threads) {
  TopK top;
  top.k = k;
  top.ids.resize(data.rows() * k);
  top.scores.resize(data.rows() * k);
  ForEachSelection(net, selector, active_target, data, threads, /*inference=*/true,
                   [&](size_t i, const float* hidden, const std::vector<uint32_t>& active) {
                     thread_local std::vector<float> logits;
                     logits.resize(active.size());
                     for (size_t a = 0; a < active.size(); ++a)
                       logits[a] = net.Logit(active[a], hidden);
                     SelectTopK(logits, active, k, &top.ids[i * k], &top.scores[i * k]);
                   });
  return top;
}

std::vector<std::vector<uint32_t>> SelectActive(const Network& net, const NeuronSelector& selector,
                                                uint32_t active_target, const Dataset& data,
                                                int threads) {
  std::vector<std::vector<uint32_t>> sets(data.rows());
  ForEachSelection(
      net, selector, active_target, data, threads, /*inference=*/false,
      [&](size_t i, const float*, const std::vector<uint32_t>& active) { sets[i] = active; });
  return sets;
}

}  // namespace sparsebench
