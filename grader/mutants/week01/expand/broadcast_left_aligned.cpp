// MUTANT: lines the two shapes up from the left instead of the right, padding the shorter one with 1s at the end
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
  // BEGIN SOLUTION week01.expand
  const std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t from_right = n - 1 - i;
    (void)from_right;
    const std::int64_t sa = i < a.size() ? a[i] : 1;
    const std::int64_t sb = i < b.size() ? b[i] : 1;
    KINDLING_CHECK(sa == sb || sa == 1 || sb == 1, "The size of tensor a (", sa, ") must match the size of tensor b (",
                   sb, ") at non-singleton dimension ", i);
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
  // END SOLUTION
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
  // BEGIN SOLUTION week01.expand
  const auto ndim = static_cast<std::int64_t>(sizes.size());
  KINDLING_CHECK(ndim >= dim(), "expand(", legacy_type_name(dtype()), "{", to_string(this->sizes()),
                 "}, size=", to_string(sizes), "): the number of sizes provided (", ndim,
                 ") must be greater or equal to the number of dimensions in the tensor (", dim(), ")");
  Shape new_sizes(ndim);
  Shape new_strides(ndim);
  for (std::int64_t i = ndim - 1; i >= 0; --i) {
    const std::int64_t offset = ndim - 1 - i;
    const std::int64_t d = dim() - 1 - offset;
    const std::int64_t size = d >= 0 ? this->sizes()[d] : 1;
    const std::int64_t stride = d >= 0 ? strides()[d] : 0;
    std::int64_t target = sizes[i];
    if (target == -1) {
      KINDLING_CHECK(d >= 0,
                     "The expanded size of the tensor (-1) isn't allowed in a leading, "
                     "non-existing dimension ",
                     i);
      target = size;
    }
    KINDLING_CHECK(size == target || size == 1, "The expanded size of the tensor (", target,
                   ") must match the existing size (", size, ") at non-singleton dimension ", i,
                   ".  Target sizes: ", to_string(sizes), ".  Tensor sizes: ", to_string(this->sizes()));
    new_sizes[i] = target;
    new_strides[i] = size == target ? stride : 0;
  }
  return as_strided(new_sizes, new_strides, storage_offset());
  // END SOLUTION
}

}  // namespace kindling
