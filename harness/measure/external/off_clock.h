#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sparsebench {

// An external cell's CPU seconds by phase, over every process of the engine
// (tools/engines/README.md, "What the harness measures and checks").
struct PhaseCpu {
  double startup = 0;        // from start to its hello
  double load = 0;           // from hello to "train": reading the data (labels too, in protocol 1)
  double train = 0;          // on the clock
  double pause = 0;          // in pauses, answering the harness's predictions
  double after = 0;          // after "done": the test set's predictions, latency rows, save, quit
  double after_predict = 0;  // of `after`: the test set's predictions
  uint64_t pause_rows = 0;   // rows predicted in pauses
  uint64_t pause_requests = 0;  // prediction requests in pauses
  // The model's size (the engine's model_bytes, at most its measured peak memory), in GB.
  double model_gb = 0;
  uint64_t after_rows = 0;  // rows of the test set's predictions
  // What the harness's reference reader (ReferenceReadCpuSeconds) spends reading the files
  // `load` hands the engine.
  double reference_read = 0;
};

// The rule that marks work off the clock that looks like learning rather than reading or
// predicting; each sentence names a phase and its figures, none when nothing looks so:
// - load: more than kLoadFactor times the reference reader's CPU, plus kLoadSlack seconds;
// - pauses: more than kPredictFactor times what the pauses' predictions would cost at the CPU
//   per row of the test set's predictions after "done", plus kModelPassSeconds per GB of
//   model for each request (getting the model ready to predict after training changed it,
//   e.g. a transposed copy of the weights), plus kPredictSlack seconds;
// - the test set's predictions after "done": more than kPredictFactor times the CPU per row
//   the pauses' predictions took, plus kPredictSlack seconds (checked where pauses predicted).
inline constexpr double kLoadFactor = 10, kLoadSlack = 2, kPredictFactor = 3, kPredictSlack = 1,
                        kModelPassSeconds = 1;
std::vector<std::string> OffClockWork(const PhaseCpu& cpu);

// The CPU seconds a plain reader (each line parsed into a JSON value, as an engine's reader
// does at the least) spends on `path`: measured on its first 16 MB and scaled to the whole.
double ReferenceReadCpuSeconds(const std::string& path);

}  // namespace sparsebench
