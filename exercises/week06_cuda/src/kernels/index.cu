// The engine's indexing kernels on the device: index_select (a gather along one dim) and its
// adjoint, index_add (the gradient's scatter). One source for nvcc and the simulator.

#include <kindling/cuda/kernels.hpp>  // index_add_ordered, the task week06.ordered_index_add

#include "common.hpp"

namespace kindling::cuda::kernels {
namespace {

// out[o, j, i] = x[o, index[j], i]: x is [outer, size, inner], out [outer, count, inner], both
// contiguous; one thread per element of out.
template <class T>
__global__ void gather_kernel(DevPtr<T> out, DevPtr<const T> x, DevPtr<const std::int64_t> index, std::int64_t size,
                              std::int64_t count, std::int64_t inner, std::int64_t n) {
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t e = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e < n; e += stride) {
    const std::int64_t i = e % inner, j = e / inner % count, o = e / (inner * count);
    out[e] = static_cast<T>(x[(o * size + index[j]) * inner + i]);
  }
}

// out[o, index[j], i] += src[o, j, i] with an atomic add from one thread per element of src: as
// many threads as elements, where the kernel below has one per column; the additions into one
// element happen in whatever order the threads reach it.
template <class T>
__global__ void scatter_add_atomic_kernel(DevPtr<T> out, DevPtr<const T> src, DevPtr<const std::int64_t> index,
                                          std::int64_t size, std::int64_t count, std::int64_t inner, std::int64_t n) {
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t e = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e < n; e += stride) {
    const std::int64_t i = e % inner, j = e / inner % count, o = e / (inner * count);
    atomicAdd(&out[(o * size + index[j]) * inner + i], static_cast<T>(src[e]));
  }
}

// out[o, index[j], i] += src[o, j, i] for j = 0, 1, ... in order: one thread per (o, i), which
// owns every element it writes, so repeated indices add up without atomics, in the order the
// CPU adds them (the result does not depend on the schedule).
template <class T>
__global__ void scatter_add_kernel(DevPtr<T> out, DevPtr<const T> src, DevPtr<const std::int64_t> index,
                                   std::int64_t size, std::int64_t count, std::int64_t inner, std::int64_t columns) {
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t c = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; c < columns; c += stride) {
    const std::int64_t o = c / inner, i = c % inner;
    for (std::int64_t j = 0; j < count; ++j) {
      const std::int64_t at = (o * size + index[j]) * inner + i;
      out[at] = static_cast<T>(static_cast<T>(out[at]) + static_cast<T>(src[(o * count + j) * inner + i]));
    }
  }
}

}  // namespace

void index_gather(ScalarType type, void* out, const void* x, const void* index, std::int64_t outer, std::int64_t size,
                  std::int64_t count, std::int64_t inner, void* stream) {
  const std::int64_t n = outer * count * inner;
  if (n == 0) return;
  with_type(type, [&](auto t) {
    using T = decltype(t);
    launch<gather_kernel<T>>(config_for(n, stream), device_ptr<T>(out), device_ptr<const T>(x),
                             device_ptr<const std::int64_t>(index), size, count, inner, n);
  });
}

void index_add(ScalarType type, void* out, const void* src, const void* index, std::int64_t outer, std::int64_t size,
               std::int64_t count, std::int64_t inner, bool deterministic, void* stream) {
  const std::int64_t columns = outer * inner;
  if (columns == 0 || count == 0) return;
  with_type(type, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      if (!deterministic) {
        const std::int64_t n = columns * count;
        launch<scatter_add_atomic_kernel<T>>(config_for(n, stream), device_ptr<T>(out), device_ptr<const T>(src),
                                             device_ptr<const std::int64_t>(index), size, count, inner, n);
      } else {  // the task week06.ordered_index_add
        index_add_ordered<T>(device_ptr<T>(out), device_ptr<const T>(src), device_ptr<const std::int64_t>(index), outer,
                             size, count, inner, stream);
      }
      return;
    }
    if constexpr (!std::is_same_v<T, bool>)
      launch<scatter_add_kernel<T>>(config_for(columns, stream), device_ptr<T>(out), device_ptr<const T>(src),
                                    device_ptr<const std::int64_t>(index), size, count, inner, columns);
  });
}

}  // namespace kindling::cuda::kernels
