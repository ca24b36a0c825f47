// MUTANT: takes flat % size for each digit but never divides flat down: flat 4 in {2, 3} gives {0, 1}, not {1, 1}
// Task week01.strided_access. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.strided_access`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/tensor.hpp>

namespace kindling {

/// Where element `index` of a strided tensor lives in its storage, in elements:
/// `storage_offset + sum(index[d] * strides[d])`.
/// `index` and `strides` have the same length; the index is already in range.
std::int64_t index_to_offset(IntArrayRef index, IntArrayRef strides, std::int64_t storage_offset) {
  // BEGIN SOLUTION week01.strided_access
  std::int64_t offset = storage_offset;
  for (std::size_t d = 0; d < index.size(); ++d) offset += index[d] * strides[d];
  return offset;
  // END SOLUTION
}

/// The multi-index of the `flat`-th element in row-major order of `sizes`
/// (the inverse of counting 0, 1, 2, ... through the index space).
/// Example: flat 5 in sizes {2, 3} is {1, 2}. `flat` is in [0, numel_of(sizes)).
Shape flat_to_index(std::int64_t flat, IntArrayRef sizes) {
  // BEGIN SOLUTION week01.strided_access
  Shape index(sizes.size());
  for (std::size_t d = sizes.size(); d-- > 0;) {
    index[d] = flat % sizes[d];
  }
  return index;
  // END SOLUTION
}

}  // namespace kindling
