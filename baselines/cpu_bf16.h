#pragma once

#include <string>

namespace sparsebench {

// Whether this CPU computes in bf16 natively: x86-64 with AVX512_BF16, aarch64
// with the BF16 extension. Elsewhere a bf16 product is emulated in fp32, slower than fp32.
bool CpuHasNativeBf16();

// Throws ConfigError naming `spec` and what the CPU lacks unless `native` (CpuHasNativeBf16()).
void RequireNativeBf16(bool native, const std::string& spec);

}  // namespace sparsebench
