# Cross-compiling for aarch64 (Graviton) on a Debian x86-64 machine, against Debian's
# multiarch arm64 packages (sysroot "/"): tools/cross-test aarch64 installs them and uses this
# file through the `aarch64` and `aarch64-neoverse` presets. A Graviton user building natively
# needs none of this.
#   cmake --preset aarch64            (or: cmake -DCMAKE_TOOLCHAIN_FILE=tools/cmake/aarch64-linux-gnu.cmake ...)
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# CMAKE_LIBRARY_ARCHITECTURE makes find_package and find_library search
# /usr/lib/aarch64-linux-gnu (not x86_64-linux-gnu); headers are shared in /usr/include.

# pkg-config must not see the x86-64 .pc files. SPARSEBENCH_CROSS_PREFIXES (a list) adds
# prefixes holding arm64 files that cannot be installed system-wide next to their amd64
# twins (tools/cross-test unpacks libfasttext-dev:arm64 there); they come first.
set(_sparsebench_pc_dirs /usr/lib/aarch64-linux-gnu/pkgconfig /usr/share/pkgconfig)
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SPARSEBENCH_CROSS_PREFIXES)
foreach(_prefix IN LISTS SPARSEBENCH_CROSS_PREFIXES)
  list(PREPEND _sparsebench_pc_dirs ${_prefix}/lib/aarch64-linux-gnu/pkgconfig)
  list(PREPEND CMAKE_PREFIX_PATH ${_prefix})
endforeach()
list(JOIN _sparsebench_pc_dirs ":" _sparsebench_pc_libdir)
set(ENV{PKG_CONFIG_LIBDIR} "${_sparsebench_pc_libdir}")
unset(ENV{PKG_CONFIG_PATH})

# Test programs run under qemu user-mode emulation: gtest_discover_tests at build time and
# ctest use this. Child processes the tests start (the harness runs each cell as a child)
# need the kernel's binfmt_misc entry for qemu-aarch64, which tools/cross-test registers.
find_program(SPARSEBENCH_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(SPARSEBENCH_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${SPARSEBENCH_QEMU_AARCH64})
endif()
