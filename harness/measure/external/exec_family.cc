#include "harness/measure/external/exec_family.h"

#include <string_view>

#include "harness/measure/external/exec_learner.h"

namespace sparsebench {
namespace {

bool IsNullEngine(std::string_view spec) {
  const std::string_view program = spec.substr(0, spec.find(','));
  return program == "exec:null" || program == "exec:null.py" || program.ends_with("/null.py");
}

}  // namespace

EngineFamily ExecFamily() {
  EngineFamily f;
  f.name = "exec";
  f.summary =
      "any program speaking the external-engine protocol (tools/engines/README.md): "
      "exec:PATH or exec:NAME (tools/engines/NAME.py), key=value passed through";
  f.external = true;
  f.check = [](const std::string& spec) { ExecSpec::Parse(spec); };
  f.make = [](const std::string& spec, const DataShape& shape, const TrainOptions& options) {
    return std::make_unique<ExecLearner>(spec, shape, options);
  };
  f.facts = [](const std::string& spec) {
    const bool reads_text = ExecSpec::Parse(spec).reads_text;
    return SpecFacts{
        .clock_covers =
            std::string(reads_text ? "" : "the shared featurizer on training text, then ") +
            "every process of the engine from \"train\" to each pause and from each "
            "\"resume\": reading the labels (protocol 2) and its own setup in train included; "
            "starting it, the handshake and reading the rows are off the clock, their CPU "
            "counted by phase (tools/engines/README.md)",
        .reads_text = reads_text,
        .threads_run =
            "the engine's own process, told the cell's thread count; its program decides "
            "what runs on them (tools/engines/README.md lists what each shipped one does)",
        .null_engine = IsNullEngine(spec)};
  };
  f.weak_note = [](std::string_view spec, std::string_view) {
    return IsNullEngine(spec)
               ? std::string(
                     "it is the null engine (tools/engines/null.py): it predicts the most frequent "
                     "training labels for every row, the floor every row must beat")
               : std::string();
  };
  return f;
}

}  // namespace sparsebench
