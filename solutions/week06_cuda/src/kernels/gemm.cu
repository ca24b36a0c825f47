// The engine's matrix product on the device: C[z] = alpha A[z] B[z] (+ C[z]), any strides, a batch
// along the grid's z, 16 x 16 tiles through shared memory. The kit's own kernel, for the simulator
// (and for a device build until cuBLAS is linked: issue 29's device half). One source for nvcc and
// the simulator.

#include "common.hpp"

namespace kindling::cuda::kernels {
namespace {

constexpr int kSide = 16;

template <class T>
__global__ void gemm_kernel(DevPtr<T> c, DevPtr<const T> a, DevPtr<const T> b, GemmLayout L, T alpha, bool accumulate) {
  __shared__ T a_tile[kSide][kSide];
  __shared__ T b_tile[kSide][kSide];
  const int ty = static_cast<int>(threadIdx.y), tx = static_cast<int>(threadIdx.x);
  const std::int64_t z = blockIdx.z;
  const std::int64_t row = std::int64_t{blockIdx.y} * kSide + ty;
  const std::int64_t col = std::int64_t{blockIdx.x} * kSide + tx;
  const std::int64_t a0 = L.a_offset + z * L.a_batch, b0 = L.b_offset + z * L.b_batch;
  T s = 0;
  for (std::int64_t p0 = 0; p0 < L.k; p0 += kSide) {
    a_tile[ty][tx] = row < L.m && p0 + tx < L.k ? static_cast<T>(a[a0 + row * L.a_row + (p0 + tx) * L.a_col]) : T(0);
    b_tile[ty][tx] = p0 + ty < L.k && col < L.n ? static_cast<T>(b[b0 + (p0 + ty) * L.b_row + col * L.b_col]) : T(0);
    __syncthreads();
    for (int q = 0; q < kSide; ++q) s += a_tile[ty][q] * b_tile[q][tx];
    __syncthreads();
  }
  if (row < L.m && col < L.n) {
    const std::int64_t at = L.c_offset + z * L.c_batch + row * L.c_row + col * L.c_col;
    const T v = alpha * s;
    if (accumulate)
      c[at] = static_cast<T>(static_cast<T>(c[at]) + v);
    else
      c[at] = v;
  }
}

}  // namespace

void gemm(ScalarType type, const void* c, const void* a, const void* b, const GemmLayout& layout, double alpha,
          bool accumulate, void* stream) {
  if (layout.m == 0 || layout.n == 0 || layout.batch == 0) return;
  const LaunchConfig config{
      Dim3(static_cast<unsigned>((layout.n + kSide - 1) / kSide), static_cast<unsigned>((layout.m + kSide - 1) / kSide),
           static_cast<unsigned>(layout.batch)),
      Dim3(kSide, kSide), 0, stream};
  if (type == ScalarType::Float32)
    launch<gemm_kernel<float>>(config, device_ptr<float>(c), device_ptr<const float>(a), device_ptr<const float>(b),
                               layout, static_cast<float>(alpha), accumulate);
  else
    launch<gemm_kernel<double>>(config, device_ptr<double>(c), device_ptr<const double>(a), device_ptr<const double>(b),
                                layout, alpha, accumulate);
}

}  // namespace kindling::cuda::kernels
