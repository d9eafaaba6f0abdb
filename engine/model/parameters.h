#pragma once

#include <cmath>
#include <cstdint>

#include "engine/common/aligned.h"
#include "engine/common/vector_ops.h"

namespace sparsebench {

using Bf16Vector = std::vector<uint16_t, AlignedAllocator<uint16_t>>;

// How a layer keeps its weights and their moments; the parameters are allocated in that form
// from the start, so a wide layer never touches fp32 arrays it would convert and drop.
struct Storage {
  bool bf16_weights = false;
  bool bf16_moments = false;
};

// A weight matrix stored as `rows` rows of `dim` floats, a bias vector, and Adam's first and
// second moments for both. The input layer has one row per input feature and a bias per
// hidden unit; the output layer one row and one bias per output neuron. The weights' moments
// are fp32 (m, v) or, to halve the bytes an update moves, bf16 (m16, v16; rounded to nearest).
// The weights themselves are fp32 (w) or bf16 (w16, stochastically rounded by each update);
// exactly one of w and w16 is in use.
struct Parameters {
  uint32_t rows = 0;
  uint32_t dim = 0;
  FloatVector w, m, v;
  Bf16Vector w16, m16, v16;
  FloatVector bias, bias_m, bias_v;

  Parameters() = default;
  // Zero weights in `storage`'s form; the moments come with Initialize or ResetOptimizer.
  Parameters(uint32_t rows, uint32_t dim, size_t bias_size, Storage storage = {});
  const float* row(uint32_t r) const { return w.data() + size_t{r} * dim; }
  float* row(uint32_t r) { return w.data() + size_t{r} * dim; }
  const uint16_t* row16(uint32_t r) const { return w16.data() + size_t{r} * dim; }
  // Row r as fp32, whichever the store.
  void CopyRow(uint32_t r, float* out) const;
  size_t bytes() const;
  // Zero moments (sized to the weights, in the storage's form), e.g. after loading weights
  // from a file.
  void ResetOptimizer();
  // Keeps the weights' moments in bf16 from now on (zeroed).
  void UseBf16Moments();
  bool bf16_moments() const { return bf16_moments_; }
  // Keeps the weights in bf16 from now on (rounded to nearest; needs bf16 moments), and back.
  void UseBf16Weights();
  void UseFp32Weights();
  bool bf16_weights() const { return !w16.empty(); }
  // Glorot-uniform weights from a seed (bf16 weights: each draw rounded to nearest), zero
  // biases and moments.
  void Initialize(uint64_t seed, double fan_in, double fan_out);

 private:
  bool bf16_moments_ = false;
};

struct AdamConfig {
  float lr = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float epsilon = 1e-8f;
};

// Adam with bias correction, in PyTorch's form, for a row of `n` weights; `step` >= 1:
// w -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + epsilon).
struct AdamStep {
  float step_size;
  float inv_sqrt_correction2;
  float beta1, beta2, epsilon;
  uint32_t noise_seed;  // of this step's stochastic rounding
  AdamStep(const AdamConfig& config, uint64_t step);
  void Apply(const float* grad, float* w, float* m, float* v, size_t n) const;
  // One weight (a bias): the same arithmetic as Apply, inline.
  void ApplyOne(float grad, float& w, float& m, float& v) const {
    m = beta1 * m + (1.0f - beta1) * grad;
    v = beta2 * v + (1.0f - beta2) * grad * grad;
    w -= step_size * m / (std::sqrt(v) * inv_sqrt_correction2 + epsilon);
  }
  void Apply(const float* grad, float* w, uint16_t* m, uint16_t* v, size_t n) const;
  // bf16 weights: each new weight rounds up with probability equal to its distance from the
  // bf16 below, so updates smaller than a bf16 step still move it on average. `noise` seeds
  // the rounding (one value per row and step).
  void Apply(const float* grad, uint16_t* w, uint16_t* m, uint16_t* v, size_t n,
             uint32_t noise) const;
};

}  // namespace sparsebench
