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
  // BEGIN TASK week06.warp_tiled_gemm (replace the stub below with your code)
  (void)a, (void)b, (void)c, (void)m, (void)k, (void)n;  // your kernel's body
  // END TASK
}

/// The launch (kernels.hpp has the whole contract): checks its arguments (an Error for negative
/// sizes, or k or n not a multiple of 4) before anything else, then launches blocks of
/// kWarpTiledThreads threads (one dimension), a grid of ceil(n / kWarpBlockN) x
/// ceil(m / kWarpBlockM), on `stream`; m or n = 0 launches nothing, k = 0 gives zeros.
void matmul_warp_tiled(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m, int k, int n,
                       Stream stream) {
  // BEGIN TASK week06.warp_tiled_gemm (replace the stub below with your code)
  KINDLING_TODO("week06.warp_tiled_gemm");
  // END TASK
}

}  // namespace kindling::cuda
