#include "engine/train/families.h"
#include "engine/train/text_learner.h"

namespace sparsebench {

EngineFamily TextFamily() {
  EngineFamily f;
  f.name = kTextFamily;
  f.summary =
      "our engine on raw text end to end (BOLT's UDT): hashed uni- and bigrams, then the sparse "
      "MLP";
  f.reads_text = true;
  f.needs_text = true;
  f.ours = true;
  f.check = [](const std::string& spec) { TextConfig::Parse(spec); };
  f.make = [](const std::string& spec, const DataShape& shape, const TrainOptions& options) {
    return std::make_unique<TextLearner>(spec, shape, options);
  };
  f.facts = [](const std::string& spec) {
    SpecFacts facts;
    facts.all_outputs_active = TextConfig::Parse(spec).out_sparsity >= 1.0;
    facts.threads_run =
        "the featurizer split by rows, then our engine's batches: each batch's samples split over "
        "them, then the output rows' gradient sums and Adam updates (OpenMP barriers between)";
    facts.clock_covers =
        "featurizing the training text, network init, every pass, held-out checks for early "
        "stopping";
    return facts;
  };
  return f;
}

}  // namespace sparsebench
