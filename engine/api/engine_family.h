#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/learner.h"

namespace sparsebench {

// The part a row plays in the ablation of one of our engines: the engine as configured
// (kSubject), or a control that changes one thing about it.
enum class AblationRole { kNone, kSubject, kUniformSampling, kAllOutputsActive };

// What the report says about one spec of a family, read from the parsed spec.
struct SpecFacts {
  AblationRole role = AblationRole::kNone;
  bool all_outputs_active = true;  // false: the engine computes a subset of its outputs
  std::string clock_covers;        // what falls inside the harness's training clock
  bool reads_text = false;         // this spec reads raw text, though its family may not
  std::string threads_run;         // what runs on the cell's threads, and what on one
  bool null_engine = false;        // predicts without learning: the floor every row must beat
};

// One engine family (a spec's text before ':'): everything the harness knows about it. A family
// is one file that returns its entry; EngineRegistry::Add makes it known.
struct EngineFamily {
  std::string name;             // the spec's family, before ':'
  std::string summary;          // one line: what the engine is
  bool reads_text = false;      // trains on raw text (the others get the shared featurizer's ids)
  bool needs_text = false;      // trains on raw text only: a row of it marks text data
  bool dense_baseline = false;  // a dense reference: speed-ups and relative targets use it
  bool ours = false;            // SparseBench's own engine (the report's ablations are of it)
  bool external = false;        // runs outside SparseBench, refereed over a protocol (exec:)
  // ConfigError unless the spec is one this family accepts for some data; builds nothing.
  std::function<void(const std::string& spec)> check;
  std::function<std::unique_ptr<Learner>(const std::string& spec, const DataShape& shape,
                                         const TrainOptions& options)>
      make;
  // The facts of a spec this family printed (Learner::spec()); ConfigError when it is not one.
  std::function<SpecFacts(const std::string& spec)> facts;
  // Why a row of `spec` scores below half the best row on `metric`, where that is measured and
  // known; "" otherwise. Optional.
  std::function<std::string(std::string_view spec, std::string_view metric)> weak_note;
};

// The engine families a run knows. Built once, then read only.
class EngineRegistry {
 public:
  // Asserts that the entry is complete; ConfigError when its name is taken or malformed.
  void Add(EngineFamily family);

  // The family of a spec ("name" or "name:..."), or nullptr when no family has that name.
  const EngineFamily* Find(std::string_view spec) const;
  // As Find, but ConfigError naming the known families when there is none.
  const EngineFamily& Get(std::string_view spec) const;

  // Builds any engine from its spec string, by family.
  std::unique_ptr<Learner> MakeLearner(const std::string& spec, const DataShape& shape,
                                       const TrainOptions& options) const;
  // ConfigError when MakeLearner would refuse the spec for any data. Parses only.
  void CheckSpec(const std::string& spec) const;

  bool IsDenseBaseline(std::string_view spec) const;
  // The spec trains on raw text (its family's reads_text, or its own facts): no shared featurizer.
  bool ReadsText(const std::string& spec) const;
  bool IsExternal(std::string_view spec) const;
  // The facts of a row's spec; defaults (no role, clock not stated) for an unknown family or a
  // spec its family does not parse (results from another version).
  SpecFacts FactsOf(const std::string& spec) const;
  // The family's note on a low score of its spec on `metric` ("" when it has none).
  std::string WeakNote(std::string_view spec, std::string_view metric) const;
  // The first dense baseline added: what `compare` divides by when machines differ.
  std::string DefaultReference() const;
  std::vector<std::string> DenseBaselineNames() const;

  const std::vector<EngineFamily>& families() const { return families_; }

 private:
  std::vector<EngineFamily> families_;
};

}  // namespace sparsebench
