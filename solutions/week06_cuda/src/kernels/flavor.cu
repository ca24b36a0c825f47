// Which build of the kernels a program links (runtime.hpp, kernels_built_for_device): nvcc compiles
// this file into the device build, the host compiler into the simulator's, so the answer travels
// with the kernels themselves.

#include <kindling/cuda/kernel.hpp>
#include <kindling/cuda/runtime.hpp>

namespace kindling::cuda {

bool kernels_built_for_device() {
#if defined(__CUDACC__)
  return true;
#else
  return false;
#endif
}

}  // namespace kindling::cuda
