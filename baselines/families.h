#pragma once

#include <string>

#include "engine/api/engine_family.h"

namespace sparsebench {

// The baselines' families: each entry in its own file (blas_family.cc, ...).
inline constexpr char kBlasFamily[] = "blas";
inline constexpr char kTorchFamily[] = "torch";
inline constexpr char kFastTextFamily[] = "fasttext";
EngineFamily BlasFamily();
// What blas and torch share: a dense baseline whose spec is a DenseSpec of `name` (dense_spec.cc);
// the caller adds `make`.
EngineFamily DenseBaselineFamily(const char* name, std::string summary, std::string threads_run);
EngineFamily TorchFamily();
EngineFamily FastTextFamily();

}  // namespace sparsebench
