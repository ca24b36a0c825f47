// MUTANT: shifts by the maximum of the row's first 32 columns (one warp's), not the whole row's
// Task week06.row_softmax. The doc comment above each function is its contract; your code goes
// between BEGIN and END (two regions: the kernel and its launch). Hints, one at a time:
// `./grade hint week06.row_softmax`.

#include <math.h>

#include <kindling/cuda/kernels.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::cuda {

/// The kernel: block r writes the softmax of row r of x (`cols` columns) into row r of y, with
/// kRowThreads floats of dynamic shared memory (KINDLING_DYNAMIC_SHARED(float, name);) for the
/// block's reductions.
__global__ void softmax_rows_kernel(DevPtr<const float> x, DevPtr<float> y, int cols) {
  // BEGIN SOLUTION week06.row_softmax
  // STUB: (void)x, (void)y, (void)cols;  // your kernel's body
  KINDLING_DYNAMIC_SHARED(float, scratch);
  const unsigned t = threadIdx.x;
  const std::int64_t base = std::int64_t{blockIdx.x} * cols;
  const int step = static_cast<int>(blockDim.x);
  float m = -INFINITY;
  for (int j = static_cast<int>(t); j < cols; j += step) m = fmaxf(m, x[base + j]);
  (void)m;
  if (t == 0) {  // the first warp's columns only
    float w = -INFINITY;
    for (int j = 0; j < 32 && j < cols; ++j) w = fmaxf(w, x[base + j]);
    scratch[0] = w;
  }
  __syncthreads();
  const float row_max = scratch[0];
  __syncthreads();  // every thread has read the maximum before scratch is reused
  float s = 0.0f;
  for (int j = static_cast<int>(t); j < cols; j += step) s += expf(x[base + j] - row_max);
  scratch[t] = s;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (t < half) scratch[t] += scratch[t + half];
    __syncthreads();
  }
  const float total = scratch[0];
  for (int j = static_cast<int>(t); j < cols; j += step) y[base + j] = expf(x[base + j] - row_max) / total;
  // END SOLUTION
}

/// The launch (kernels.hpp has the whole contract): one block per row, of kRowThreads threads, with
/// kRowThreads floats of dynamic shared memory, on `stream`; rows = 0 launches nothing. The shift
/// is the maximum of the whole row (every column, not a warp's); NaN or +inf anywhere in a row,
/// or a row of -inf only, gives NaN throughout that row, as in PyTorch.
void softmax_rows(DevPtr<const float> x, DevPtr<float> y, int rows, int cols, Stream stream) {
  // BEGIN SOLUTION week06.row_softmax
  if (rows == 0) return;
  launch<softmax_rows_kernel>(
      LaunchConfig{Dim3(static_cast<unsigned>(rows)), Dim3(kRowThreads), kRowThreads * sizeof(float), stream}, x, y,
      cols);
  // END SOLUTION
}

}  // namespace kindling::cuda
