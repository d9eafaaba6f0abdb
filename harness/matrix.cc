#include "harness/matrix.h"

#include <toml++/toml.h>

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "datasets/data_error.h"

namespace sparsebench {
namespace {

class TomlReader {
 public:
  explicit TomlReader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void Fail(const toml::node& node, const std::string& reason) const {
    throw DataError(path_, static_cast<uint64_t>(node.source().begin.line), reason);
  }

  template <typename T>
  T Get(const toml::table& table, const std::string& key, T fallback) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return fallback;
    if constexpr (std::is_same_v<T, double>) {
      if (auto v = node->value<double>()) return *v;
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (auto v = node->value<std::string>()) return *v;
    } else {
      if (auto v = node->value<int64_t>(); v && *v >= 0) return static_cast<T>(*v);
    }
    Fail(*node, "'" + key + "' has the wrong type or a negative value");
  }

  void OnlyKeys(const toml::table& table, std::set<std::string> known) const {
    for (const auto& [key, node] : table) {
      if (!known.contains(std::string(key.str()))) Fail(node, "unknown key '" + std::string(key.str()) + "'");
    }
  }

  MatrixEngine Engine(const toml::table& t) const {
    OnlyKeys(t, {"name", "spec", "epochs", "batch", "lr"});
    MatrixEngine e;
    e.spec = Get<std::string>(t, "spec", "");
    if (e.spec.empty()) Fail(t, "an engine needs a spec");
    e.name = Get<std::string>(t, "name", e.spec.substr(0, e.spec.find(':')));
    e.epochs = Get<uint32_t>(t, "epochs", 0);
    e.batch = Get<uint32_t>(t, "batch", 0);
    e.lr = Get<double>(t, "lr", 0.0);
    for (const char* key : {"epochs", "batch", "lr"}) {
      const toml::node* node = t.get(key);
      const double v = key == std::string("lr") ? e.lr : key == std::string("batch") ? e.batch : e.epochs;
      if (node != nullptr && !(v > 0 && std::isfinite(v))) Fail(*node, std::string(key) + " must be positive");
    }
    return e;
  }

  MatrixDataset Dataset(const toml::table& t) const {
    OnlyKeys(t, {"name", "preset", "scale", "train", "test", "format", "metric", "target", "engines"});
    MatrixDataset d;
    d.preset = Get<std::string>(t, "preset", "");
    d.scale = Get<double>(t, "scale", 1.0);
    d.train = Get<std::string>(t, "train", "");
    d.test = Get<std::string>(t, "test", "");
    d.format = Get<std::string>(t, "format", "");
    if (d.preset.empty() == d.train.empty() || d.train.empty() != d.test.empty()) {
      Fail(t, "a dataset needs either a preset or both train and test files");
    }
    if (!(d.scale > 0)) Fail(t, "scale must be positive");
    d.name = Get<std::string>(t, "name", d.preset.empty() ? std::filesystem::path(d.train).stem().string() : d.preset);
    d.metric = Get<std::string>(t, "metric", "p_at_1");
    if (d.metric != "p_at_1" && d.metric != "p_at_3" && d.metric != "p_at_5" && d.metric != "accuracy") {
      Fail(t, "metric must be p_at_1, p_at_3, p_at_5 or accuracy");
    }
    if (const toml::node* target = t.get("target")) {
      if (auto v = target->value<double>()) {
        d.target = fmt::format("{:g}", *v);
      } else if (auto rule = target->value<std::string>()) {
        d.target = *rule;
      } else {
        Fail(*target, "target must be a number or a rule such as \"dense-1pt\"");
      }
      try {
        TargetRule::Parse(d.target);
      } catch (const std::exception& e) {
        Fail(*target, e.what());
      }
    }
    const toml::array* engines = t["engines"].as_array();
    if (engines == nullptr || engines->empty()) Fail(t, "dataset '" + d.name + "' lists no engines");
    for (const toml::node& e : *engines) {
      if (!e.is_table()) Fail(e, "engines must be tables");
      d.engines.push_back(Engine(*e.as_table()));
    }
    return d;
  }

