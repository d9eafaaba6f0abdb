#include "harness/run/matrix.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>
#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "datasets/data_error.h"
#include "datasets/reader.h"
#include "datasets/synthetic.h"
#include "engine/api/engine_error.h"
#include "engine/api/engine_family.h"
#include "engine/api/parse_number.h"
#include "harness/record/csv.h"
#include "harness/record/files.h"
#include "harness/record/target_rule.h"

namespace sparsebench {
namespace fs = std::filesystem;
namespace {

// A name that becomes part of cell ids, file names and report text: printable, no '/'.
std::string NameProblem(const std::string& name) {
  if (name.empty()) return "is empty";
  if (name.size() > 100) return "is longer than 100 bytes";
  for (unsigned char c : name) {
    if (c == '/') return "contains '/', which separates the parts of a cell id";
    if (c < 0x20 || c == 0x7f) return "contains a control character";
  }
  return "";
}

class TomlReader {
 public:
  TomlReader(std::string path, bool check_files, const EngineRegistry& engines)
      : path_(std::move(path)), check_files_(check_files), engines_(engines) {}

  [[noreturn]] void Fail(const toml::node& node, const std::string& reason) const {
    throw DataError(path_, static_cast<uint64_t>(node.source().begin.line), reason);
  }
  [[noreturn]] void Fail(uint64_t line, const std::string& reason) const { throw DataError(path_, line, reason); }

  std::string String(const toml::table& table, const std::string& key, const std::string& fallback) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return fallback;
    if (!node->is_string()) Fail(*node, "'" + key + "' must be a string");
    return *node->value<std::string>();
  }

  // A TOML integer (not a float, not a boolean) in [min, max].
  uint32_t Uint(const toml::table& table, const std::string& key, uint32_t fallback, uint32_t min, uint32_t max) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return fallback;
    const auto v = node->is_integer() ? node->value<int64_t>() : std::nullopt;
    if (!v || *v < min || *v > max) Fail(*node, fmt::format("'{}' must be an integer from {} to {}", key, min, max));
    return static_cast<uint32_t>(*v);
  }

