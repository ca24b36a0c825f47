// Task week06.transpose. The doc comment above each function is its contract; your code goes
// between BEGIN and END (two regions: the kernel and its launch). Hints, one at a time:
// `./grade hint week06.transpose`.
//
// The grade reads the simulator's memory counters (exact, the same on every run): the 32-byte
// sectors your warps touch in global memory against the fewest their bytes need, and the bank
// conflicts of your shared-memory accesses.

#include <kindling/cuda/kernels.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::cuda {

/// The kernel: block (blockIdx.x, blockIdx.y), of kTransposeTile x kTransposeRows threads, moves
/// the kTransposeTile x kTransposeTile tile of `in` at rows blockIdx.y * kTransposeTile..,
/// columns blockIdx.x * kTransposeTile.. to its place in `out` through one array of shared memory
/// (`KINDLING_SHARED(float[R][C], tile);`, which is `__shared__ float tile[R][C];` under nvcc and
/// a checked array on the simulator). Row r of `in` starts at in + r * ld. Each warp's reads from
/// `in` and its writes to `out` are each 32 consecutive floats, and no two lanes of a warp touch
/// one bank of shared memory with different words.
__global__ void transpose_kernel(DevPtr<const float> in, DevPtr<float> out, int rows, int cols, int ld) {
  // BEGIN TASK week06.transpose (replace the stub below with your code)
  (void)in, (void)out, (void)rows, (void)cols, (void)ld;  // your kernel's body
  // END TASK
}

/// The launch (kernels.hpp has the whole contract): checks its arguments (an Error for negative
/// sizes or ld < cols) before anything else, then launches blocks of
/// kTransposeTile x kTransposeRows threads, a grid of ceil(cols / kTransposeTile) x
/// ceil(rows / kTransposeTile), on `stream`; rows or cols = 0 launches nothing.
void transpose(DevPtr<const float> in, DevPtr<float> out, int rows, int cols, int ld, Stream stream) {
  // BEGIN TASK week06.transpose (replace the stub below with your code)
  KINDLING_TODO("week06.transpose");
  // END TASK
}

}  // namespace kindling::cuda
