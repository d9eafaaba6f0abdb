// Matrix TOML: ReadMatrix on the input as a file (train/test files are not looked up), then
// what the runner does with an accepted matrix: cell expansion, shards, cell ids and file
// names, target rules and each cell's command line. An accepted matrix keeps every bound
// ReadMatrix promises; a refused one names the file. The input is also a command line
// (fuzz/command_line.h).
// fuzz-options: -max_len=4096
#include <cmath>
#include <cstdint>
#include <set>
#include <string>

#include "datasets/data_error.h"
#include "engine/api/engine_family.h"
#include "fuzz/command_line.h"
#include "fuzz/fuzz_util.h"
#include "fuzz/scratch.h"
#include "harness/cli/engines.h"
#include "harness/record/target_rule.h"
#include "harness/run/matrix.h"
#include "harness/run/runner.h"

using namespace sparsebench;

namespace {

void CheckMatrix(const Matrix& m) {
  FUZZ_REQUIRE(m.repeats >= 1 && m.repeats <= kMaxRepeats);
  FUZZ_REQUIRE(std::isfinite(m.max_seconds) && m.max_seconds > 0);
  FUZZ_REQUIRE(std::isfinite(m.max_memory_mb) && m.max_memory_mb > 0);
  FUZZ_REQUIRE(m.evals_per_epoch <= kMaxEvalsPerEpoch && m.eval_sample >= 1);
  FUZZ_REQUIRE(!m.threads.empty() && !m.datasets.empty());
  FUZZ_REQUIRE(std::set<int>(m.threads.begin(), m.threads.end()).size() == m.threads.size());
  for (int t : m.threads) FUZZ_REQUIRE(t >= 1 && t <= 1024);
  FUZZ_REQUIRE(CountCells(m, m.repeats) <= kMaxCells);
  for (const MatrixDataset& d : m.datasets) {
    FUZZ_REQUIRE(!d.engines.empty() && !d.name.empty());
    FUZZ_REQUIRE(d.preset.empty() ? !d.train.empty() && !d.test.empty()
                                  : d.scale > 0 && d.scale <= 100);
    TargetRule::Parse(d.target);  // accepted at load: parses again
    for (const MatrixEngine& e : d.engines) {
      FUZZ_REQUIRE(!e.name.empty() && e.name.find('/') == std::string::npos);
      FUZZ_REQUIRE(e.epochs <= kMaxEpochs && e.batch <= kMaxBatch);
      FUZZ_REQUIRE(e.lr == 0 || (e.lr >= kMinLr && e.lr <= kMaxLr));
      BuiltinEngines().CheckSpec(e.spec);  // accepted at load: accepted again
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (size <= 40) {  // the input as a target rule
    try {
      const TargetRule rule = TargetRule::Parse(text);
      FUZZ_REQUIRE(std::isnan(rule.value) != std::isnan(rule.points_below_dense) || text.empty());
      FUZZ_REQUIRE(std::isnan(rule.value) || (rule.value >= 0 && rule.value <= 1));
      FUZZ_REQUIRE(std::isnan(rule.points_below_dense) ||
                   (rule.points_below_dense >= 0 && rule.points_below_dense <= 100));
      const double resolved = rule.Resolve(0.5);
      FUZZ_REQUIRE(text.empty() ? std::isnan(resolved) : std::isfinite(resolved));
    } catch (const std::invalid_argument&) {
    }
  }
  fuzz::ParseCommandLine(text);
  static const std::string path = (fuzz::ScratchDir() / "matrix.toml").string();
  fuzz::WriteBytes(path, text);
  Matrix m;
  try {
    m = ReadMatrix(path, BuiltinEngines(), /*check_files=*/false);
  } catch (const DataError& e) {
    FUZZ_REQUIRE(e.file() == path);
    return 0;
  }
  CheckMatrix(m);
  const std::vector<Cell> cells = ExpandCells(m);
  FUZZ_REQUIRE(cells.size() == CountCells(m, m.repeats));
  // Cell ids and their file names are unique: no row can overwrite another. (Checked on the
  // first cells of very large matrices, to keep the pace: ids repeat the same pattern.)
  std::set<std::string> ids, stems;
  for (size_t i = 0; i < cells.size() && i < 20000; ++i) {
    const Cell& c = cells[i];
    FUZZ_REQUIRE(ids.insert(c.id()).second);
    FUZZ_REQUIRE(stems.insert(CellFileStem(c.id())).second);
  }
  for (uint32_t count = 1; count <= 3; ++count) {
    size_t total = 0;
    for (uint32_t shard = 0; shard < count; ++shard) {
      for (const Cell& c : ShardCells(cells, shard, count)) {
        FUZZ_REQUIRE(c.index % count == shard);
        ++total;
      }
    }
    FUZZ_REQUIRE(total == cells.size());
  }
  for (size_t i = 0; i < cells.size() && i < 64; ++i) {
    const Cell& c = cells[i];
    const std::vector<std::string> argv =
        CellCommand(m, c, {"train.txt", "test.txt", c.dataset->format}, "sparsebench");
    FUZZ_REQUIRE(argv.size() >= 4 && argv[3] == c.engine->spec);
  }
  return 0;
}