  // A TOML integer or float, finite, in (min, max] when open_min, else [min, max].
  double Number(const toml::table& table, const std::string& key, double fallback, double min, double max,
                bool open_min) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return fallback;
    const auto v = node->is_number() ? node->value<double>() : std::nullopt;
    if (!v || !std::isfinite(*v) || (open_min ? !(*v > min) : !(*v >= min)) || !(*v <= max)) {
      Fail(*node, fmt::format("'{}' must be a number {} {:g} and at most {:g}", key, open_min ? "above" : "from",
                              min, max));
    }
    return *v;
  }

  void OnlyKeys(const toml::table& table, std::set<std::string> known) const {
    for (const auto& [key, node] : table) {
      if (!known.contains(std::string(key.str()))) Fail(node, "unknown key '" + std::string(key.str()) + "'");
    }
  }

  void CheckName(const toml::node& node, const std::string& what, const std::string& name) const {
    const std::string problem = NameProblem(name);
    if (!problem.empty()) Fail(node, what + " name '" + name + "' " + problem);
  }

  MatrixEngine Engine(const toml::table& t) const {
    OnlyKeys(t, {"name", "spec", "epochs", "batch", "lr", "lr_half_life", "train_budget_seconds",
                 "eval_every_seconds", "repeats"});
    MatrixEngine e;
    e.spec = String(t, "spec", "");
    if (e.spec.empty()) Fail(t, "an engine needs a spec");
    try {
      engines_.CheckSpec(e.spec);
    } catch (const std::invalid_argument& error) {  // ConfigError
      Fail(*t.get("spec"), "engine spec '" + e.spec + "': " + error.what());
    }
    e.name = String(t, "name", e.spec.substr(0, e.spec.find(':')));
    CheckName(t.get("name") ? *t.get("name") : static_cast<const toml::node&>(t), "engine", e.name);
    e.epochs = Uint(t, "epochs", 0, 1, kMaxEpochs);
    e.batch = Uint(t, "batch", 0, 1, kMaxBatch);
    e.lr = Number(t, "lr", 0.0, kMinLr, kMaxLr, false);
    if (t.get("lr_half_life")) e.lr_half_life = Uint(t, "lr_half_life", 0, 0, kMaxLrHalfLife);
    if (t.get("train_budget_seconds"))
      e.train_budget_seconds = Number(t, "train_budget_seconds", 0, 0, kMaxSeconds, false);
    if (t.get("eval_every_seconds"))
      e.eval_every_seconds = Number(t, "eval_every_seconds", 0, 0, kMaxSeconds, false);
    if (t.get("repeats")) e.repeats = Uint(t, "repeats", 1, 1, kMaxRepeats);
    return e;
  }

  // A train or test file: it must exist and be a regular file when files are checked.
  std::string File(const toml::table& t, const std::string& key) const {
    const std::string file = String(t, key, "");
    if (file.empty() || !check_files_) return file;
    std::error_code error;
    const fs::file_status status = fs::status(file, error);
    if (!fs::exists(status)) Fail(*t.get(key), key + " file '" + file + "' does not exist");
    if (!fs::is_regular_file(status)) Fail(*t.get(key), key + " file '" + file + "' is not a regular file");
    return file;
  }

  MatrixDataset Dataset(const toml::table& t) const {
    OnlyKeys(t, {"name", "preset", "scale", "train", "test", "format", "metric", "target",
                 "holdout", "patience", "min_improvement", "engines"});
    MatrixDataset d;
    d.preset = String(t, "preset", "");
    d.train = String(t, "train", "");
    d.test = String(t, "test", "");
    if (d.preset.empty() == d.train.empty() || d.train.empty() != d.test.empty()) {
      Fail(t, "a dataset needs either a preset or both train and test files");
    }
    if (!d.preset.empty()) {
      const std::vector<std::string> presets = SyntheticPresets();
      if (std::find(presets.begin(), presets.end(), d.preset) == presets.end()) {
        Fail(*t.get("preset"), fmt::format("unknown preset '{}' (known: {})", d.preset, fmt::join(presets, ", ")));
      }
      if (t.get("format") != nullptr) Fail(*t.get("format"), "format is for train and test files; a preset's is fixed");
      // GenerateSynthetic's bound: 1.0 is the real dataset's size.
      d.scale = Number(t, "scale", 1.0, 0, kMaxScale, true);
    } else {
      if (t.get("scale") != nullptr) Fail(*t.get("scale"), "scale is for presets, not train and test files");
      d.format = String(t, "format", "");
      if (!d.format.empty()) {
        try {
          ParseFormat(d.format);
        } catch (const std::invalid_argument& error) {
          Fail(*t.get("format"), error.what());
        }
      }
      File(t, "train");
      File(t, "test");
    }
    d.name = String(t, "name", d.preset.empty() ? fs::path(d.train).stem().string() : d.preset);
    CheckName(t.get("name") ? *t.get("name") : static_cast<const toml::node&>(t), "dataset", d.name);
    d.metric = String(t, "metric", "p_at_1");
    if (d.metric != "p_at_1" && d.metric != "p_at_3" && d.metric != "p_at_5" && d.metric != "accuracy") {
      Fail(t.get("metric") ? *t.get("metric") : static_cast<const toml::node&>(t),
           "metric must be p_at_1, p_at_3, p_at_5 or accuracy");
    }
    if (const toml::node* target = t.get("target")) {
      if (target->is_number()) {
        d.target = fmt::format("{}", *target->value<double>());
      } else if (target->is_string()) {
        d.target = *target->value<std::string>();
      } else {
        Fail(*target, "target must be a number or a rule such as \"dense-1pt\"");
      }
      try {
        TargetRule::Parse(d.target);
      } catch (const std::exception& e) {
        Fail(*target, e.what());
      }
    }
    d.patience = Uint(t, "patience", 0, 1, kMaxEpochs);
    d.min_improvement = Number(t, "min_improvement", 0.0, 0, 0.5, false);
    if (d.min_improvement > 0 && d.patience == 0)
      Fail(t, "min_improvement is part of the plateau rule: give holdout and patience too");
    d.holdout = Number(t, "holdout", 0.0, 0, 0.5, true);
    if ((d.patience > 0) != (d.holdout > 0)) {
      Fail(t,
           "the plateau rule needs both holdout (a share of the training rows) and patience "
           "(epochs)");
    }
    const toml::node* engines_node = t.get("engines");
    const toml::array* engines = engines_node ? engines_node->as_array() : nullptr;
    if (engines_node != nullptr && engines == nullptr) Fail(*engines_node, "engines must be a list of tables");
    if (engines == nullptr || engines->empty()) Fail(t, "dataset '" + d.name + "' lists no engines");
    std::set<std::string> names;
    for (const toml::node& e : *engines) {
      if (!e.is_table()) Fail(e, "engines must be tables");
      d.engines.push_back(Engine(*e.as_table()));
      if (!names.insert(d.engines.back().name).second) {
        Fail(e, "dataset '" + d.name + "' has two engines named '" + d.engines.back().name +
                    "': cell ids must be unique, so give each a distinct name");
      }
    }
    return d;
  }

 private:
  std::string path_;
  bool check_files_;
  const EngineRegistry& engines_;
};

}  // namespace

