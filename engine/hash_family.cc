#include "engine/hash_family.h"

#include "engine/dwta_hash.h"
#include "engine/engine_error.h"
#include "engine/srp_hash.h"

namespace sparsebench {

std::unique_ptr<HashFamily> MakeHashFamily(const HashParams& params) {
  if (params.dim == 0 || params.tables == 0 || params.k == 0) {
    throw ConfigError("hash: dim, k and l must be positive");
  }
  if (params.family == "dwta") return std::make_unique<DwtaHash>(params);
  if (params.family == "srp") return std::make_unique<SrpHash>(params);
  if (params.family == "fastsrp") return std::make_unique<FastSrpHash>(params);
  throw ConfigError("unknown hash family '" + params.family + "' (known: dwta, srp, fastsrp, random)");
}

}  // namespace sparsebench
