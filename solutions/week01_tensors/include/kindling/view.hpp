#pragma once
/// @file view.hpp
/// Views: tensors that share their base's storage and differ only in sizes,
/// strides and offset. Every function here returns a new Tensor handle over the
/// *same* Storage (check with `is_alias_of`) unless its contract says it copies.
///
/// Helpers you can use: `as_strided(sizes, strides, offset)` builds the view
/// (and checks it fits the storage), `wrap_dim` normalises a dim and throws
/// PyTorch's out-of-range error, and the free functions in shape.hpp.

#include <kindling/tensor.hpp>

namespace kindling {

/// `view(sizes)`: the same elements seen with a new shape, without copying.
///
/// Resolve a -1 with infer_size(sizes, numel()). Ask compute_view_strides for
/// strides that express the new shape over the existing memory; if there are
/// none, throw kindling::Error with exactly
/// "view size is not compatible with input tensor's size and stride (at least one
/// dimension spans across two contiguous subspaces). Use .reshape(...) instead."
/// The result keeps this tensor's storage offset.
inline Tensor Tensor::view(IntArrayRef sizes) const {
  // BEGIN SOLUTION week01.view
  const Shape shape = infer_size(sizes, numel());
  const auto view_strides = compute_view_strides(this->sizes(), strides(), shape);
  KINDLING_CHECK(view_strides.has_value(),
                 "view size is not compatible with input tensor's size and stride (at least one "
                 "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  return as_strided(shape, *view_strides, storage_offset());
  // END SOLUTION
}

/// `reshape(sizes)`: a view when the strides allow one (exactly when view()
/// would succeed), otherwise a contiguous copy with the new shape. So after
/// `b = a.reshape(...)`, writing to `a` changes `b` only in the first case;
/// `b.data_ptr() == a.data_ptr()` tells which happened. The copy is not a view of
/// anything (is_view() is false), exactly as in PyTorch, whose reshape copies with
/// clone() and reshapes the copy with _unsafe_view().
/// Errors are infer_size's.
inline Tensor Tensor::reshape(IntArrayRef sizes) const {
  // BEGIN SOLUTION week01.reshape
  const Shape shape = infer_size(sizes, numel());
  if (auto view_strides = compute_view_strides(this->sizes(), strides(), shape))
    return as_strided(shape, *view_strides, storage_offset());
  return clone()._unsafe_view(shape);
  // END SOLUTION
}

/// `contiguous()`: this very tensor (same handle) when is_contiguous(), else a
/// row-major copy with its own storage (clone() makes one).
inline Tensor Tensor::contiguous() const {
  // BEGIN SOLUTION week01.contiguous
  if (is_contiguous()) return *this;
  return clone();
  // END SOLUTION
}

/// `transpose(dim0, dim1)`: swaps the sizes and the strides of two dimensions.
/// Dims may be negative; out-of-range dims throw wrap_dim's IndexError.
inline Tensor Tensor::transpose(std::int64_t dim0, std::int64_t dim1) const {
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
inline Tensor Tensor::permute(IntArrayRef dims) const {
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
    KINDLING_CHECK(!seen[d], "permute(): duplicate dims are not allowed.");
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
inline Tensor Tensor::t() const {
  // BEGIN SOLUTION week01.transpose
  KINDLING_CHECK(dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", dim(), "D");
  if (dim() < 2) return as_strided(sizes(), strides(), storage_offset());
  return as_strided({sizes()[1], sizes()[0]}, {strides()[1], strides()[0]}, storage_offset());
  // END SOLUTION
}

/// `squeeze()`: drops every size-1 dimension (a view).
inline Tensor Tensor::squeeze() const {
  // BEGIN SOLUTION week01.squeeze
  Shape new_sizes;
  Shape new_strides;
  for (std::int64_t d = 0; d < dim(); ++d) {
    if (sizes()[d] == 1) continue;
    new_sizes.push_back(sizes()[d]);
    new_strides.push_back(strides()[d]);
  }
  return as_strided(new_sizes, new_strides, storage_offset());
  // END SOLUTION
}

/// `squeeze(dim)`: drops dimension `dim` if its size is 1; otherwise returns an
/// unchanged view. A 0-d tensor accepts dim 0 or -1.
inline Tensor Tensor::squeeze(std::int64_t dim) const {
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
inline Tensor Tensor::unsqueeze(std::int64_t dim) const {
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
inline Tensor Tensor::expand(IntArrayRef sizes) const {
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

/// `narrow(dim, start, length)`: elements start .. start+length-1 of `dim`.
/// `start` may be negative (counts from the end) and may equal the size (an
/// empty result). Errors: "narrow() cannot be applied to a 0-dim tensor."
/// (kindling::Error); a start outside [-size, size] gets wrap_dim's IndexError
/// ("Dimension out of range (expected to be in range of [-6, 5], but got 7)");
/// "start (3) + length (5) exceeds dimension size (6)." (kindling::Error).
inline Tensor Tensor::narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const {
  // BEGIN SOLUTION week01.slice
  KINDLING_CHECK(this->dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  const std::int64_t d = wrap_dim(dim, this->dim());
  const std::int64_t size = sizes()[d];
  if (start != size) start = wrap_dim(start, size);  // the end itself is a valid start
  KINDLING_CHECK(length >= 0 && start <= size - length, "start (", start, ") + length (", length,
                 ") exceeds dimension size (", size, ").");
  return slice(d, start, start + length, 1);
  // END SOLUTION
}

/// `select(dim, index)`: the slice at `index` of `dim`, with that dimension
/// removed (`t[i]` is select(0, i)). `index` may be negative. Errors: IndexError
/// "select(): index 5 out of range for tensor of size [3, 4] at dimension 0";
/// kindling::Error "select() cannot be applied to a 0-dim tensor.".
inline Tensor Tensor::select(std::int64_t dim, std::int64_t index) const {
  // BEGIN SOLUTION week01.slice
  KINDLING_CHECK_AS(IndexError, this->dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  const std::int64_t d = wrap_dim(dim, this->dim());
  const std::int64_t size = sizes()[d];
  KINDLING_CHECK_AS(IndexError, index >= -size && index < size, "select(): index ", index,
                    " out of range for tensor of size ", to_string(sizes()), " at dimension ", d);
  if (index < 0) index += size;
  Shape new_sizes = sizes().vec();
  Shape new_strides = strides().vec();
  new_sizes.erase(new_sizes.begin() + d);
  new_strides.erase(new_strides.begin() + d);
  return as_strided(new_sizes, new_strides, storage_offset() + index * strides()[d]);
  // END SOLUTION
}

/// `slice(dim, start, end, step)`: Python's `t[start:end:step]` along `dim`.
/// Missing start/end mean the ends; negative ones count from the end; both are
/// clamped into [0, size] as Python does (so `slice(0, 10, 99)` on size 4 is empty
/// rather than an error). The new size is ceil((end - start) / step), at least 0;
/// the stride is multiplied by `step`. Python's errors are ValueErrors: a step of 0
/// is "slice step cannot be zero", a negative one "step must be greater than zero".
inline Tensor Tensor::slice(std::int64_t dim, std::optional<std::int64_t> start, std::optional<std::int64_t> end,
                            std::int64_t step) const {
  // BEGIN SOLUTION week01.slice
  KINDLING_CHECK_AS(ValueError, step != 0, "slice step cannot be zero");
  KINDLING_CHECK_AS(ValueError, step > 0, "step must be greater than zero");
  const std::int64_t d = wrap_dim(dim, this->dim());
  const std::int64_t size = sizes()[d];
  auto clamp_index = [size](std::int64_t i) {
    if (i < 0) i += size;
    return std::clamp<std::int64_t>(i, 0, size);
  };
  const std::int64_t first = start ? clamp_index(*start) : 0;
  const std::int64_t last = std::max(first, end ? clamp_index(*end) : size);
  Shape new_sizes = sizes().vec();
  Shape new_strides = strides().vec();
  new_sizes[d] = (last - first + step - 1) / step;
  new_strides[d] *= step;
  return as_strided(new_sizes, new_strides, storage_offset() + first * strides()[d]);
  // END SOLUTION
}

}  // namespace kindling