Matrix ReadMatrix(const std::string& path, const EngineRegistry& engines, bool check_files) {
  const std::string text = ReadRegularFile(path, kMaxMatrixBytes, "a matrix");
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw DataError(path, static_cast<uint64_t>(e.source().begin.line), std::string(e.description()));
  }
  const TomlReader reader(path, check_files, engines);
  reader.OnlyKeys(root, {"name", "datasets", "threads", "repeats", "max_seconds", "max_memory_mb",
                         "evals_per_epoch", "eval_sample", "latency_samples",
                         "train_budget_seconds", "eval_every_seconds"});
  Matrix m;
  m.path = path;
  m.content_hash = fmt::format("xxh64:{:016x}", XXH64(text.data(), text.size(), 0));
  m.name = reader.String(root, "name", fs::path(path).stem().string());
  if (const toml::node* name = root.get("name")) reader.CheckName(*name, "matrix", m.name);
  m.repeats = reader.Uint(root, "repeats", 1, 1, kMaxRepeats);
  // Limits that are off, negative or NaN would let a cell run unbounded: they must be real.
  m.max_seconds = reader.Number(root, "max_seconds", m.max_seconds, 0, kMaxSeconds, true);
  m.train_budget_seconds = reader.Number(root, "train_budget_seconds", 0, 0, kMaxSeconds, false);
  m.eval_every_seconds = reader.Number(root, "eval_every_seconds", 0, 0, kMaxSeconds, false);
  m.max_memory_mb = reader.Number(root, "max_memory_mb", m.max_memory_mb, 0, 1e9, true);
  m.evals_per_epoch = reader.Uint(root, "evals_per_epoch", m.evals_per_epoch, 0, kMaxEvalsPerEpoch);
  m.eval_sample = reader.Uint(root, "eval_sample", m.eval_sample, 1, UINT32_MAX);
  m.latency_samples = reader.Uint(root, "latency_samples", m.latency_samples, 0, UINT32_MAX);
  if (const toml::node* node = root.get("threads")) {
    const toml::array* threads = node->as_array();
    if (threads == nullptr) reader.Fail(*node, "threads must be a list of thread counts, e.g. [2]");
    if (threads->empty()) reader.Fail(*node, "threads lists no thread counts");
    m.threads.clear();
    for (const toml::node& t : *threads) {
      const auto v = t.is_integer() ? t.value<int64_t>() : std::nullopt;
      if (!v || *v < 1 || *v > 1024) reader.Fail(t, "threads must be integers from 1 to 1024");
      if (std::find(m.threads.begin(), m.threads.end(), *v) != m.threads.end()) {
        reader.Fail(t, fmt::format("threads lists {} twice: cell ids must be unique", *v));
      }
      m.threads.push_back(static_cast<int>(*v));
    }
  }
  const toml::node* datasets_node = root.get("datasets");
  const toml::array* datasets = datasets_node ? datasets_node->as_array() : nullptr;
  if (datasets_node != nullptr && datasets == nullptr) reader.Fail(*datasets_node, "datasets must be [[datasets]] tables");
  if (datasets == nullptr || datasets->empty()) reader.Fail(1, "the matrix lists no [[datasets]]");
  std::set<std::string> names;
  std::map<std::string, std::string> stems;  // cell file stem -> "dataset/engine"
  for (const toml::node& d : *datasets) {
    if (!d.is_table()) reader.Fail(d, "datasets must be tables");
    m.datasets.push_back(reader.Dataset(*d.as_table()));
    const MatrixDataset& dataset = m.datasets.back();
    if (!names.insert(dataset.name).second) reader.Fail(d, "two datasets are named '" + dataset.name + "'");
    for (const MatrixEngine& e : dataset.engines) {
      const std::string id = dataset.name + "/" + e.name;
      // A budget the cell's time limit cuts off would end every such cell as a timeout.
      if (const double budget = e.train_budget_seconds.value_or(m.train_budget_seconds);
          budget >= m.max_seconds) {
        reader.Fail(
            d, fmt::format(
                   "engine '{}' has a training budget of {:g} s, not below max_seconds ({:g}): "
                   "the cell would be killed before its budget ends",
                   id, budget, m.max_seconds));
      }
      const auto [at, fresh] = stems.emplace(CellFileStem(id), id);
      if (!fresh) reader.Fail(d, "cells '" + at->second + "' and '" + id + "' would share the file names " + at->first + "__*");
    }
  }
  const uint64_t cells = CountCells(m, m.repeats);
  if (cells > kMaxCells) {
    reader.Fail(root.get("repeats") ? *root.get("repeats") : static_cast<const toml::node&>(root),
                fmt::format("the matrix expands to {} cells (datasets x engines x threads x repeats), more than {}",
                            cells, kMaxCells));
  }
  return m;
}

