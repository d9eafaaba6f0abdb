#include "engine/model/exact_scorer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <utility>

#include "datasets/metrics.h"

#if defined(__AVX512BF16__) && defined(__AVX512F__)
#include <immintrin.h>
#define SPARSEBENCH_BF16_KERNEL 1
#endif

namespace sparsebench {
namespace {

constexpr uint32_t kPanel = 32;     // outputs scored together
constexpr uint32_t kTileRows = 8;   // rows scored together
constexpr size_t kBlockRows = 256;  // rows whose activations stay in L2 while every panel passes

// One tile: acc[r * kPanel + j] = activations of row r . weights of output j of the panel.
#ifdef SPARSEBENCH_BF16_KERNEL
// a: per pair of coordinates, 8 rows' bf16 pairs; w: per pair, 32 outputs' bf16 pairs.
void Tile(const uint32_t* a, const uint16_t* w, uint32_t pairs, float* acc) {
  __m512 sum[2 * kTileRows];
  for (auto& s : sum) s = _mm512_setzero_ps();
  for (uint32_t p = 0; p < pairs; ++p) {
    const auto w0 = (__m512bh)_mm512_loadu_si512(w + size_t{p} * 2 * kPanel);
    const auto w1 = (__m512bh)_mm512_loadu_si512(w + size_t{p} * 2 * kPanel + kPanel);
    for (uint32_t r = 0; r < kTileRows; ++r) {
      const auto x = (__m512bh)_mm512_set1_epi32(static_cast<int>(a[p * kTileRows + r]));
      sum[2 * r] = _mm512_dpbf16_ps(sum[2 * r], x, w0);
      sum[2 * r + 1] = _mm512_dpbf16_ps(sum[2 * r + 1], x, w1);
    }
  }
  for (uint32_t i = 0; i < 2 * kTileRows; ++i) _mm512_storeu_ps(acc + i * 16, sum[i]);
}
#else
using Vec = float __attribute__((vector_size(64)));  // the compiler maps it to the target's SIMD
// a: per coordinate, 8 rows' values; w: per coordinate, 32 outputs' weights.
void Tile(const float* a, const float* w, uint32_t dim, float* acc) {
  Vec sum[2 * kTileRows] = {};
  for (uint32_t c = 0; c < dim; ++c) {
    Vec w0, w1;
    std::memcpy(&w0, w + size_t{c} * kPanel, sizeof w0);
    std::memcpy(&w1, w + size_t{c} * kPanel + 16, sizeof w1);
    for (uint32_t r = 0; r < kTileRows; ++r) {
      const float x = a[c * kTileRows + r];
      sum[2 * r] += w0 * x;
      sum[2 * r + 1] += w1 * x;
    }
  }
  std::memcpy(acc, sum, sizeof sum);
}
#endif

}  // namespace

// What a row keeps while every output passes: the k largest lower bounds seen (ascending,
// so the threshold is the first once there are k) and the outputs above the threshold.
struct ExactScorer::Row {
  float norm = 0;
  float threshold = -INFINITY;
  std::vector<float> lower;
  std::vector<std::pair<uint32_t, float>> candidates;  // id, upper bound

  void Offer(uint32_t id, float lo, float hi, uint32_t k) {
    if (hi < threshold) return;
    if (lower.size() < k || lo > lower.front()) {
      if (lower.size() == k) lower.erase(lower.begin());
      lower.insert(std::upper_bound(lower.begin(), lower.end(), lo), lo);
      if (lower.size() == k) threshold = lower.front();
    }
    candidates.emplace_back(id, hi);
    if (candidates.size() > 1024) Compact();
  }
  void Compact() {
    std::erase_if(candidates, [&](const auto& c) { return c.second < threshold; });
  }
};

bool ExactScorer::UsesBf16() {
#ifdef SPARSEBENCH_BF16_KERNEL
  return true;
#else
  return false;
#endif
}

ExactScorer::ExactScorer(const Network& net, int threads) : net_(net) {
  const uint32_t h = net.shape.hidden_dim, outputs = net.shape.output_dim;
  dim_ = h + (h & 1);
  panels_ = (outputs + kPanel - 1) / kPanel;
  const size_t padded = size_t{panels_} * kPanel;
  // bf16 rounds each factor by at most 2^-8 relative, fp32 sums in another order by at most
  // dim * 2^-24 of the sum of |products|; both bounded by c (||h|| ||w_j|| + |b_j|).
  c_ = UsesBf16() ? 1.03f * std::ldexp(1.0f, -7) : std::ldexp(1.0f, -14);
  bias_.assign(padded, -INFINITY);
  norm_bound_.assign(padded, 0.0f);
  bias_bound_.assign(padded, 0.0f);
  if (UsesBf16())
    bf16_.assign(padded * dim_, 0);
  else
    f32_.assign(padded * dim_, 0.0f);
  const auto panels = static_cast<int64_t>(panels_);
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> row(h);
#pragma omp for schedule(static)
    for (int64_t p = 0; p < panels; ++p) {
      for (uint32_t j = 0; j < kPanel; ++j) {
        const size_t o = static_cast<size_t>(p) * kPanel + j;
        if (o >= outputs) break;
        net.output.CopyRow(static_cast<uint32_t>(o), row.data());
        const float* w = row.data();
        double norm = 0;
        for (uint32_t c = 0; c < h; ++c) norm += double{w[c]} * w[c];
        bias_[o] = net.output.bias[o];
        norm_bound_[o] = c_ * static_cast<float>(std::sqrt(norm));
        bias_bound_[o] = c_ * std::fabs(bias_[o]);
        for (uint32_t c = 0; c < h; ++c) {
          if (UsesBf16())
            bf16_[o / kPanel * kPanel * dim_ + size_t{c / 2} * 2 * kPanel + 2 * j + c % 2] =
                ToBf16(w[c]);
          else
            f32_[o / kPanel * kPanel * dim_ + size_t{c} * kPanel + j] = w[c];
        }
      }
    }
  }
}

