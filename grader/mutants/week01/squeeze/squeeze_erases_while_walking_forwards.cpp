// MUTANT: erases size-1 dims while walking forwards: the second of two neighbours is skipped
// Task week01.squeeze. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.squeeze`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/tensor.hpp>

// A view shares its base's storage and differs only in sizes, strides and offset:
// unless a contract says it copies, return a new handle over the *same* Storage
// (check with is_alias_of). Helpers: as_strided(sizes, strides, offset) builds the
// view and checks it fits the storage; wrap_dim normalises a dim and throws
// PyTorch's out-of-range error; and the free functions of shape.hpp.

namespace kindling {

/// `squeeze()`: drops every size-1 dimension (a view).
Tensor Tensor::squeeze() const {
  // BEGIN SOLUTION week01.squeeze
  Shape new_sizes = sizes().vec();
  Shape new_strides = strides().vec();
  for (std::size_t d = 0; d < new_sizes.size(); ++d) {
    if (new_sizes[d] != 1) continue;
    new_sizes.erase(new_sizes.begin() + d);
    new_strides.erase(new_strides.begin() + d);
  }
  return as_strided(new_sizes, new_strides, storage_offset());
  // END SOLUTION
}

/// `squeeze(dim)`: drops dimension `dim` if its size is 1; otherwise returns an
/// unchanged view. A 0-d tensor accepts dim 0 or -1.
Tensor Tensor::squeeze(std::int64_t dim) const {
  // BEGIN SOLUTION week01.squeeze
  const std::int64_t d = wrap_dim(dim, this->dim());
  if (this->dim() == 0 || sizes()[d] != 1) return as_strided(sizes(), strides(), storage_offset());
  Shape new_sizes = sizes().vec();
  Shape new_strides = strides().vec();
  new_sizes.erase(new_sizes.begin() + d);
  new_strides.erase(new_strides.begin() + d);
  return as_strided(new_sizes, new_strides, storage_offset());
  // END SOLUTION
}

/// `unsqueeze(dim)`: inserts a size-1 dimension at `dim`, which ranges over
/// [-(dim()+1), dim()]. Its stride is size*stride of the dimension after it
/// (1 at the end), the value PyTorch picks, which keeps contiguous tensors contiguous.
Tensor Tensor::unsqueeze(std::int64_t dim) const {
  // BEGIN SOLUTION week01.squeeze
  const std::int64_t d = wrap_dim(dim, this->dim() + 1);
  Shape new_sizes = sizes().vec();
  Shape new_strides = strides().vec();
  const std::int64_t stride = d >= this->dim() ? 1 : sizes()[d] * strides()[d];
  new_sizes.insert(new_sizes.begin() + d, 1);
  new_strides.insert(new_strides.begin() + d, stride);
  return as_strided(new_sizes, new_strides, storage_offset());
  // END SOLUTION
}

}  // namespace kindling
