// MUTANT: reshapes the copy with view() instead of _unsafe_view(), so the copied result is a view of a temporary
// Task week01.reshape. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.reshape`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/tensor.hpp>

// A view shares its base's storage and differs only in sizes, strides and offset:
// unless a contract says it copies, return a new handle over the *same* Storage
// (check with is_alias_of). Helpers: as_strided(sizes, strides, offset) builds the
// view and checks it fits the storage; wrap_dim normalises a dim and throws
// PyTorch's out-of-range error; and the free functions of shape.hpp.

namespace kindling {

/// `reshape(sizes)`: a view when the strides allow one (exactly when view()
/// would succeed), otherwise a contiguous copy with the new shape. So after
/// `b = a.reshape(...)`, writing to `a` changes `b` only in the first case;
/// `b.data_ptr() == a.data_ptr()` tells which happened. The copy is not a view of
/// anything (is_view() is false), exactly as in PyTorch, whose reshape copies with
/// clone() and reshapes the copy with _unsafe_view().
/// Errors are infer_size's.
Tensor Tensor::reshape(IntArrayRef sizes) const {
  // BEGIN SOLUTION week01.reshape
  const Shape shape = infer_size(sizes, numel());
  if (auto view_strides = compute_view_strides(this->sizes(), strides(), shape))
    return as_strided(shape, *view_strides, storage_offset());
  return clone().view(shape);
  // END SOLUTION
}

}  // namespace kindling
