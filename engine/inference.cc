#include "engine/inference.h"

#include <cblas.h>
#include <omp.h>

#include <algorithm>

#include "engine/aligned.h"
#include "engine/vector_ops.h"

namespace sparsebench {
namespace {

// Rows per sgemm block: the scores of a block (block x outputs floats) stay under ~64 MiB.
size_t BlockRows(uint32_t outputs) {
  return std::clamp<size_t>((size_t{16} << 20) / std::max<uint32_t>(outputs, 1), 8, 1024);
}

}  // namespace

TopK PredictExact(const Network& net, const Dataset& data, uint32_t k, int threads) {
  const uint32_t h = net.shape.hidden_dim, outputs = net.shape.output_dim;
  TopK top;
  top.k = k;
  top.ids.resize(data.rows() * k);
  top.scores.resize(data.rows() * k);
  const size_t block = BlockRows(outputs);
  FloatVector hidden(block * h), scores(block * outputs);
  openblas_set_num_threads(threads);
  for (size_t first = 0; first < data.rows(); first += block) {
    const auto rows = static_cast<int64_t>(std::min(block, data.rows() - first));
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < rows; ++i) {
      const SparseRow row = data.row(first + static_cast<size_t>(i));
      net.Hidden(row.features, row.values, hidden.data() + static_cast<size_t>(i) * h);
      std::copy(net.output.bias.begin(), net.output.bias.end(), scores.begin() + i * outputs);
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows),
                static_cast<int>(outputs), static_cast<int>(h), 1.0f, hidden.data(),
                static_cast<int>(h), net.output.w.data(), static_cast<int>(h), 1.0f, scores.data(),
                static_cast<int>(outputs));
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < rows; ++i) {
      const size_t r = first + static_cast<size_t>(i);
      SelectTopK(std::span<const float>(scores.data() + i * outputs, outputs), {}, k,
                 &top.ids[r * k], &top.scores[r * k]);
    }
  }
  return top;
}

TopK PredictSparse(const Network& net, const NeuronSelector& selector, uint32_t active_target,
                   const Dataset& data, uint32_t k, int threads) {
  TopK top;
  top.k = k;
  top.ids.resize(data.rows() * k);
  top.scores.resize(data.rows() * k);
  const auto rows = static_cast<int64_t>(data.rows());
#pragma omp parallel num_threads(threads)
  {
    FloatVector hidden(net.shape.hidden_dim);
    std::vector<float> logits;
    std::vector<uint32_t> active;
    SelectorScratch scratch;
#pragma omp for schedule(dynamic, 64)
    for (int64_t i = 0; i < rows; ++i) {
      Rng rng(MixSeed(0x1f, static_cast<uint64_t>(i)));
      const SparseRow row = data.row(static_cast<size_t>(i));
      net.Hidden(row.features, row.values, hidden.data());
      selector.Select(std::span<const float>(hidden.data(), hidden.size()), {}, active_target,
                      scratch, rng, active);
      logits.resize(active.size());
      for (size_t a = 0; a < active.size(); ++a) logits[a] = net.Logit(active[a], hidden.data());
      SelectTopK(logits, active, k, &top.ids[static_cast<size_t>(i) * k],
                 &top.scores[static_cast<size_t>(i) * k]);
    }
  }
  return top;
}

void PredictOne(const Network& net, const SparseRow& row, uint32_t k, std::vector<float>& scratch,
                uint32_t* ids, float* scores) {
  const uint32_t h = net.shape.hidden_dim, outputs = net.shape.output_dim;
  scratch.resize(size_t{h} + outputs);
  float* hidden = scratch.data();
  float* logits = scratch.data() + h;
  net.Hidden(row.features, row.values, hidden);
  for (uint32_t o = 0; o < outputs; ++o) logits[o] = net.Logit(o, hidden);
  SelectTopK(std::span<const float>(logits, outputs), {}, k, ids, scores);
}

}  // namespace sparsebench
