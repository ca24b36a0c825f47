// MUTANT: grid of ceil(m / kBlockM) x ceil(n / kBlockN), m and n swapped: part of a non-square C is never computed
// Task week06.register_gemm. The doc comment above each function is its contract; your code goes
// between BEGIN and END (two regions: the kernel and its launch). Hints, one at a time:
// `./grade hint week06.register_gemm`.
//
// Its correctness and its global-memory traffic are graded on the simulator; its speed against
// cuBLAS only on a GPU (elsewhere those points show as needs_gpu: neither lost nor counted).

#include <kindling/cuda/kernels.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::cuda {

/// The kernel: block (blockIdx.x, blockIdx.y) computes the kBlockM x kBlockN tile of C at rows
/// blockIdx.y * kBlockM.., columns blockIdx.x * kBlockN..; thread t of it accumulates a
/// kThreadM x kThreadN block of that tile in registers (a local array the compiler keeps in
/// registers when its indices are known at compile time).
__global__ void matmul_register_blocked_kernel(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m,
                                               int k, int n) {
  // BEGIN SOLUTION week06.register_gemm
  // STUB: (void)a, (void)b, (void)c, (void)m, (void)k, (void)n;  // your kernel's body
  KINDLING_SHARED(float[kBlockM][kBlockK], a_tile);
  KINDLING_SHARED(float[kBlockK][kBlockN], b_tile);
  const int t = static_cast<int>(threadIdx.x);
  const int row0 = static_cast<int>(blockIdx.y) * kBlockM, col0 = static_cast<int>(blockIdx.x) * kBlockN;
  const int ty = t / (kBlockN / kThreadN), tx = t % (kBlockN / kThreadN);  // this thread's block of outputs
  constexpr int kThreads = static_cast<int>(kRegisterThreads);
  float acc[kThreadM][kThreadN] = {};
  for (int p0 = 0; p0 < k; p0 += kBlockK) {
    for (int e = t; e < kBlockM * kBlockK; e += kThreads) {  // the A tile, kBlockK consecutive floats per row
      const int r = e / kBlockK, q = e % kBlockK;
      a_tile[r][q] = row0 + r < m && p0 + q < k ? static_cast<float>(a[std::int64_t{row0 + r} * k + p0 + q]) : 0.0f;
    }
    for (int e = t; e < kBlockK * kBlockN; e += kThreads) {  // the B tile, kBlockN consecutive floats per row
      const int q = e / kBlockN, j = e % kBlockN;
      b_tile[q][j] = p0 + q < k && col0 + j < n ? static_cast<float>(b[std::int64_t{p0 + q} * n + col0 + j]) : 0.0f;
    }
    __syncthreads();
    for (int q = 0; q < kBlockK; ++q) {
      float a_col[kThreadM], b_row[kThreadN];
      for (int i = 0; i < kThreadM; ++i) a_col[i] = a_tile[ty * kThreadM + i][q];
      for (int j = 0; j < kThreadN; ++j) b_row[j] = b_tile[q][tx * kThreadN + j];
      for (int i = 0; i < kThreadM; ++i)
        for (int j = 0; j < kThreadN; ++j) acc[i][j] += a_col[i] * b_row[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < kThreadM; ++i)
    for (int j = 0; j < kThreadN; ++j) {
      const int r = row0 + ty * kThreadM + i, col = col0 + tx * kThreadN + j;
      if (r < m && col < n) c[std::int64_t{r} * n + col] = acc[i][j];
    }
  // END SOLUTION
}

void matmul_register_blocked(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m, int k, int n,
                             Stream stream) {
  // BEGIN SOLUTION week06.register_gemm
  if (m == 0 || n == 0) return;
  const Dim3 grid(static_cast<unsigned>((m + kBlockM - 1) / kBlockM),
                  static_cast<unsigned>((n + kBlockN - 1) / kBlockN));
  launch<matmul_register_blocked_kernel>(LaunchConfig{grid, Dim3(kRegisterThreads), 0, stream}, a, b, c, m, k, n);
  // END SOLUTION
}

}  // namespace kindling::cuda
