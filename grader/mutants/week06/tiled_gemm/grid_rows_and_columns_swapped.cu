// MUTANT: grid of ceil(m / kTile) x ceil(n / kTile), m and n swapped: part of a non-square C is never computed
// Task week06.tiled_gemm. The doc comment above each function is its contract; your code goes
// between BEGIN and END (two regions: the kernel and its launch). Hints, one at a time:
// `./grade hint week06.tiled_gemm`.
//
// The grade counts what the kernel reads from global memory (the simulator's counters: exact,
// the same on every run) instead of timing it.

#include <kindling/cuda/kernels.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::cuda {

/// The kernel: block (blockIdx.x, blockIdx.y) computes the kTile x kTile tile of C at rows
/// blockIdx.y * kTile.., columns blockIdx.x * kTile.., through two kTile x kTile arrays of shared
/// memory (`KINDLING_SHARED(float[kTile][kTile], tile);`, which is `__shared__ float
/// tile[kTile][kTile];` under nvcc and a checked array on the simulator).
__global__ void matmul_tiled_kernel(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m, int k,
                                    int n) {
  // BEGIN SOLUTION week06.tiled_gemm
  // STUB: (void)a, (void)b, (void)c, (void)m, (void)k, (void)n;  // your kernel's body
  KINDLING_SHARED(float[kTile][kTile], a_tile);
  KINDLING_SHARED(float[kTile][kTile], b_tile);
  const int ty = static_cast<int>(threadIdx.y), tx = static_cast<int>(threadIdx.x);
  const int row = static_cast<int>(blockIdx.y) * kTile + ty;
  const int col = static_cast<int>(blockIdx.x) * kTile + tx;
  float s = 0.0f;
  for (int p0 = 0; p0 < k; p0 += kTile) {
    a_tile[ty][tx] = row < m && p0 + tx < k ? static_cast<float>(a[std::int64_t{row} * k + p0 + tx]) : 0.0f;
    b_tile[ty][tx] = p0 + ty < k && col < n ? static_cast<float>(b[std::int64_t{p0 + ty} * n + col]) : 0.0f;
    __syncthreads();
    for (int q = 0; q < kTile; ++q) s += a_tile[ty][q] * b_tile[q][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[std::int64_t{row} * n + col] = s;
  // END SOLUTION
}

void matmul_tiled(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m, int k, int n, Stream stream) {
  // BEGIN SOLUTION week06.tiled_gemm
  if (m == 0 || n == 0) return;
  const Dim3 grid(static_cast<unsigned>((m + kTile - 1) / kTile), static_cast<unsigned>((n + kTile - 1) / kTile));
  launch<matmul_tiled_kernel>(LaunchConfig{grid, Dim3(kTile, kTile), 0, stream}, a, b, c, m, k, n);
  // END SOLUTION
}

}  // namespace kindling::cuda
