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
  // BEGIN TASK week06.ordered_index_add (replace the stub below with your code)
  (void)out, (void)src, (void)index, (void)outer, (void)size, (void)count, (void)inner;  // your kernel's body
  // END TASK
}

/// The launch (kernels.hpp has the whole contract): blocks of kIndexAddThreads threads on `stream`,
/// as many as the work needs up to 4096 (the kernel covers the rest); no launch when there is no
/// work.
template <class T>
void index_add_ordered(DevPtr<T> out, DevPtr<const T> src, DevPtr<const std::int64_t> index, std::int64_t outer,
                       std::int64_t size, std::int64_t count, std::int64_t inner, Stream stream) {
  // BEGIN TASK week06.ordered_index_add (replace the stub below with your code)
  KINDLING_TODO("week06.ordered_index_add");
  // END TASK
}

// The engine calls these two.
template void index_add_ordered<float>(DevPtr<float>, DevPtr<const float>, DevPtr<const std::int64_t>, std::int64_t,
                                       std::int64_t, std::int64_t, std::int64_t, Stream);
template void index_add_ordered<double>(DevPtr<double>, DevPtr<const double>, DevPtr<const std::int64_t>, std::int64_t,
                                        std::int64_t, std::int64_t, std::int64_t, Stream);

}  // namespace kindling::cuda
