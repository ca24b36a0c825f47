// MUTANT: launches even when there is nothing to add: a grid of 0 blocks is refused
// Task week06.ordered_index_add. The doc comment above each function is its contract; your code goes
// between BEGIN and END (two regions: the kernel and its launch). Hints, one at a time:
// `./grade hint week06.ordered_index_add`.
//
// The grade runs your kernel in several thread orders on the simulator (forward, reverse,
// shuffled): a result that changes with the order fails, even where every order is "correct" to
// a float's rounding.

#include <algorithm>

#include <kindling/cuda/kernels.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::cuda {

/// The kernel (kernels.hpp has the whole contract): out[o, index[j], i] += src[o, j, i] for every
/// o, j, i, each element of out receiving its additions in the order j = 0, 1, ..., count - 1 on
/// every run, whatever the order in which the threads run. No atomics: which thread owns which
/// additions is yours to choose, and the launch's grid may have fewer threads than there is work.
template <class T>
__global__ void index_add_ordered_kernel(DevPtr<T> out, DevPtr<const T> src, DevPtr<const std::int64_t> index,
                                         std::int64_t outer, std::int64_t size, std::int64_t count,
                                         std::int64_t inner) {
  // BEGIN SOLUTION week06.ordered_index_add
  // STUB: (void)out, (void)src, (void)index, (void)outer, (void)size, (void)count, (void)inner;  // your kernel's body
  // One thread owns a column (o, i): every element it writes, out[o, index[j], i], has i and o its
  // own, so no other thread touches it, and it adds the rows j in order (a grid-stride loop).
  const std::int64_t columns = outer * inner, stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t c = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; c < columns; c += stride) {
    const std::int64_t o = c / inner, i = c % inner;
    for (std::int64_t j = 0; j < count; ++j) {
      const std::int64_t at = (o * size + index[j]) * inner + i;
      out[at] = static_cast<T>(static_cast<T>(out[at]) + static_cast<T>(src[(o * count + j) * inner + i]));
    }
  }
  // END SOLUTION
}

/// The launch (kernels.hpp has the whole contract): blocks of kIndexAddThreads threads on `stream`,
/// as many as the work needs up to 4096 (the kernel covers the rest); no launch when there is no
/// work.
template <class T>
void index_add_ordered(DevPtr<T> out, DevPtr<const T> src, DevPtr<const std::int64_t> index, std::int64_t outer,
                       std::int64_t size, std::int64_t count, std::int64_t inner, Stream stream) {
  // BEGIN SOLUTION week06.ordered_index_add
  const std::int64_t columns = outer * inner;
  const std::int64_t blocks = std::min<std::int64_t>((columns + kIndexAddThreads - 1) / kIndexAddThreads, 4096);
  launch<index_add_ordered_kernel<T>>(
      LaunchConfig{Dim3(static_cast<unsigned>(blocks)), Dim3(kIndexAddThreads), 0, stream}, out, src, index, outer,
      size, count, inner);
  // END SOLUTION
}

// The engine calls these two.
template void index_add_ordered<float>(DevPtr<float>, DevPtr<const float>, DevPtr<const std::int64_t>, std::int64_t,
                                       std::int64_t, std::int64_t, std::int64_t, Stream);
template void index_add_ordered<double>(DevPtr<double>, DevPtr<const double>, DevPtr<const std::int64_t>, std::int64_t,
                                        std::int64_t, std::int64_t, std::int64_t, Stream);

}  // namespace kindling::cuda
