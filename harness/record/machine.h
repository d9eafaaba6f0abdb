#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sparsebench {

// The hardware that decides whether two runs' raw seconds are comparable: CPU model,
// family/model/stepping (or an Arm CPU's implementer/part/variant/revision) where visible, ISA
// flags, cores and memory in whole GiB. Kernel, hypervisor and BLAS are recorded beside it, not
// in it: another VM of the same hardware is the same machine.
std::string HardwareKey(const nlohmann::json& context);

// The first 8 hex digits of the hardware key's XXH64; "" for a context without the key's
// fields (results written before it was recorded).
std::string MachineFingerprint(const nlohmann::json& context);

// "CPU model, N cores [fingerprint]" (no brackets without a fingerprint): one machine in
// reports, the key that speed-ups and ratios are taken within.
std::string MachineName(const nlohmann::json& context);

// The run contexts a context.json holds: one object (a run) or a list of them (a resumed run,
// a report); anything else in it is skipped.
std::vector<nlohmann::json> ContextsIn(const nlohmann::json& file);

}  // namespace sparsebench
