// MUTANT: returns a new view over the same storage for a contiguous tensor instead of the very same tensor
// Task week01.contiguous. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.contiguous`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/tensor.hpp>

// A view shares its base's storage and differs only in sizes, strides and offset:
// unless a contract says it copies, return a new handle over the *same* Storage
// (check with is_alias_of). Helpers: as_strided(sizes, strides, offset) builds the
// view and checks it fits the storage; wrap_dim normalises a dim and throws
// PyTorch's out-of-range error; and the free functions of shape.hpp.

namespace kindling {

/// `contiguous()`: this very tensor (same handle) when is_contiguous(), else a
/// row-major copy with its own storage (clone() makes one).
Tensor Tensor::contiguous() const {
  // BEGIN SOLUTION week01.contiguous
  if (is_contiguous()) return as_strided(sizes(), strides(), storage_offset());
  return clone();
  // END SOLUTION
}

}  // namespace kindling
