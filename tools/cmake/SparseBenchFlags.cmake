# Compiler flags shared by every target, collected on one interface library.
add_library(sparsebench_flags INTERFACE)
target_compile_options(sparsebench_flags INTERFACE -Wall -Wextra -Wno-unused-parameter -fno-math-errno $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict>)
target_include_directories(sparsebench_flags INTERFACE ${PROJECT_SOURCE_DIR})

string(TOLOWER "${SPARSEBENCH_ISA}" _isa)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$")
  set(_arch aarch64)
else()
  set(_arch x86_64)
endif()
# Levels per architecture; never -march=native unless asked for by name.
#   x86-64:  portable (the x86-64 baseline), avx2 (Haswell+), avx512 (Skylake-SP+), native
#   aarch64: portable (armv8-a, what a Graviton user gets by default; runs on every Graviton),
#            neoverse (-mcpu=neoverse-v1: Graviton3/c7g and newer: armv8.4-a + SVE + BF16 +
#            I8MM, tuned for Neoverse V1; does not run on Graviton2/c6g), native (-mcpu=native)
# portable also means the same results on both architectures: -ffp-contract=off keeps the
# compiler from fusing a*b+c into one fused multiply-add (one rounding instead of two), which
# GCC does by default wherever the ISA has the instruction: armv8-a always, the x86-64
# baseline never (so on x86-64 it changes no instruction). The other levels keep contraction.
if(_isa STREQUAL "portable")
  # Baseline of the target architecture: x86-64 or armv8-a; the compiler's default.
  target_compile_options(sparsebench_flags INTERFACE -ffp-contract=off)
elseif(_isa MATCHES "^(avx2|avx512)$" AND NOT _arch STREQUAL "x86_64")
  message(FATAL_ERROR "SPARSEBENCH_ISA=${_isa} is an x86-64 level; on ${_arch} use portable, neoverse or native")
elseif(_isa STREQUAL "neoverse" AND NOT _arch STREQUAL "aarch64")
  message(FATAL_ERROR "SPARSEBENCH_ISA=neoverse is an aarch64 level; on ${_arch} use portable, avx2, avx512 or native")
elseif(_isa STREQUAL "avx2")
  target_compile_options(sparsebench_flags INTERFACE -mavx2 -mfma -mbmi2)
elseif(_isa STREQUAL "avx512")
  target_compile_options(sparsebench_flags INTERFACE -mavx512f -mavx512bw -mavx512vl -mavx512dq -mfma -mbmi2 -mprefer-vector-width=512)
elseif(_isa STREQUAL "neoverse")
  target_compile_options(sparsebench_flags INTERFACE -mcpu=neoverse-v1)
elseif(_isa STREQUAL "native" AND _arch STREQUAL "aarch64")
  target_compile_options(sparsebench_flags INTERFACE -mcpu=native)
elseif(_isa STREQUAL "native")
  target_compile_options(sparsebench_flags INTERFACE -march=native)
else()
  message(FATAL_ERROR "SPARSEBENCH_ISA must be portable, avx2, avx512, neoverse or native (got '${SPARSEBENCH_ISA}')")
endif()
message(STATUS "SparseBench instruction-set level: ${_isa} (${_arch})")

if(SPARSEBENCH_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SPARSEBENCH_FUZZ needs clang (libFuzzer); configure with the fuzz preset")
  endif()
  # Coverage instrumentation for libFuzzer everywhere; the fuzzers link -fsanitize=fuzzer.
  target_compile_options(sparsebench_flags INTERFACE -fsanitize=fuzzer-no-link,address,undefined
                         -fno-sanitize-recover=undefined -fno-omit-frame-pointer -Wno-pass-failed)
  target_link_options(sparsebench_flags INTERFACE -fsanitize=address,undefined)
elseif(SPARSEBENCH_SANITIZE)
  target_compile_options(sparsebench_flags INTERFACE -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(sparsebench_flags INTERFACE -fsanitize=address,undefined)
endif()

# The flags and ISA the binaries were built with, recorded in every result's context.
set(SPARSEBENCH_BUILD_FLAGS "${CMAKE_BUILD_TYPE} ${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${CMAKE_BUILD_TYPE}} isa=${_isa}")
