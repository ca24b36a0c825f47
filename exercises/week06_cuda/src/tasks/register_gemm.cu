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
/// blockIdx.y * kBlockM.., columns blockIdx.x * kBlockN..; each thread of it accumulates
/// kThreadM x kThreadN outputs of that tile in registers (a local array the compiler keeps in
/// registers when its indices are known at compile time). Which outputs a thread owns is yours to
/// choose: a block of neighbours, or rows and columns spread across the tile.
__global__ void matmul_register_blocked_kernel(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m,
                                               int k, int n) {
  // BEGIN TASK week06.register_gemm (replace the stub below with your code)
  (void)a, (void)b, (void)c, (void)m, (void)k, (void)n;  // your kernel's body
  // END TASK
}

/// The launch (kernels.hpp has the whole contract): blocks of kRegisterThreads threads (one
/// dimension), a grid of ceil(n / kBlockN) x ceil(m / kBlockM), on `stream`; m or n = 0 launches
/// nothing, k = 0 gives zeros.
void matmul_register_blocked(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m, int k, int n,
                             Stream stream) {
  // BEGIN TASK week06.register_gemm (replace the stub below with your code)
  KINDLING_TODO("week06.register_gemm");
  // END TASK
}

}  // namespace kindling::cuda
