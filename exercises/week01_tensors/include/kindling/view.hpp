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
  // BEGIN TASK week01.view (replace the stub below with your code)
  KINDLING_TODO("week01.view");
  // END TASK
}

/// `reshape(sizes)`: a view when the strides allow one (exactly when view()
/// would succeed), otherwise a contiguous copy with the new shape. So after
/// `b = a.reshape(...)`, writing to `a` changes `b` only in the first case;
/// `b.data_ptr() == a.data_ptr()` tells which happened. The copy is not a view of
/// anything (is_view() is false), exactly as in PyTorch, whose reshape copies with
/// clone() and reshapes the copy with _unsafe_view().
/// Errors are infer_size's.
inline Tensor Tensor::reshape(IntArrayRef sizes) const {
  // BEGIN TASK week01.reshape (replace the stub below with your code)
  KINDLING_TODO("week01.reshape");
  // END TASK
}

/// `contiguous()`: this very tensor (same handle) when is_contiguous(), else a
/// row-major copy with its own storage (clone() makes one).
inline Tensor Tensor::contiguous() const {
  // BEGIN TASK week01.contiguous (replace the stub below with your code)
  KINDLING_TODO("week01.contiguous");
  // END TASK
}

/// `transpose(dim0, dim1)`: swaps the sizes and the strides of two dimensions.
/// Dims may be negative; out-of-range dims throw wrap_dim's IndexError.
inline Tensor Tensor::transpose(std::int64_t dim0, std::int64_t dim1) const {
  // BEGIN TASK week01.transpose (replace the stub below with your code)
  KINDLING_TODO("week01.transpose");
  // END TASK
}

/// `permute(dims)`: result dimension i is input dimension dims[i].
/// Throws kindling::Error "permute(sparse_coo): number of dimensions in the tensor
/// input does not match the length of the desired ordering of dimensions i.e.
/// input.dim() = 2 is not equal to len(dims) = 3" when the counts differ, and
/// "permute(): duplicate dims are not allowed." when a dim repeats.
inline Tensor Tensor::permute(IntArrayRef dims) const {
  // BEGIN TASK week01.transpose (replace the stub below with your code)
  KINDLING_TODO("week01.transpose");
  // END TASK
}

/// `t()`: transpose(0, 1) for a matrix; a 0-d or 1-d tensor is returned as a view
/// of itself. More than 2 dims throws "t() expects a tensor with <= 2 dimensions,
/// but self is 3D".
inline Tensor Tensor::t() const {
  // BEGIN TASK week01.transpose (replace the stub below with your code)
  KINDLING_TODO("week01.transpose");
  // END TASK
}

/// `squeeze()`: drops every size-1 dimension (a view).
inline Tensor Tensor::squeeze() const {
  // BEGIN TASK week01.squeeze (replace the stub below with your code)
  KINDLING_TODO("week01.squeeze");
  // END TASK
}

/// `squeeze(dim)`: drops dimension `dim` if its size is 1; otherwise returns an
/// unchanged view. A 0-d tensor accepts dim 0 or -1.
inline Tensor Tensor::squeeze(std::int64_t dim) const {
  // BEGIN TASK week01.squeeze (replace the stub below with your code)
  KINDLING_TODO("week01.squeeze");
  // END TASK
}

/// `unsqueeze(dim)`: inserts a size-1 dimension at `dim`, which ranges over
/// [-(dim()+1), dim()]. Its stride is size*stride of the dimension after it
/// (1 at the end), the value PyTorch picks, which keeps contiguous tensors contiguous.
inline Tensor Tensor::unsqueeze(std::int64_t dim) const {
  // BEGIN TASK week01.squeeze (replace the stub below with your code)
  KINDLING_TODO("week01.squeeze");
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
inline Tensor Tensor::expand(IntArrayRef sizes) const {
  // BEGIN TASK week01.expand (replace the stub below with your code)
  KINDLING_TODO("week01.expand");
  // END TASK
}

/// `narrow(dim, start, length)`: elements start .. start+length-1 of `dim`.
/// `start` may be negative (counts from the end) and may equal the size (an
/// empty result). Errors: "narrow() cannot be applied to a 0-dim tensor."
/// (kindling::Error); a start outside [-size, size] gets wrap_dim's IndexError
/// ("Dimension out of range (expected to be in range of [-6, 5], but got 7)");
/// "start (3) + length (5) exceeds dimension size (6)." (kindling::Error).
inline Tensor Tensor::narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const {
  // BEGIN TASK week01.slice (replace the stub below with your code)
  KINDLING_TODO("week01.slice");
  // END TASK
}

/// `select(dim, index)`: the slice at `index` of `dim`, with that dimension
/// removed (`t[i]` is select(0, i)). `index` may be negative. Errors: IndexError
/// "select(): index 5 out of range for tensor of size [3, 4] at dimension 0";
/// kindling::Error "select() cannot be applied to a 0-dim tensor.".
inline Tensor Tensor::select(std::int64_t dim, std::int64_t index) const {
  // BEGIN TASK week01.slice (replace the stub below with your code)
  KINDLING_TODO("week01.slice");
  // END TASK
}

/// `slice(dim, start, end, step)`: Python's `t[start:end:step]` along `dim`.
/// Missing start/end mean the ends; negative ones count from the end; both are
/// clamped into [0, size] as Python does (so `slice(0, 10, 99)` on size 4 is empty
/// rather than an error). The new size is ceil((end - start) / step), at least 0;
/// the stride is multiplied by `step`. Python's errors are ValueErrors: a step of 0
/// is "slice step cannot be zero", a negative one "step must be greater than zero".
inline Tensor Tensor::slice(std::int64_t dim, std::optional<std::int64_t> start, std::optional<std::int64_t> end,
                            std::int64_t step) const {
  // BEGIN TASK week01.slice (replace the stub below with your code)
  KINDLING_TODO("week01.slice");
  // END TASK
}

}  // namespace kindling