void ExactScorer::TopK(const float* hidden, size_t rows, uint32_t k, uint32_t* ids,
                       float* scores) const {
  const uint32_t h = net_.shape.hidden_dim;
  std::vector<Row> state;
  for (size_t first = 0; first < rows; first += kBlockRows) {
    const size_t n = std::min(kBlockRows, rows - first);
    ScoreBlock(hidden + first * h, n, k, state);
    for (size_t r = 0; r < n; ++r)
      Finish(hidden + (first + r) * h, state[r], k, ids + (first + r) * k,
             scores + (first + r) * k);
  }
}

void ExactScorer::ScoreBlock(const float* hidden, size_t rows, uint32_t k,
                             std::vector<Row>& state) const {
  const uint32_t h = net_.shape.hidden_dim;
  const size_t groups = (rows + kTileRows - 1) / kTileRows;
  state.assign(rows, Row{});
  for (size_t r = 0; r < rows; ++r) {
    double norm = 0;
    for (uint32_t c = 0; c < h; ++c) norm += double{hidden[r * h + c]} * hidden[r * h + c];
    state[r].norm = static_cast<float>(std::sqrt(norm));
  }
  // The block's activations, packed per tile the way the kernel reads them (padding rows 0).
#ifdef SPARSEBENCH_BF16_KERNEL
  const uint32_t pairs = dim_ / 2;
  std::vector<uint32_t> packed(groups * pairs * kTileRows, 0);
  for (size_t r = 0; r < rows; ++r) {
    for (uint32_t p = 0; p < pairs; ++p) {
      const float lo = hidden[r * h + 2 * p], hi = 2 * p + 1 < h ? hidden[r * h + 2 * p + 1] : 0.0f;
      packed[(r / kTileRows * pairs + p) * kTileRows + r % kTileRows] =
          ToBf16(lo) | uint32_t{ToBf16(hi)} << 16;
    }
  }
  const size_t tile_stride = size_t{pairs} * kTileRows, panel_stride = size_t{kPanel} * dim_;
  const auto* weights = bf16_.data();
  const uint32_t depth = pairs;
#else
  std::vector<float> packed(groups * dim_ * kTileRows, 0.0f);
  for (size_t r = 0; r < rows; ++r) {
    for (uint32_t c = 0; c < h; ++c)
      packed[(r / kTileRows * dim_ + c) * kTileRows + r % kTileRows] = hidden[r * h + c];
  }
  const size_t tile_stride = size_t{dim_} * kTileRows, panel_stride = size_t{kPanel} * dim_;
  const auto* weights = f32_.data();
  const uint32_t depth = dim_;
#endif
  alignas(64) float acc[kTileRows * kPanel];
  for (uint32_t p = 0; p < panels_; ++p) {
    const float* bias = bias_.data() + size_t{p} * kPanel;
    const float* nb = norm_bound_.data() + size_t{p} * kPanel;
    const float* bb = bias_bound_.data() + size_t{p} * kPanel;
    for (size_t g = 0; g < groups; ++g) {
      Tile(packed.data() + g * tile_stride, weights + p * panel_stride, depth, acc);
      for (uint32_t i = 0; i < kTileRows && g * kTileRows + i < rows; ++i) {
        Row& row = state[g * kTileRows + i];
        const float* s = acc + i * kPanel;
        const float t = row.threshold, hn = row.norm;
        int any = 0;
#pragma omp simd reduction(| : any)
        for (uint32_t j = 0; j < kPanel; ++j) any |= s[j] + bias[j] + hn * nb[j] + bb[j] >= t;
        if (!any) continue;
        const uint32_t outputs = std::min<uint32_t>(kPanel, net_.shape.output_dim - p * kPanel);
        for (uint32_t j = 0; j < outputs; ++j) {
          const float score = s[j] + bias[j], eps = hn * nb[j] + bb[j];
          if (score + eps >= row.threshold) row.Offer(p * kPanel + j, score - eps, score + eps, k);
        }
      }
    }
  }
}

// The candidates that can still be in the top k, rescored exactly, ties to the lower id.
void ExactScorer::Finish(const float* hidden, Row& row, uint32_t k, uint32_t* ids,
                         float* scores) const {
  row.Compact();
  std::sort(row.candidates.begin(), row.candidates.end());
  std::vector<uint32_t> candidate_ids;
  std::vector<float> exact;
  for (const auto& [id, upper] : row.candidates) {
    candidate_ids.push_back(id);
    exact.push_back(net_.Logit(id, hidden));
  }
  SelectTopK(exact, candidate_ids, k, ids, scores);
}

}  // namespace sparsebench
