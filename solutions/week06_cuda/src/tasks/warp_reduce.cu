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
  // BEGIN SOLUTION week06.warp_reduce
  // STUB: (void)x, (void)out, (void)cols;  // your kernel's body
  KINDLING_DYNAMIC_SHARED(float, warp_sums);
  const unsigned t = threadIdx.x, lane = t % 32u, warp = t / 32u;
  const DevPtr<const float> row = x + std::int64_t{blockIdx.x} * cols;
  float s = 0.0f;
  for (int j = static_cast<int>(t); j < cols; j += static_cast<int>(blockDim.x)) s += row[j];
  for (unsigned offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
  if (lane == 0) warp_sums[warp] = s;
  __syncthreads();
  if (warp == 0) {
    float v = lane < blockDim.x / 32u ? static_cast<float>(warp_sums[lane]) : 0.0f;
    for (unsigned offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0) out[blockIdx.x] = v;
  }
  // END SOLUTION
}

/// The launch (kernels.hpp has the whole contract): one block per row, of kRowThreads threads, with
/// kRowThreads / 32 floats of dynamic shared memory, on `stream`; rows = 0 launches nothing.
void row_sums_warp(DevPtr<const float> x, DevPtr<float> out, int rows, int cols, Stream stream) {
  // BEGIN SOLUTION week06.warp_reduce
  if (rows == 0) return;
  launch<row_sums_warp_kernel>(
      LaunchConfig{Dim3(static_cast<unsigned>(rows)), Dim3(kRowThreads), kRowThreads / 32 * sizeof(float), stream}, x,
      out, cols);
  // END SOLUTION
}

}  // namespace kindling::cuda
