// Selection quality and cost of LSH settings on a trained model's output layer: for each spec,
// builds the tables from the model's weights (timed), selects for a sample of training rows
// (timed) and measures recall against the exact top 5 and the true labels. The measurements
// behind the LSH settings left auto (engine/README.md, "LSH sized from the width").
//
//   lsh_sweep MODEL TRAIN_FILE ROWS THREADS SPEC...
//   e.g. lsh_sweep model.spb train.txt 1000 2 sparse:k=3,l=16 sparse:k=5,l=168 sparse:hash=srp
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "datasets/metrics.h"
#include "datasets/reader.h"
#include "engine/lsh/sparse_inference.h"
#include "engine/model/inference.h"
#include "engine/model/model_io.h"
#include "engine/train/sparse_learner.h"

namespace sparsebench {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Dataset SampleRows(const Dataset& data, uint32_t rows) {
  std::vector<uint32_t> order = SeededPermutation(data.rows(), 0x7ec);
  order.resize(std::min<size_t>(rows, order.size()));
  std::sort(order.begin(), order.end());
  return TakeRows(data, order);
}

void Sweep(const std::string& model_path, const std::string& train_path, uint32_t rows, int threads,
           const std::vector<std::string>& specs) {
  const SavedModel model = LoadModel(model_path);
  const Network& net = model.network;
  ReadOptions read;
  read.threads = threads;
  read.num_features = net.shape.input_dim;
  read.num_labels = net.shape.output_dim;
  const Dataset probe = SampleRows(ReadDataset(train_path, Format::kXmc, read), rows);
  const TopK exact = PredictExact(net, probe, 5, threads);
  const DataShape shape{net.shape.input_dim, net.shape.output_dim};
  fmt::print("outputs {}, rows {}, threads {}\n", shape.labels, probe.rows(), threads);
  fmt::print("| spec | rebuild s | select us/row | mean active | recall@5 | label recall |\n|---|---|---|---|---|---|\n");
  for (const std::string& text : specs) {
    const SparseConfig config = SparseConfig::Parse(text, shape);
    auto selector = MakeNeuronSelector(config.selector, shape.labels);
    selector->Rebuild(net.output.w.data(), shape.labels, net.shape.hidden_dim, threads);
    auto start = std::chrono::steady_clock::now();  // the second build: buffers already in place
    selector->Rebuild(net.output.w.data(), shape.labels, net.shape.hidden_dim, threads);
    const double rebuild = SecondsSince(start);
    start = std::chrono::steady_clock::now();
    const auto sets = SelectActive(net, *selector, config.ActiveTarget(shape.labels), probe, 1);
    const double select = SecondsSince(start) / static_cast<double>(probe.rows()) * 1e6;
    const SelectionRecall r = MeasureSelectionRecall(exact, sets, probe);
    fmt::print("| `{}` | {:.3f} | {:.1f} | {:.0f} | {:.3f} | {:.3f} |\n", config.Canonical(), rebuild, select,
               r.mean_active, r.active_at_5, r.labels);
  }
}

}  // namespace
}  // namespace sparsebench

int main(int argc, char** argv) {
  if (argc < 6) {
    fmt::print(stderr, "usage: lsh_sweep MODEL TRAIN_FILE ROWS THREADS SPEC...\n");
    return 2;
  }
  try {
    sparsebench::Sweep(argv[1], argv[2], static_cast<uint32_t>(std::atoi(argv[3])), std::atoi(argv[4]),
                       std::vector<std::string>(argv + 5, argv + argc));
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  }
  return 0;
}
