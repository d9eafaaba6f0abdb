#include "baselines/cpu_bf16.h"

#if defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#include "engine/api/engine_error.h"

namespace sparsebench {

bool CpuHasNativeBf16() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512bf16") != 0;
#elif defined(__aarch64__) && defined(__linux__) && defined(HWCAP2_BF16)
  return (getauxval(AT_HWCAP2) & HWCAP2_BF16) != 0;
#else
  return false;
#endif
}

void RequireNativeBf16(bool native, const std::string& spec) {
  if (native) return;
  throw ConfigError(spec +
                    ": this CPU has no native bf16 arithmetic (x86-64 AVX512_BF16, aarch64 BF16), "
                    "so bf16 would be emulated and slower than fp32; run precision=fp32 here");
}

}  // namespace sparsebench
