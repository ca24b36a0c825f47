// MUTANT: forgets PyTorch's max(size, 1) rule, so a 0-sized dim zeroes the strides before it: {2, 0, 3} -> {0, 3, 1}
// Task week01.contiguous_strides. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.contiguous_strides`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/tensor.hpp>

namespace kindling {

/// Row-major ("C-contiguous") strides for `sizes`, in elements.
///
/// The last dimension has stride 1 and each earlier one steps over a whole row
/// of the later ones: `strides[i] = strides[i+1] * max(sizes[i+1], 1)`. The
/// `max(..., 1)` is PyTorch's rule for empty dimensions, so sizes {2, 0, 3} give
/// {3, 3, 1}. A 0-d shape {} gives {}.
/// @param sizes the shape; every entry is >= 0.
/// @return one stride per dimension.
Shape contiguous_strides(IntArrayRef sizes) {
  // BEGIN SOLUTION week01.contiguous_strides
  Shape strides(sizes.size());
  std::int64_t step = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    strides[i] = step;
    step *= sizes[i];
  }
  return strides;
  // END SOLUTION
}

}  // namespace kindling
