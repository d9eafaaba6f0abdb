// Model files: LoadModel, then the text and sparse learners built from what it returned and
// a prediction from each. The first byte chooses whether the checksum is recomputed (odd) so
// that mutations reach the checks behind it, as a crafted file would; the rest is the file.
// fuzz-options: -max_len=16384
#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "datasets/data_error.h"
#include "datasets/line_blocks.h"
#include "engine/api/engine_error.h"
#include "engine/model/model_io.h"
#include "engine/train/sparse_learner.h"
#include "engine/train/text_learner.h"
#include "fuzz/fuzz_util.h"

using namespace sparsebench;

namespace {

// Building a learner hashes every output neuron k x l times; files that ask for much more
// than the seeds do are legitimate but slow, and would only measure that.
bool Cheap(const SavedModel& model) {
  const NetworkShape& s = model.network.shape;
  if (uint64_t{s.output_dim} * s.hidden_dim > (1u << 16)) return false;
  try {
    const SparseConfig c = SparseConfig::Parse(model.spec, DataShape{s.input_dim, s.output_dim});
    return uint64_t{c.selector.hash.tables} * c.selector.hash.k * s.output_dim <= (1u << 16) &&
           uint64_t{c.selector.hash.tables} * c.selector.hash.k * s.hidden_dim <= (1u << 16);
  } catch (const ConfigError&) {
    return true;  // not a sparse spec: the learners reject it, cheaply
  }
}

void Text(const SavedModel& saved) {
  try {
    const TextLearner learner(saved, "fuzz.spb", TrainOptions{});
    FUZZ_REQUIRE(learner.label_names().size() == saved.network.shape.output_dim);
    const uint32_t k = std::min<uint32_t>(3, saved.network.shape.output_dim);
    const TopK top = learner.PredictText("Great food, friendly staff; would not go back", k);
    for (uint32_t i = 0; i < k; ++i) FUZZ_REQUIRE(top.ids[i] == UINT32_MAX || top.ids[i] < saved.network.shape.output_dim);
  } catch (const DataError&) {
  }
}

void Sparse(const SavedModel& saved) {
  try {
    const SparseLearner learner(saved, "fuzz.spb", TrainOptions{});
    const NetworkShape& s = learner.network().shape;
    Dataset rows;
    rows.num_features = s.input_dim;
    rows.feature_ids = {0, s.input_dim - 1};
    rows.values = {1.0f, 0.25f};
    rows.row_offsets = {0, 1, 2};
    rows.label_offsets = {0, 0, 0};
    const TopK one = learner.PredictOne(rows, 1, 5);
    const TopK exact = learner.Predict(rows, 5), sparse = learner.PredictWithSelector(rows, 5);
    for (const TopK* top : {&one, &exact, &sparse}) {
      for (uint32_t id : top->ids) FUZZ_REQUIRE(id == UINT32_MAX || id < s.output_dim);
    }
  } catch (const DataError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string file(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((data[0] & 1) != 0 && file.size() >= sizeof(uint64_t)) {
    const uint64_t checksum = XXH64(file.data(), file.size() - sizeof checksum, 0);
    std::memcpy(file.data() + file.size() - sizeof checksum, &checksum, sizeof checksum);
  }
  SavedModel saved;
  try {
    saved = LoadModel(InputFile("fuzz.spb", file));
  } catch (const DataError&) {
    return 0;
  }
  const NetworkShape& s = saved.network.shape;
  FUZZ_REQUIRE(s.input_dim > 0 && s.hidden_dim > 0 && s.output_dim > 0);
  FUZZ_REQUIRE(saved.network.input.w.size() == uint64_t{s.input_dim} * s.hidden_dim);
  FUZZ_REQUIRE(saved.network.output.w.size() == uint64_t{s.output_dim} * s.hidden_dim);
  if (!Cheap(saved)) return 0;
  Text(saved);
  Sparse(saved);
  return 0;
}