uint32_t Repeats(const Matrix& matrix, const MatrixEngine& engine) {
  return engine.repeats.value_or(matrix.repeats);
}

uint64_t CountCells(const Matrix& matrix, uint32_t repeats) {
  uint64_t runs = 0;
  for (const MatrixDataset& d : matrix.datasets) {
    for (const MatrixEngine& e : d.engines) runs += e.repeats.value_or(repeats);
  }
  return runs * matrix.threads.size();
}

std::string CellFileStem(const std::string& cell_id) {
  std::string stem;
  for (char c : cell_id) stem += c == '/' ? std::string("__") : std::string(1, c);
  return stem;
}

std::string Cell::id() const {
  return dataset->name + "/" + engine->name + "/t" + std::to_string(threads) + "/r" + std::to_string(repeat);
}

std::vector<Cell> ExpandCells(const Matrix& matrix) {
  std::vector<Cell> cells;
  // Repeats outermost, so a matrix cut short still has one of everything.
  uint32_t most = matrix.repeats;
  for (const MatrixDataset& d : matrix.datasets) {
    for (const MatrixEngine& e : d.engines) most = std::max(most, Repeats(matrix, e));
  }
  for (uint32_t repeat = 1; repeat <= most; ++repeat) {
    for (const MatrixDataset& d : matrix.datasets) {
      for (const MatrixEngine& e : d.engines) {
        if (repeat > Repeats(matrix, e)) continue;
        for (int threads : matrix.threads) {
          cells.push_back(Cell{cells.size(), &d, &e, threads, repeat});
        }
      }
    }
  }
  return cells;
}

std::vector<Cell> ShardCells(const std::vector<Cell>& cells, uint32_t shard, uint32_t count) {
  std::vector<Cell> mine;
  for (const Cell& c : cells) {
    if (c.index % count == shard) mine.push_back(c);
  }
  return mine;
}

}  // namespace sparsebench
