#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/common/aligned.h"
#include "engine/model/parameters.h"
#include "engine/train/row_gradients.h"

namespace sparsebench {

// A sparse output layer's forward and backward pass over one batch, row by row instead of
// sample by sample. The samples' active neurons are grouped by row; each active row is read
// once, in ascending order, to score every sample it serves; each sample's softmax
// cross-entropy (1/k on each of its k labels) runs over its scores; a second pass in the same
// order backpropagates into the hidden layer and takes the Adam step. A row that serves two
// samples is fetched once, and rows stream through memory instead of arriving at random.
class OutputBatch {
 public:
  // `parts`: ranges of rows grouped in parallel (RowGradients).
  OutputBatch(uint32_t rows, uint32_t parts);

  uint32_t parts() const { return rows_.parts(); }
  uint32_t PartOf(uint32_t row) const { return rows_.PartOf(row); }

  // `lists` as RowGradients::Group takes them, one contribution per (active row, slot) whose
  // coeff is the row's position a in the slot's active list (as a float: exact below 2^24).
  // Slot s has active_counts[s] active rows, of which positions [0, label_counts[s]) are its
  // labels. `hidden` holds `slots` vectors. Writes each slot's loss into losses[slot].
  void Forward(std::span<const std::vector<Contribution>* const> lists,
               std::span<const uint32_t> active_counts, std::span<const uint32_t> label_counts,
               const Parameters& output, const float* hidden, int threads, float* losses);
  // After Forward: Adam on the active rows, and hidden_grad[slot] = dLoss/d(pre-activation)
  // of each slot's hidden layer (ReLU, so 0 where hidden <= 0).
  void Backward(Parameters& output, const float* hidden, const AdamStep& step, int threads,
                float* hidden_grad);

  size_t unique_rows() const { return rows_.unique_rows(); }

 private:
  // Softmax cross-entropy over one slot's logits, the first `labels` of them its labels'; they
  // become dLoss/dlogit. Returns the loss.
  static float SlotSoftmax(std::span<float> logits, uint32_t labels);

  RowGradients rows_;
  std::vector<uint32_t> slot_begin_;  // slot s's values are [slot_begin_[s], slot_begin_[s + 1])
  std::vector<uint32_t> positions_;   // per grouped entry, into values_
  std::vector<float> values_;         // per (slot, active row): its logit, then dLoss/dlogit
  std::vector<float> coeffs_;         // per grouped entry: dLoss/dlogit
  FloatVector chunk_grads_;
  size_t slots_ = 0;
};

}  // namespace sparsebench
