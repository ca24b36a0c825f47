// Task week06.block_reduce. The doc comment above each function is its contract; your code goes
// between BEGIN and END (two regions: the kernel and its launch). Hints, one at a time:
// `./grade hint week06.block_reduce`.
//
// The simulator runs every launch in several thread orders from the same memory: a reduction
// whose result depends on which thread ran first is reported as a race, with the kernel's name.

#include <kindling/cuda/kernels.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::cuda {

/// The kernel: block r sums row r of x (`cols` columns) into out[r], through kRowThreads floats
/// of dynamic shared memory (declare them with KINDLING_DYNAMIC_SHARED(float, name);).
__global__ void row_sums_shared_kernel(DevPtr<const float> x, DevPtr<float> out, int cols) {
  // BEGIN TASK week06.block_reduce (replace the stub below with your code)
  (void)x, (void)out, (void)cols;  // your kernel's body
  // END TASK
}

/// The launch (kernels.hpp has the whole contract): one block per row, of kRowThreads threads, with
/// kRowThreads floats of dynamic shared memory, on `stream`; rows = 0 launches nothing. The block
/// combines its partial sums as a tree (pairs, then pairs of pairs, ...), so that no thread reads
/// more than about 2 log2(kRowThreads) of them; finishing the tree with warp shuffles is fine.
void row_sums_shared(DevPtr<const float> x, DevPtr<float> out, int rows, int cols, Stream stream) {
  // BEGIN TASK week06.block_reduce (replace the stub below with your code)
  KINDLING_TODO("week06.block_reduce");
  // END TASK
}

}  // namespace kindling::cuda
