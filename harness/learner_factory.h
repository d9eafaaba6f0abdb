#pragma once

#include <memory>
#include <string>

#include "engine/learner.h"

namespace sparsebench {

// Builds any engine from its spec string by family (sparse, text, blas, torch, fasttext).
std::unique_ptr<Learner> MakeLearner(const std::string& spec, const DataShape& shape,
                                     const TrainOptions& options);

// ConfigError when MakeLearner would refuse the spec for any data: an unknown family, or
// settings its family's parser rejects. Parses only; builds and allocates nothing.
void CheckEngineSpec(const std::string& spec);

}  // namespace sparsebench
