// MUTANT: thread 0 adds all partial sums alone, padded with the barriers a tree would pass: no tree
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
  // BEGIN SOLUTION week06.block_reduce
  // STUB: (void)x, (void)out, (void)cols;  // your kernel's body
  KINDLING_DYNAMIC_SHARED(float, partial);
  const unsigned t = threadIdx.x;
  const DevPtr<const float> row = x + std::int64_t{blockIdx.x} * cols;
  float s = 0.0f;
  for (int j = static_cast<int>(t); j < cols; j += static_cast<int>(blockDim.x)) s += row[j];
  partial[t] = s;
  __syncthreads();
  if (t == 0) {
    float total = 0.0f;
    for (unsigned i = 0; i < blockDim.x; ++i) total += partial[i];
    out[blockIdx.x] = total;
  }
  for (int i = 0; i < 8; ++i) __syncthreads();  // as many barriers as a tree of 256 has
  // END SOLUTION
}

void row_sums_shared(DevPtr<const float> x, DevPtr<float> out, int rows, int cols, Stream stream) {
  // BEGIN SOLUTION week06.block_reduce
  if (rows == 0) return;
  launch<row_sums_shared_kernel>(
      LaunchConfig{Dim3(static_cast<unsigned>(rows)), Dim3(kRowThreads), kRowThreads * sizeof(float), stream}, x, out,
      cols);
  // END SOLUTION
}

}  // namespace kindling::cuda
