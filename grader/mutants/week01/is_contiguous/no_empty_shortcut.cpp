// MUTANT: forgets that a tensor with no elements is contiguous, so {0, 4} with strides {1, 1} is called non-contiguous
// Task week01.is_contiguous. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.is_contiguous`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/tensor.hpp>

namespace kindling {

/// Whether a tensor with these sizes and strides is laid out row-major with no
/// gaps, i.e. whether walking its elements in index order walks memory in order.
///
/// Dimensions of size 1 never move the index, so their strides do not matter;
/// a tensor with no elements is contiguous. Otherwise the strides must equal
/// contiguous_strides(sizes) on every dimension whose size is not 1.
/// Examples: sizes {2, 3} strides {3, 1} -> true; {3, 2} with {1, 3} (a transpose)
/// -> false; {2, 1, 3} with {3, 99, 1} -> true; {0, 4} with any strides -> true.
bool is_contiguous(IntArrayRef sizes, IntArrayRef strides) {
  // BEGIN SOLUTION week01.is_contiguous
  std::int64_t expected = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
  // END SOLUTION
}

}  // namespace kindling
