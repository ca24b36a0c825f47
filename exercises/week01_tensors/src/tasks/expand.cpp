// Task week01.expand. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.expand`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/tensor.hpp>

// A view shares its base's storage and differs only in sizes, strides and offset:
// unless a contract says it copies, return a new handle over the *same* Storage
// (check with is_alias_of). Helpers: as_strided(sizes, strides, offset) builds the
// view and checks it fits the storage; wrap_dim normalises a dim and throws
// PyTorch's out-of-range error; and the free functions of shape.hpp.

namespace kindling {

/// The shape two shapes broadcast to (NumPy/PyTorch rules): align from the
/// right; each pair of sizes must be equal or one of them 1; a missing
/// dimension counts as 1. {2, 1, 3} and {4, 3} give {2, 4, 3}.
/// Throws kindling::Error: "The size of tensor a (3) must match the size of
/// tensor b (2) at non-singleton dimension 1", the dimension counted in the result.
Shape broadcast_shapes(IntArrayRef a, IntArrayRef b) {
  // BEGIN TASK week01.expand (replace the stub below with your code)
  KINDLING_TODO("week01.expand");
  // END TASK
}

/// `expand(sizes)`: broadcasts to a larger shape without copying. New leading
/// dimensions and size-1 dimensions get stride 0, so one stored element is seen
/// many times; -1 keeps the existing size. Errors (kindling::Error), word for word:
/// - fewer sizes than dims: "expand(torch.FloatTensor{[2, 3]}, size=[3]): the number
///   of sizes provided (1) must be greater or equal to the number of dimensions in
///   the tensor (2)" (legacy_type_name gives "torch.FloatTensor");
/// - -1 in a new leading dim: "The expanded size of the tensor (-1) isn't allowed in
///   a leading, non-existing dimension 0";
/// - a clash: "The expanded size of the tensor (4) must match the existing size (3)
///   at non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [3]".
Tensor Tensor::expand(IntArrayRef sizes) const {
  // BEGIN TASK week01.expand (replace the stub below with your code)
  KINDLING_TODO("week01.expand");
  // END TASK
}

}  // namespace kindling
