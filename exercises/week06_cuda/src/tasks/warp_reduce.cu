// Task week06.warp_reduce. The doc comment above each function is its contract; your code goes
// between BEGIN and END (two regions: the kernel and its launch). Hints, one at a time:
// `./grade hint week06.warp_reduce`.
//
// A warp's 32 lanes exchange registers with __shfl_down_sync / __shfl_xor_sync; the mask names
// the lanes that take part, and every lane it names must reach the same call (the simulator
// reports a lane that has already returned).

#include <kindling/cuda/kernels.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::cuda {

/// The kernel: block r sums row r of x (`cols` columns) into out[r], each warp with shuffles,
/// one value per warp through kRowThreads / 32 floats of dynamic shared memory
/// (KINDLING_DYNAMIC_SHARED(float, name);) and a single __syncthreads.
__global__ void row_sums_warp_kernel(DevPtr<const float> x, DevPtr<float> out, int cols) {
  // BEGIN TASK week06.warp_reduce (replace the stub below with your code)
  (void)x, (void)out, (void)cols;  // your kernel's body
  // END TASK
}

/// The launch (kernels.hpp has the whole contract): one block per row, of kRowThreads threads, with
/// kRowThreads / 32 floats of dynamic shared memory, on `stream`; rows = 0 launches nothing.
void row_sums_warp(DevPtr<const float> x, DevPtr<float> out, int rows, int cols, Stream stream) {
  // BEGIN TASK week06.warp_reduce (replace the stub below with your code)
  KINDLING_TODO("week06.warp_reduce");
  // END TASK
}

}  // namespace kindling::cuda
