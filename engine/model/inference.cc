#include "engine/model/inference.h"

#include <omp.h>

#include <algorithm>

#include "engine/api/engine_error.h"
#include "engine/common/aligned.h"
#include "engine/common/vector_ops.h"
#include "engine/model/exact_scorer.h"

namespace sparsebench {

TopK PredictExact(const Network& net, const Dataset& data, uint32_t k, int threads) {
  constexpr size_t kRowsPerTask = 256;
  const uint32_t h = net.shape.hidden_dim;
  TopK top;
  top.k = k;
  top.ids.resize(data.rows() * k);
  top.scores.resize(data.rows() * k);
  if (data.rows() == 0) return top;
  const ExactScorer scorer(net, threads);
  const auto tasks = static_cast<int64_t>((data.rows() + kRowsPerTask - 1) / kRowsPerTask);
#pragma omp parallel num_threads(threads)
  {
    FloatVector hidden(kRowsPerTask * h);
#pragma omp for schedule(dynamic, 1)
    for (int64_t t = 0; t < tasks; ++t) {
      const size_t first = static_cast<size_t>(t) * kRowsPerTask;
      const size_t rows = std::min(kRowsPerTask, data.rows() - first);
      for (size_t i = 0; i < rows; ++i) {
        const SparseRow row = data.row(first + i);
        net.Hidden(row.features, row.values, hidden.data() + i * h);
      }
      scorer.TopK(hidden.data(), rows, k, &top.ids[first * k], &top.scores[first * k]);
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

}  // namespace sparsebench
