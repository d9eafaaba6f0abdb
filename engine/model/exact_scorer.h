#pragma once

#include <cstdint>
#include <vector>

#include "engine/common/aligned.h"
#include "engine/model/network.h"

namespace sparsebench {

// Exact top-k over a whole output layer, for blocks of rows: what PredictExact runs.
//
// A blocked kernel scores every output of every row, in bf16 dot products where the CPU has
// them (AVX-512 BF16) and in fp32 elsewhere, and keeps per row only the outputs whose score
// could still be among the k best given the kernel's rounding-error bound: an output j with
// approximate score s is within eps_j = c (||h|| ||w_j|| + |b_j|) of its fp32 score, so
// once k outputs have lower bounds s - eps above t, any output whose upper bound s + eps is
// below t cannot be in the top k. The survivors (a handful per row) are rescored exactly as
// Network::Logit scores them. The result equals scoring every output with Logit, with ties
// going to the lower id; scores never pass through memory, so a 670K-wide layer costs its
// multiply-adds and not 4 bytes per score written and read back.
class ExactScorer {
 public:
  // Packs the output layer (a copy of it, bf16 or fp32), on `threads` threads.
  ExactScorer(const Network& net, int threads);

  // hidden: `rows` activations of hidden_dim floats each; writes k ids and scores per row,
  // best first. Call from any number of threads.
  void TopK(const float* hidden, size_t rows, uint32_t k, uint32_t* ids, float* scores) const;

  static bool UsesBf16();

 private:
  struct Row;
  void ScoreBlock(const float* hidden, size_t rows, uint32_t k, std::vector<Row>& state) const;
  void Finish(const float* hidden, Row& row, uint32_t k, uint32_t* ids, float* scores) const;

  const Network& net_;
  uint32_t dim_ = 0;                            // hidden_dim rounded up to even (bf16 pairs)
  uint32_t panels_ = 0;                         // groups of kPanel outputs; the last one padded
  std::vector<uint16_t> bf16_;                  // per panel: dim/2 pairs x kPanel outputs x 2 bf16
  FloatVector f32_;                             // per panel: dim x kPanel outputs
  FloatVector bias_, norm_bound_, bias_bound_;  // per output (padded): b_j, c ||w_j||, c |b_j|
  float c_ = 0;
};

}  // namespace sparsebench
