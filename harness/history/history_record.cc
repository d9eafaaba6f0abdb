#include "harness/history/history_record.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>

#include "datasets/data_error.h"
#include "harness/record/files.h"
#include "harness/record/machine.h"
#include "harness/record/rows.h"

namespace sparsebench {
namespace {

// The exact work counts an engine reports per epoch, summed by RecordsOfRun.
constexpr const char* kCounters[] = {"active_neurons", "buckets_probed", "bucket_ids_read",
                                     "multiply_adds",  "rebuilds",       "samples"};

std::string Hex64(const std::string& text) {
  return fmt::format("{:016x}", XXH64(text.data(), text.size(), 0));
}

template <typename T>
std::string Or(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : "-";
}

// What a cell trained with (each repeat's own seed aside): a change makes its figures a
// different series.
std::string SettingsHash(const CellResult& r) {
  return Hex64(fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", r.dataset, r.spec, r.optimizer,
                           r.precision, Or(r.threads), Or(r.epochs), Or(r.batch), Or(r.lr),
                           r.metric, Or(r.test_rows)));
}

std::map<std::string, uint64_t> CountersOf(const CellResult& r) {
  std::map<std::string, uint64_t> counts;
  if (!r.epoch_details.is_array()) return counts;
  bool any = false;
  for (const auto& epoch : r.epoch_details) {
    if (epoch.is_object() && epoch.contains("active_neurons")) any = true;
  }
  if (!any) return counts;
  for (const auto& epoch : r.epoch_details) {
    for (const char* key : kCounters) {
      const auto it = epoch.find(key);
      if (it == epoch.end() || !it->is_number()) continue;
      const double v = it->get<double>();
      if (v >= 0 && v == std::floor(v)) counts[key] += static_cast<uint64_t>(v);
    }
  }
  return counts;
}

template <typename T>
T Field(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end()) return T{};
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw DataError(where, 0, fmt::format("'{}' has the wrong type", key));
  }
}

nlohmann::json ContextOf(const std::string& run_dir) {
  const std::string path = (std::filesystem::path(run_dir) / "context.json").string();
  nlohmann::json file;
  try {
    file = nlohmann::json::parse(ReadRegularFile(path, uintmax_t{64} << 20, "a run context"));
  } catch (const nlohmann::json::exception& e) {
    throw DataError(path, 0, std::string("not JSON: ") + e.what());
  }
  const std::vector<nlohmann::json> contexts = ContextsIn(file);
  if (contexts.empty()) throw DataError(path, 0, "holds no run context");
  for (const auto& c : contexts) {
    if (MachineKey(c) != MachineKey(contexts.front()))
      throw DataError(path, 0, "the run spans machines: one machine a history record");
  }
  return contexts.back();
}

}  // namespace

std::string MachineKey(const nlohmann::json& context) {
  std::string key = MachineFingerprint(context);
  if (!key.empty()) return key;
  for (const char c : MachineName(context)) {
    key += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  }
  return key;
}

nlohmann::json ToJson(const HistoryRecord& r) {
  nlohmann::json j = {{"commit", r.commit},
                      {"parent", r.parent},
                      {"commit_date", r.commit_date},
                      {"run_date", r.run_date},
                      {"machine", r.machine},
                      {"machine_name", r.machine_name},
                      {"build", r.build},
                      {"matrix", r.matrix},
                      {"matrix_hash", r.matrix_hash},
                      {"cell", r.cell},
                      {"settings_hash", r.settings_hash},
                      {"spec", r.spec},
                      {"status", r.status},
                      {"reference", r.reference},
                      {"train_seconds", r.train_seconds},
                      {"samples_per_second", r.samples_per_second},
                      {"ratio", r.ratio},
                      {"metric", r.metric},
                      {"metric_value", r.metric_value}};
  if (!r.reason.empty()) j["reason"] = r.reason;
  if (!r.counters.empty()) {
    nlohmann::json& counters = j["counters"] = nlohmann::json::array();
    for (const SeedCounts& c : r.counters) {
      nlohmann::json one = c.counts;
      one["seed"] = c.seed;
      counters.push_back(one);
    }
  }
  return j;
}

