// MUTANT: believes only contiguous tensors can be viewed, so the {4, 3}/{6, 2} column slice cannot become {12}
// Task week01.view. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.view`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/tensor.hpp>

// A view shares its base's storage and differs only in sizes, strides and offset:
// unless a contract says it copies, return a new handle over the *same* Storage
// (check with is_alias_of). Helpers: as_strided(sizes, strides, offset) builds the
// view and checks it fits the storage; wrap_dim normalises a dim and throws
// PyTorch's out-of-range error; and the free functions of shape.hpp.

namespace kindling {

/// Strides that let a tensor with `old_sizes`/`old_strides` be seen with
/// `new_sizes` without copying, or std::nullopt when no such strides exist.
///
/// The rule (PyTorch's computeStride): split the old dimensions into *chunks*,
/// maximal runs in which each dimension steps exactly over the next
/// (`stride[d] == stride[d+1] * size[d+1]`). A view may split or merge dimensions
/// only inside a chunk, so the new sizes must group, from the right, into runs
/// whose products equal each chunk's element count. Size-1 dimensions fit
/// anywhere. So `zeros({4, 6}).slice(1, 0, 6, 2)` (sizes {4, 3}, strides {6, 2})
/// is one chunk (6 == 3 * 2) and can be viewed as {12}, while its transpose
/// (sizes {3, 4}, strides {2, 6}) is two chunks and cannot.
/// `new_sizes` has no -1 and has the same element count as the old shape.
/// For 0 elements, return contiguous strides for `new_sizes` (or the old strides
/// when the shapes are equal); for a 0-d input, all ones.
std::optional<Shape> compute_view_strides(IntArrayRef old_sizes, IntArrayRef old_strides, IntArrayRef new_sizes) {
  // BEGIN SOLUTION week01.view
  if (old_sizes.empty()) return Shape(new_sizes.size(), 1);
  const std::int64_t numel = numel_of(old_sizes);
  if (numel == 0) {
    if (old_sizes.equals(new_sizes)) return old_strides.vec();
    return contiguous_strides(new_sizes);
  }
  if (!is_contiguous(old_sizes, old_strides)) return std::nullopt;
  Shape new_strides(new_sizes.size());
  auto view_d = static_cast<std::int64_t>(new_sizes.size()) - 1;
  std::int64_t chunk_base_stride = old_strides.back();
  std::int64_t tensor_numel = 1;
  std::int64_t view_numel = 1;
  for (auto tensor_d = static_cast<std::int64_t>(old_sizes.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= old_sizes[tensor_d];
    // End of a chunk: the next dimension to the left does not step over this run.
    if (tensor_d == 0 ||
        (old_sizes[tensor_d - 1] != 1 && old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        new_strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = old_strides[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return new_strides;
  // END SOLUTION
}

/// `view(sizes)`: the same elements seen with a new shape, without copying.
///
/// Resolve a -1 with infer_size(sizes, numel()). Ask compute_view_strides for
/// strides that express the new shape over the existing memory; if there are
/// none, throw kindling::Error with exactly
/// "view size is not compatible with input tensor's size and stride (at least one
/// dimension spans across two contiguous subspaces). Use .reshape(...) instead."
/// The result keeps this tensor's storage offset.
Tensor Tensor::view(IntArrayRef sizes) const {
  // BEGIN SOLUTION week01.view
  const Shape shape = infer_size(sizes, numel());
  const auto view_strides = compute_view_strides(this->sizes(), strides(), shape);
  KINDLING_CHECK(view_strides.has_value(),
                 "view size is not compatible with input tensor's size and stride (at least one "
                 "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  return as_strided(shape, *view_strides, storage_offset());
  // END SOLUTION
}

}  // namespace kindling