 private:
  std::string path_;
};

}  // namespace

Matrix ReadMatrix(const std::string& path) {
  toml::table root;
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    throw DataError(path, static_cast<uint64_t>(e.source().begin.line), std::string(e.description()));
  }
  const TomlReader reader(path);
  reader.OnlyKeys(root, {"name", "datasets", "threads", "repeats", "max_seconds", "max_memory_mb",
                         "evals_per_epoch", "eval_sample", "latency_samples"});
  Matrix m;
  m.path = path;
  m.name = reader.Get<std::string>(root, "name", std::filesystem::path(path).stem().string());
  m.repeats = reader.Get<uint32_t>(root, "repeats", 1);
  m.max_seconds = reader.Get<double>(root, "max_seconds", m.max_seconds);
  m.max_memory_mb = reader.Get<double>(root, "max_memory_mb", m.max_memory_mb);
  m.evals_per_epoch = reader.Get<uint32_t>(root, "evals_per_epoch", m.evals_per_epoch);
  m.eval_sample = reader.Get<uint32_t>(root, "eval_sample", m.eval_sample);
  m.latency_samples = reader.Get<uint32_t>(root, "latency_samples", m.latency_samples);
  if (m.repeats == 0) reader.Fail(*root.get("repeats"), "repeats must be at least 1");
  if (const toml::array* threads = root["threads"].as_array()) {
    m.threads.clear();
    for (const toml::node& t : *threads) {
      const auto v = t.value<int64_t>();
      if (!v || *v < 1 || *v > 1024) reader.Fail(t, "threads must be integers from 1 to 1024");
      m.threads.push_back(static_cast<int>(*v));
    }
  }
  const toml::array* datasets = root["datasets"].as_array();
  if (datasets == nullptr || datasets->empty()) throw DataError(path, 1, "the matrix lists no [[datasets]]");
  std::set<std::string> names;
  for (const toml::node& d : *datasets) {
    if (!d.is_table()) reader.Fail(d, "datasets must be tables");
    m.datasets.push_back(reader.Dataset(*d.as_table()));
    if (!names.insert(m.datasets.back().name).second) reader.Fail(d, "two datasets are named '" + m.datasets.back().name + "'");
  }
  return m;
}

TargetRule TargetRule::Parse(const std::string& text) {
  TargetRule rule;
  if (text.empty()) return rule;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() && *end == '\0') {
    if (!(value >= 0 && value <= 1)) throw std::invalid_argument("a target must lie in [0, 1]");
    rule.value = value;
    return rule;
  }
  const std::string prefix = "dense-", suffix = "pt";
  if (text.rfind(prefix, 0) == 0 && text.size() > prefix.size() + suffix.size() &&
      text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
    const std::string number = text.substr(prefix.size(), text.size() - prefix.size() - suffix.size());
    const double points = std::strtod(number.c_str(), &end);
    if (end != number.c_str() && *end == '\0' && points >= 0 && points <= 100) {
      rule.points_below_dense = points;
      return rule;
    }
  }
  throw std::invalid_argument("target '" + text + "' is neither a number in [0, 1] nor a rule such as \"dense-1pt\"");
}

double TargetRule::Resolve(double best_dense_metric) const {
  if (!std::isnan(value)) return value;
  if (std::isnan(points_below_dense) || std::isnan(best_dense_metric)) return NAN;
  return best_dense_metric - points_below_dense / 100.0;
}

std::string Cell::id() const {
  return dataset->name + "/" + engine->name + "/t" + std::to_string(threads) + "/r" + std::to_string(repeat);
}

std::vector<Cell> ExpandCells(const Matrix& matrix) {
  std::vector<Cell> cells;
  // Repeats outermost, so a matrix cut short still has one of everything.
  for (uint32_t repeat = 1; repeat <= matrix.repeats; ++repeat) {
    for (const MatrixDataset& d : matrix.datasets) {
      for (const MatrixEngine& e : d.engines) {
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