HistoryRecord RecordFromJson(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw DataError(where, 0, "not a JSON object");
  HistoryRecord r;
  for (auto [key, field] : {std::pair{"commit", &r.commit}, {"cell", &r.cell}}) {
    *field = Field<std::string>(j, key, where);
    if (field->empty()) throw DataError(where, 0, fmt::format("no '{}'", key));
  }
  r.parent = Field<std::string>(j, "parent", where);
  r.commit_date = Field<std::string>(j, "commit_date", where);
  r.run_date = Field<std::string>(j, "run_date", where);
  r.machine = Field<std::string>(j, "machine", where);
  r.machine_name = Field<std::string>(j, "machine_name", where);
  r.build = Field<std::string>(j, "build", where);
  r.matrix = Field<std::string>(j, "matrix", where);
  r.matrix_hash = Field<std::string>(j, "matrix_hash", where);
  r.settings_hash = Field<std::string>(j, "settings_hash", where);
  r.spec = Field<std::string>(j, "spec", where);
  r.status = j.contains("status") ? Field<std::string>(j, "status", where) : "ok";
  r.reason = Field<std::string>(j, "reason", where);
  r.reference = Field<std::string>(j, "reference", where);
  r.metric = Field<std::string>(j, "metric", where);
  r.train_seconds = Field<std::vector<double>>(j, "train_seconds", where);
  r.samples_per_second = Field<std::vector<double>>(j, "samples_per_second", where);
  r.ratio = Field<std::vector<double>>(j, "ratio", where);
  r.metric_value = Field<std::vector<double>>(j, "metric_value", where);
  for (auto counts : Field<std::vector<std::map<std::string, uint64_t>>>(j, "counters", where)) {
    const auto seed = counts.find("seed");
    if (seed == counts.end()) throw DataError(where, 0, "a repeat's counters without its seed");
    SeedCounts c{seed->second, {}};
    counts.erase(seed);
    c.counts = std::move(counts);
    r.counters.push_back(std::move(c));
  }
  for (const auto* series : {&r.train_seconds, &r.ratio, &r.metric_value}) {
    for (double v : *series) {
      if (!std::isfinite(v) || v < 0) throw DataError(where, 0, "a figure that is not finite");
    }
  }
  return r;
}

std::string CommitOfRun(const std::string& run_dir) {
  const std::string commit = ContextOf(run_dir).value("git_commit", std::string());
  if (commit.empty()) {
    throw DataError((std::filesystem::path(run_dir) / "context.json").string(), 0,
                    "no git_commit: the run was not made in a git checkout");
  }
  return commit;
}

std::vector<HistoryRecord> RecordsOfRun(const std::string& run_dir, const CommitInfo& commit,
                                        const EngineRegistry& engines, bool allow_dirty) {
  const nlohmann::json context = ContextOf(run_dir);
  const std::string context_path = (std::filesystem::path(run_dir) / "context.json").string();
  if (context.value("git_dirty", false) && !allow_dirty) {
    throw DataError(context_path, 0,
                    "measured in a tree with uncommitted changes: its figures belong to no commit");
  }
  std::vector<CellResult> rows = LoadRows({run_dir}, engines);
  if (rows.empty()) throw DataError(run_dir, 0, "no cells to record");
  const std::string reference = engines.DefaultReference();
  using Where = std::tuple<std::string, int64_t, int64_t>;  // dataset, threads, repeat
  std::map<Where, double> reference_seconds;
  for (const CellResult& r : rows) {
    if (r.name == reference && r.ok() && r.train_seconds && *r.train_seconds > 0)
      reference_seconds[{r.dataset, r.threads.value_or(0), r.repeat.value_or(0)}] =
          *r.train_seconds;
  }
  std::vector<HistoryRecord> records;
  std::map<std::string, size_t> index;  // cell -> records
  for (const CellResult& r : rows) {
    const std::string cell = fmt::format("{}/{}/t{}", r.dataset, r.name, r.threads.value_or(0));
    auto [at, fresh] = index.emplace(cell, records.size());
    if (fresh) {
      HistoryRecord h;
      h.commit = commit.commit;
      h.parent = commit.parent;
      h.commit_date = commit.date;
      h.run_date = context.value("date", std::string());
      h.machine = MachineKey(context);
      h.machine_name = MachineName(context);
      h.build = context.value("build_flags", std::string());
      h.matrix = context.value("matrix", std::string());
      h.matrix_hash = context.value("matrix_hash", std::string());
      h.cell = cell;
      h.settings_hash = SettingsHash(r);
      h.spec = r.spec;
      h.metric = r.metric;
      records.push_back(std::move(h));
    }
    HistoryRecord& h = records[at->second];
    if (!r.ok()) {  // one failed repeat fails the cell's point
      h.status = std::string(Text(r.status));
      h.reason = fmt::format("repeat {}: {}", r.repeat.value_or(0), r.reason);
      continue;
    }
    if (!r.train_seconds || !r.metric_value || !std::isfinite(*r.train_seconds) ||
        !std::isfinite(*r.metric_value)) {
      h.status = "invalid";
      h.reason =
          fmt::format("repeat {} is ok without a finite time and metric", r.repeat.value_or(0));
      continue;
    }
    h.train_seconds.push_back(*r.train_seconds);
    h.metric_value.push_back(*r.metric_value);
    if (r.samples_per_second) h.samples_per_second.push_back(*r.samples_per_second);
    const auto ref =
        reference_seconds.find({r.dataset, r.threads.value_or(0), r.repeat.value_or(0)});
    if (ref != reference_seconds.end()) {
      h.reference = reference;
      h.ratio.push_back(*r.train_seconds / ref->second);
    }
    if (auto counts = CountersOf(r); !counts.empty())
      h.counters.push_back({r.seed.value_or(0), std::move(counts)});
  }
  for (HistoryRecord& h : records) {
    if (h.ratio.size() != h.train_seconds.size()) h.ratio.clear(), h.reference.clear();
  }
  return records;
}

}  // namespace sparsebench
