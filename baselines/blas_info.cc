#include "baselines/blas_info.h"

#include <cblas.h>

namespace sparsebench {

std::map<std::string, std::string> BlasContext() {
  const char* models[] = {"sequential", "pthreads", "openmp"};
  const int parallel = openblas_get_parallel();
  return {{"blas_backend", std::string("OpenBLAS ") + openblas_get_config()},
          {"blas_core", openblas_get_corename()},
          {"blas_threading", parallel >= 0 && parallel <= 2 ? models[parallel] : "unknown"},
          {"blas_threads", std::to_string(openblas_get_num_threads())}};
}

}  // namespace sparsebench
