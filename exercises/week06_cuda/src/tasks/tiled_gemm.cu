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
  // BEGIN TASK week06.tiled_gemm (replace the stub below with your code)
  (void)a, (void)b, (void)c, (void)m, (void)k, (void)n;  // your kernel's body
  // END TASK
}

/// The launch (kernels.hpp has the whole contract): blocks of kTile x kTile threads (threadIdx.x
/// along the columns of C), a grid of ceil(n / kTile) x ceil(m / kTile), on `stream`; m or n = 0
/// launches nothing, k = 0 gives zeros.
void matmul_tiled(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m, int k, int n, Stream stream) {
  // BEGIN TASK week06.tiled_gemm (replace the stub below with your code)
  KINDLING_TODO("week06.tiled_gemm");
  // END TASK
}

}  // namespace kindling::cuda
