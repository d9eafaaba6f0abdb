# Every dependency is a Debian package found through find_package; tools/setup installs them.
find_package(OpenMP REQUIRED)
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(FastFloat REQUIRED)
find_package(tomlplusplus REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
# fastText in-process (Debian: libfasttext-dev, 0.9.2; headers in <fasttext/...>).
pkg_check_modules(FASTTEXT REQUIRED IMPORTED_TARGET fasttext)

if(SPARSEBENCH_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(SPARSEBENCH_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
