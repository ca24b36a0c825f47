// Task week06.elementwise_kernel. The doc comment above each function is its contract; your
// code goes between BEGIN and END (two regions: the kernel and its launch). Hints, one at a
// time: `./grade hint week06.elementwise_kernel`.
//
// A kernel file is compiled twice: by nvcc for a GPU, and by the host compiler for the kit's
// CUDA simulator, which runs every thread and reports what a GPU would not tell you (an
// access out of bounds names the kernel, the block and the thread).

#include <kindling/cuda/kernels.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::cuda {

/// The kernel: each thread starts at its global index (blockIdx.x * blockDim.x + threadIdx.x)
/// and strides by the number of threads in the grid (blockDim.x * gridDim.x), setting
/// y[i] = a * x[i] + y[i] for each i < n it visits.
__global__ void axpy_kernel(float a, DevPtr<const float> x, DevPtr<float> y, std::int64_t n) {
  // BEGIN SOLUTION week06.elementwise_kernel
  // STUB: (void)a, (void)x, (void)y, (void)n;  // your kernel's body
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = a * x[i] + y[i];
  // END SOLUTION
}

/// The launch (kernels.hpp has the whole contract): min(ceil(n / kAxpyThreads), kAxpyMaxBlocks)
/// blocks of kAxpyThreads threads on `stream`; n = 0 launches nothing. n may exceed 2^31: the
/// indices are 64-bit.
void axpy(float a, DevPtr<const float> x, DevPtr<float> y, std::int64_t n, Stream stream) {
  // BEGIN SOLUTION week06.elementwise_kernel
  if (n == 0) return;
  const std::int64_t wanted = (n + kAxpyThreads - 1) / kAxpyThreads;
  const auto blocks = static_cast<unsigned>(wanted < kAxpyMaxBlocks ? wanted : kAxpyMaxBlocks);
  launch<axpy_kernel>(LaunchConfig{Dim3(blocks), Dim3(kAxpyThreads), 0, stream}, a, x, y, n);
  // END SOLUTION
}

}  // namespace kindling::cuda
