// MUTANT: starts every element at the storage's first element: the storage offset of a slice or a row is lost
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
  // BEGIN SOLUTION week06.strided_contiguous
  // STUB: (void)in, (void)layout, (void)out, (void)n;  // your kernel's body
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    std::int64_t rest = i, where = 0;
    for (int d = layout.ndim - 1; d >= 0; --d) {
      where += (rest % layout.sizes[d]) * layout.strides[d];
      rest /= layout.sizes[d];
    }
    out[i] = in[where];
  }
  // END SOLUTION
}

Tensor compact(const Tensor& x) {
  // BEGIN SOLUTION week06.strided_contiguous
  KINDLING_CHECK(x.is_cuda(), "compact: expected a CUDA tensor, got one on ", x.device());
  KINDLING_CHECK(x.dtype() == kFloat32, "compact: expected a float32 tensor");
  KINDLING_CHECK(x.dim() <= kCompactMaxDims, "compact: more than ", kCompactMaxDims, " dimensions");
  Tensor out = empty(x.sizes(), TensorOptions(kFloat32).device(x.device()));
  const std::int64_t n = x.numel();
  if (n == 0) return out;
  CompactLayout layout;
  layout.ndim = static_cast<int>(x.dim());
  for (int d = 0; d < layout.ndim; ++d) {
    layout.sizes[d] = x.size(d);
    layout.strides[d] = x.stride(d);
  }
  layout.offset = x.storage_offset();
  const std::int64_t blocks = (n + 255) / 256;
  launch<compact_kernel>(LaunchConfig{Dim3(static_cast<unsigned>(blocks < 64 ? blocks : 64)), Dim3(256)},
                         device_ptr<const float>(x.storage().data()), layout, device_ptr<float>(out.data_ptr()), n);
  return out;
  // END SOLUTION
}

}  // namespace kindling::cuda
