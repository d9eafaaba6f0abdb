#pragma once

#include "engine/engine_family.h"

namespace sparsebench {

// The baselines' families: each entry in its own file (blas_family.cc, ...).
inline constexpr char kBlasFamily[] = "blas";
inline constexpr char kTorchFamily[] = "torch";
inline constexpr char kFastTextFamily[] = "fasttext";
EngineFamily BlasFamily();
EngineFamily TorchFamily();
EngineFamily FastTextFamily();

}  // namespace sparsebench
