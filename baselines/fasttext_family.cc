#include "baselines/families.h"
#include "baselines/fasttext_learner.h"

namespace sparsebench {
namespace {

// Measured, with the loss modes, epochs and learning rates tried: baselines/README.md, "Measured".
std::string WeakNote(std::string_view /*spec*/, std::string_view metric) {
  if (!metric.starts_with("p_at")) return "";
  return "fastText's input is the unweighted mean of a row's token vectors (`values=repeat` "
         "repeats a token by its value, up to 10 times), and in this data about half of each "
         "row's features are background shared by most rows, which the other engines' "
         "value-weighted input layer discounts (measured, with the loss modes, epochs and "
         "learning rates tried: baselines/README.md, \"Measured\")";
}

}  // namespace

EngineFamily FastTextFamily() {
  EngineFamily f;
  f.name = kFastTextFamily;
  f.summary =
      "fastText's supervised mode in-process (Debian's libfasttext), its own recipe or autotune";
  f.reads_text = true;
  f.check = FastTextLearner::CheckSpec;
  f.make = [](const std::string& spec, const DataShape& shape, const TrainOptions& options) {
    return std::make_unique<FastTextLearner>(spec, shape, options);
  };
  f.facts = [](const std::string& spec) {
    FastTextLearner::CheckSpec(spec);
    return SpecFacts{
        .clock_covers =
            "dictionary building, autotune's search and retrain when asked, every epoch",
        .threads_run =
            "HOGWILD: each thread trains on its own share of the rows, lock-free on the "
            "shared weights; the dictionary is read on one"};
  };
  f.weak_note = WeakNote;
  return f;
}

}  // namespace sparsebench
