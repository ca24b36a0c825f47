// Task week06.strided_contiguous. The doc comment above each function is its contract; your
// code goes between BEGIN and END (two regions: the kernel and the host function). Hints, one
// at a time: `./grade hint week06.strided_contiguous`.

#include <kindling/cuda/kernels.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>

namespace kindling::cuda {

/// The kernel: out[i] = in[where element i lives], for every i < n, where i counts the
/// elements of `layout`'s sizes in row-major order (the last index turns fastest) and an
/// element (i_0, ..., i_{d-1}) lives at layout.offset + sum of i_k * layout.strides[k]. A
/// grid-stride loop, as in axpy.
__global__ void compact_kernel(DevPtr<const float> in, CompactLayout layout, DevPtr<float> out, std::int64_t n) {
  // BEGIN TASK week06.strided_contiguous (replace the stub below with your code)
  (void)in, (void)layout, (void)out, (void)n;  // your kernel's body
  // END TASK
}

Tensor compact(const Tensor& x) {
  // BEGIN TASK week06.strided_contiguous (replace the stub below with your code)
  KINDLING_TODO("week06.strided_contiguous");
  // END TASK
}

}  // namespace kindling::cuda
