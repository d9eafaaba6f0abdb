#include "engine/inference.h"

#include <cblas.h>
#include <omp.h>

#include <algorithm>

#include "engine/aligned.h"
#include "engine/engine_error.h"
#include "engine/vector_ops.h"

namespace sparsebench {
namespace {

// Rows are scored in blocks of kBlockRows against chunks of output neurons, each chunk's
// scores (block x chunk floats) under ~64 MiB, so OpenBLAS packs each weight chunk once
// per block of many rows rather than once per few rows.
constexpr size_t kBlockRows = 1024;
constexpr size_t kScoreFloats = size_t{16} << 20;

}  // namespace

TopK PredictExact(const Network& net, const Dataset& data, uint32_t k, int threads) {
  const uint32_t h = net.shape.hidden_dim, outputs = net.shape.output_dim;
  TopK top;
  top.k = k;
  top.ids.resize(data.rows() * k);
  top.scores.resize(data.rows() * k);
  const size_t chunk = std::clamp<size_t>(kScoreFloats / kBlockRows, 1, outputs);
  FloatVector hidden(kBlockRows * h), scores(kBlockRows * chunk);
  openblas_set_num_threads(threads);
  for (size_t first = 0; first < data.rows(); first += kBlockRows) {
    const auto rows = static_cast<int64_t>(std::min(kBlockRows, data.rows() - first));
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < rows; ++i) {
      const SparseRow row = data.row(first + static_cast<size_t>(i));
      net.Hidden(row.features, row.values, hidden.data() + static_cast<size_t>(i) * h);
    }
    for (size_t begin = 0; begin < outputs; begin += chunk) {
      const size_t width = std::min(chunk, outputs - begin);
#pragma omp parallel for num_threads(threads) schedule(static)
      for (int64_t i = 0; i < rows; ++i) {
        std::copy_n(net.output.bias.begin() + static_cast<std::ptrdiff_t>(begin), width,
                    scores.begin() + i * static_cast<int64_t>(width));
      }
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows),
                  static_cast<int>(width), static_cast<int>(h), 1.0f, hidden.data(),
                  static_cast<int>(h), net.output.row(static_cast<uint32_t>(begin)), static_cast<int>(h),
                  1.0f, scores.data(), static_cast<int>(width));
#pragma omp parallel for num_threads(threads) schedule(static)
      for (int64_t i = 0; i < rows; ++i) {
        const size_t r = first + static_cast<size_t>(i);
        const std::span<const float> row_scores(scores.data() + i * static_cast<int64_t>(width), width);
        if (begin == 0) {
          SelectTopK(row_scores, {}, k, &top.ids[r * k], &top.scores[r * k]);
        } else {
          MergeTopK(row_scores, static_cast<uint32_t>(begin), k, &top.ids[r * k], &top.scores[r * k]);
        }
      }
    }
  }
  return top;
}

TopK PredictRowExact(const Network& net, const SparseRow& row, uint32_t k) {
  for (uint32_t f : row.features) {
    if (f >= net.shape.input_dim) throw ConfigError("feature id beyond the model's input");
  }
  FloatVector hidden(net.shape.hidden_dim);
  std::vector<float> scores(net.shape.output_dim);
  net.Hidden(row.features, row.values, hidden.data());
  for (uint32_t o = 0; o < net.shape.output_dim; ++o) scores[o] = net.Logit(o, hidden.data());
  TopK top;
  top.k = k;
  top.ids.resize(k);
  top.scores.resize(k);
  SelectTopK(scores, {}, k, top.ids.data(), top.scores.data());
  return top;
}

namespace {

// Calls visit(i, hidden, active) for every row with the neurons the selector returns for it.
template <typename Visit>
void ForEachSelection(const Network& net, const NeuronSelector& selector, uint32_t active_target,
                      const Dataset& data, int threads, Visit&& visit) {
  const auto rows = static_cast<int64_t>(data.rows());
#pragma omp parallel num_threads(threads)
  {
    FloatVector hidden(net.shape.hidden_dim);
    std::vector<uint32_t> active;
    SelectorScratch scratch;
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
  ForEachSelection(net, selector, active_target, data, threads,
                   [&](size_t i, const float* hidden, const std::vector<uint32_t>& active) {
                     thread_local std::vector<float> logits;
                     logits.resize(active.size());
                     for (size_t a = 0; a < active.size(); ++a) logits[a] = net.Logit(active[a], hidden);
                     SelectTopK(logits, active, k, &top.ids[i * k], &top.scores[i * k]);
                   });
  return top;
}

std::vector<std::vector<uint32_t>> SelectActive(const Network& net, const NeuronSelector& selector,
                                                uint32_t active_target, const Dataset& data, int threads) {
  std::vector<std::vector<uint32_t>> sets(data.rows());
  ForEachSelection(net, selector, active_target, data, threads,
                   [&](size_t i, const float*, const std::vector<uint32_t>& active) { sets[i] = active; });
  return sets;
}

}  // namespace sparsebench
