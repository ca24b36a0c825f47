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
  // BEGIN TASK week06.row_softmax (replace the stub below with your code)
  (void)x, (void)y, (void)cols;  // your kernel's body
  // END TASK
}

/// The launch (kernels.hpp has the whole contract): one block per row, of kRowThreads threads, with
/// kRowThreads floats of dynamic shared memory, on `stream`; rows = 0 launches nothing. The shift
/// is the maximum of the whole row (every column, not a warp's); NaN or +inf anywhere in a row,
/// or a row of -inf only, gives NaN throughout that row, as in PyTorch.
void softmax_rows(DevPtr<const float> x, DevPtr<float> y, int rows, int cols, Stream stream) {
  // BEGIN TASK week06.row_softmax (replace the stub below with your code)
  KINDLING_TODO("week06.row_softmax");
  // END TASK
}

}  // namespace kindling::cuda
