// MUTANT: never checks for a repeated dim in permute, so permute({0, 0}) silently duplicates a dimension
// Task week01.transpose. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.transpose`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/tensor.hpp>

// A view shares its base's storage and differs only in sizes, strides and offset:
// unless a contract says it copies, return a new handle over the *same* Storage
// (check with is_alias_of). Helpers: as_strided(sizes, strides, offset) builds the
// view and checks it fits the storage; wrap_dim normalises a dim and throws
// PyTorch's out-of-range error; and the free functions of shape.hpp.

namespace kindling {

/// `transpose(dim0, dim1)`: swaps the sizes and the strides of two dimensions.
/// Dims may be negative; out-of-range dims throw wrap_dim's IndexError.
Tensor Tensor::transpose(std::int64_t dim0, std::int64_t dim1) const {
  // BEGIN SOLUTION week01.transpose
  const std::int64_t d0 = wrap_dim(dim0, dim());
  const std::int64_t d1 = wrap_dim(dim1, dim());
  Shape new_sizes = sizes().vec();
  Shape new_strides = strides().vec();
  std::swap(new_sizes[d0], new_sizes[d1]);
  std::swap(new_strides[d0], new_strides[d1]);
  return as_strided(new_sizes, new_strides, storage_offset());
  // END SOLUTION
}

/// `permute(dims)`: result dimension i is input dimension dims[i].
/// Throws kindling::Error "permute(sparse_coo): number of dimensions in the tensor
/// input does not match the length of the desired ordering of dimensions i.e.
/// input.dim() = 2 is not equal to len(dims) = 3" when the counts differ, and
/// "permute(): duplicate dims are not allowed." when a dim repeats.
Tensor Tensor::permute(IntArrayRef dims) const {
  // BEGIN SOLUTION week01.transpose
  KINDLING_CHECK(static_cast<std::int64_t>(dims.size()) == dim(),
                 "permute(sparse_coo): number of dimensions in the tensor input does not match the "
                 "length of the desired ordering of dimensions i.e. input.dim() = ",
                 dim(), " is not equal to len(dims) = ", dims.size());
  Shape new_sizes(dims.size());
  Shape new_strides(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const std::int64_t d = wrap_dim(dims[i], dim());
    seen[d] = true;
    new_sizes[i] = sizes()[d];
    new_strides[i] = strides()[d];
  }
  return as_strided(new_sizes, new_strides, storage_offset());
  // END SOLUTION
}

/// `t()`: transpose(0, 1) for a matrix; a 0-d or 1-d tensor is returned as a view
/// of itself. More than 2 dims throws "t() expects a tensor with <= 2 dimensions,
/// but self is 3D".
Tensor Tensor::t() const {
  // BEGIN SOLUTION week01.transpose
  KINDLING_CHECK(dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", dim(), "D");
  if (dim() < 2) return as_strided(sizes(), strides(), storage_offset());
  return as_strided({sizes()[1], sizes()[0]}, {strides()[1], strides()[0]}, storage_offset());
  // END SOLUTION
}

}  // namespace kindling
