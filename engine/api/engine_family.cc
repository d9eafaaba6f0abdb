#include "engine/api/engine_family.h"

#include <cassert>
#include <stdexcept>

#include "engine/api/engine_error.h"

namespace sparsebench {
namespace {

std::string_view FamilyName(std::string_view spec) { return spec.substr(0, spec.find(':')); }

}  // namespace

void EngineRegistry::Add(EngineFamily family) {
  assert(family.check && family.make && family.facts);
  if (family.name.empty() || family.name.find_first_of(":,= ") != std::string::npos) {
    throw ConfigError("engine family name '" + family.name +
                      "' is empty or holds ':', ',', '=' or a space");
  }
  if (Find(family.name))
    throw ConfigError("engine family '" + family.name + "' is registered twice");
  families_.push_back(std::move(family));
}

const EngineFamily* EngineRegistry::Find(std::string_view spec) const {
  const std::string_view name = FamilyName(spec);
  for (const EngineFamily& f : families_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const EngineFamily& EngineRegistry::Get(std::string_view spec) const {
  if (const EngineFamily* f = Find(spec)) return *f;
  std::string known;
  for (const EngineFamily& f : families_) known += (known.empty() ? "" : ", ") + f.name;
  throw ConfigError("unknown engine family '" + std::string(FamilyName(spec)) +
                    "' (known: " + known + ")");
}

std::unique_ptr<Learner> EngineRegistry::MakeLearner(const std::string& spec,
                                                     const DataShape& shape,
                                                     const TrainOptions& options) const {
  return Get(spec).make(spec, shape, options);
}

void EngineRegistry::CheckSpec(const std::string& spec) const { Get(spec).check(spec); }

bool EngineRegistry::IsDenseBaseline(std::string_view spec) const {
  const EngineFamily* f = Find(spec);
  return f != nullptr && f->dense_baseline;
}

bool EngineRegistry::ReadsText(const std::string& spec) const {
  const EngineFamily* f = Find(spec);
  return f != nullptr && (f->reads_text || FactsOf(spec).reads_text);
}

bool EngineRegistry::IsExternal(std::string_view spec) const {
  const EngineFamily* f = Find(spec);
  return f != nullptr && f->external;
}

SpecFacts EngineRegistry::FactsOf(const std::string& spec) const {
  const EngineFamily* f = Find(spec);
  if (f == nullptr) return {};
  try {
    return f->facts(spec);
  } catch (const std::invalid_argument&) {  // ConfigError among them
    return {};
  }
}

std::string EngineRegistry::WeakNote(std::string_view spec, std::string_view metric) const {
  const EngineFamily* f = Find(spec);
  return f != nullptr && f->weak_note ? f->weak_note(spec, metric) : std::string();
}

std::string EngineRegistry::DefaultReference() const {
  const std::vector<std::string> dense = DenseBaselineNames();
  return dense.empty() ? std::string() : dense.front();
}

std::vector<std::string> EngineRegistry::DenseBaselineNames() const {
  std::vector<std::string> names;
  for (const EngineFamily& f : families_) {
    if (f.dense_baseline) names.push_back(f.name);
  }
  return names;
}

}  // namespace sparsebench
