// MUTANT: rows of B past k loaded without a guard: out of bounds when k is not a multiple of 8
// Task week06.warp_tiled_gemm (a stretch step: register_gemm first). The doc comment above each
// function is its contract; your code goes between BEGIN and END (two regions: the kernel and its
// launch). Hints, one at a time: `./grade hint week06.warp_tiled_gemm`.
//
// The grade reads the simulator's counters (exact, the same on every run): load instructions (a
// float4 counts one), barriers per step along k, shared-memory bank conflicts and global sectors.
// Its speed against cuBLAS shows only on a GPU.

#include <kindling/cuda/kernels.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::cuda {

/// The kernel: block (blockIdx.x, blockIdx.y), of kWarpTiledThreads threads, computes the
/// kWarpBlockM x kWarpBlockN tile of C at rows blockIdx.y * kWarpBlockM.., columns
/// blockIdx.x * kWarpBlockN..; warp w of the block computes one kWarpTileM x kWarpTileN part of
/// that tile, 8 x 8 outputs per lane, kept in registers. Global memory and the shared tiles are read
/// (and C written) a float4 at a time (`as_float4(p)[0]`); the shared tiles are double-buffered, so
/// that one __syncthreads per step along k suffices; and no two lanes of a warp touch one
/// shared-memory bank with different words. Which outputs a lane owns, and how the tiles are laid
/// out in shared memory, is yours to choose.
__global__ void matmul_warp_tiled_kernel(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m, int k,
                                         int n) {
  // BEGIN SOLUTION week06.warp_tiled_gemm
  // STUB: (void)a, (void)b, (void)c, (void)m, (void)k, (void)n;  // your kernel's body
  // A's tile is stored transposed (a lane's 4 rows of A side by side, for one float4 read), with 4
  // floats of padding per row: the two lanes that store one row of A's tile then write 4 rows
  // apart, 16 banks apart, where without padding they would share a bank. A row of 132 floats is
  // still a whole number of float4s.
  constexpr int kPad = 4;
  KINDLING_SHARED(float[2][kWarpBlockK][kWarpBlockM + kPad], a_tile);
  KINDLING_SHARED(float[2][kWarpBlockK][kWarpBlockN], b_tile);
  constexpr int kQuadsK = kWarpBlockK / 4, kQuadsN = kWarpBlockN / 4;  // float4s per row of each tile
  static_assert(kWarpBlockM * kQuadsK == static_cast<int>(kWarpTiledThreads) &&
                    kWarpBlockK * kQuadsN == static_cast<int>(kWarpTiledThreads),
                "each thread copies one float4 of each tile per step");
  const int t = static_cast<int>(threadIdx.x);
  const int row0 = static_cast<int>(blockIdx.y) * kWarpBlockM, col0 = static_cast<int>(blockIdx.x) * kWarpBlockN;
  // The float4 this thread copies per step: of A, row a_r, columns p0 + a_q..; of B, row p0 + b_q,
  // columns b_j... A warp reads 16 rows of 32 bytes of A, and 512 consecutive bytes of B.
  const int a_r = t / kQuadsK, a_q = t % kQuadsK * 4;
  const int b_q = t / kQuadsN, b_j = t % kQuadsN * 4;
  const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  const auto load_a = [&](int p0) {
    return row0 + a_r < m && p0 + a_q < k ? as_float4(a + (std::int64_t{row0 + a_r} * k + p0 + a_q))[0] : zero;
  };
  const auto load_b = [&](int p0) {
    return col0 + b_j < n ? as_float4(b + (std::int64_t{p0 + b_q} * n + col0 + b_j))[0] : zero;
  };
  const auto store = [&](int buf, float4 av, float4 bv) {
    a_tile[buf][a_q + 0][a_r] = av.x;
    a_tile[buf][a_q + 1][a_r] = av.y;
    a_tile[buf][a_q + 2][a_r] = av.z;
    a_tile[buf][a_q + 3][a_r] = av.w;
    as_float4(&b_tile[buf][b_q][b_j])[0] = bv;
  };
  // The warp's part of the tile, and the lane's outputs in it: lanes as 8 rows x 4 columns; lane
  // (ly, lx) owns rows wm + 4 ly + {0..3, 32..35} and columns wn + 4 lx + {0..3, 16..19}. In each
  // phase of a float4 read (8 lanes) the lanes then read 2 neighbouring float4s of A's row and 4
  // of B's: different banks, or the same word.
  constexpr int kWarpsN = kWarpBlockN / kWarpTileN;
  const int warp = t / 32, lane = t % 32;
  const int wm = warp / kWarpsN * kWarpTileM, wn = warp % kWarpsN * kWarpTileN;
  const int rows_at = wm + lane / 4 * 4, cols_at = wn + lane % 4 * 4;
  float acc[8][8] = {};
  const int steps = (k + kWarpBlockK - 1) / kWarpBlockK;
  if (steps > 0) {
    store(0, load_a(0), load_b(0));
    __syncthreads();
  }
  for (int s = 0; s < steps; ++s) {
    const int cur = s % 2;
    const bool more = s + 1 < steps;
    // Start the next step's loads before this step's products (a GPU overlaps the two).
    const float4 next_a = more ? load_a((s + 1) * kWarpBlockK) : zero;
    const float4 next_b = more ? load_b((s + 1) * kWarpBlockK) : zero;
    KINDLING_UNROLL
    for (int q = 0; q < kWarpBlockK; ++q) {
      const float4 a0 = as_float4(&a_tile[cur][q][rows_at])[0], a1 = as_float4(&a_tile[cur][q][rows_at + 32])[0];
      const float4 b0 = as_float4(&b_tile[cur][q][cols_at])[0], b1 = as_float4(&b_tile[cur][q][cols_at + 16])[0];
      const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
      KINDLING_UNROLL
      for (int i = 0; i < 8; ++i) KINDLING_UNROLL
      for (int j = 0; j < 8; ++j) acc[i][j] += av[i] * bv[j];
    }
    // The other buffer: its last readers finished before the barrier that ended the previous step.
    if (more) store(1 - cur, next_a, next_b);
    __syncthreads();
  }
  KINDLING_UNROLL
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + rows_at + i % 4 + i / 4 * 32;
    KINDLING_UNROLL
    for (int g = 0; g < 2; ++g) {
      const int col = col0 + cols_at + g * 16;  // n is a multiple of 4: a float4 is all in or all out
      if (r < m && col < n)
        as_float4(c + (std::int64_t{r} * n + col))[0] =
            make_float4(acc[i][4 * g], acc[i][4 * g + 1], acc[i][4 * g + 2], acc[i][4 * g + 3]);
    }
  }
  // END SOLUTION
}

