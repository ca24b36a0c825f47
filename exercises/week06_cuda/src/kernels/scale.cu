// The kit's own small kernel for the pipeline of asynchronous copies: y = s * x.

#include <kindling/cuda/kernels.hpp>

namespace kindling::cuda {

namespace {
__global__ void scale_kernel(DevPtr<const float> x, DevPtr<float> y, float s, std::int64_t n) {
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = s * x[i];
}
}  // namespace

void scale(DevPtr<const float> x, DevPtr<float> y, float s, std::int64_t n, Stream stream) {
  if (n == 0) return;
  const std::int64_t blocks = (n + 255) / 256;
  launch<scale_kernel>(LaunchConfig{Dim3(static_cast<unsigned>(blocks < 16 ? blocks : 16)), Dim3(256), 0, stream}, x, y,
                       s, n);
}

}  // namespace kindling::cuda