/// The launch (kernels.hpp has the whole contract): checks its arguments (an Error for negative
/// sizes, or k or n not a multiple of 4) before anything else, then launches blocks of
/// kWarpTiledThreads threads (one dimension), a grid of ceil(n / kWarpBlockN) x
/// ceil(m / kWarpBlockM), on `stream`; m or n = 0 launches nothing, k = 0 gives zeros.
void matmul_warp_tiled(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m, int k, int n,
                       Stream stream) {
  // BEGIN SOLUTION week06.warp_tiled_gemm
  KINDLING_CHECK(m >= 0 && k >= 0 && n >= 0, "matmul_warp_tiled: sizes must not be negative, got m = ", m, ", k = ", k,
                 ", n = ", n);
  KINDLING_CHECK(k % 4 == 0 && n % 4 == 0,
                 "matmul_warp_tiled: k and n must be multiples of 4 (rows of float4s), got k = ", k, " and n = ", n);
  if (m == 0 || n == 0) return;
  const Dim3 grid(static_cast<unsigned>((n + kWarpBlockN - 1) / kWarpBlockN),
                  static_cast<unsigned>((m + kWarpBlockM - 1) / kWarpBlockM));
  launch<matmul_warp_tiled_kernel>(LaunchConfig{grid, Dim3(kWarpTiledThreads), 0, stream}, a, b, c, m, k, n);
  // END SOLUTION
}

}  // namespace kindling::cuda
