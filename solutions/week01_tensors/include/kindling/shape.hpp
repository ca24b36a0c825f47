#pragma once
/// @file shape.hpp
/// Shapes and strides as plain numbers: the arithmetic under every view.
///
/// Note: a tensor is a window onto a flat Storage. Element (i0, i1, ..., ik) lives
/// at `storage_offset + i0*stride[0] + i1*stride[1] + ... + ik*stride[k]`. Every
/// view (transpose, slice, expand, ...) only changes sizes, strides and offset; it
/// never moves data. These free functions are that arithmetic, testable on their own.

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <kindling/error.hpp>

namespace kindling {

/// An owned list of sizes or strides.
using Shape = std::vector<std::int64_t>;

/// A non-owning view of a list of integers, like LibTorch's IntArrayRef.
/// Built from a braced list (`{2, 3}`), a Shape, or a single integer.
class IntArrayRef {
 public:
  /// An empty list.
  constexpr IntArrayRef() = default;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  /// Refers to the elements of a braced list; valid for the full expression
  /// (like c10::ArrayRef, which is why the lifetime warning is silenced here).
  constexpr IntArrayRef(std::initializer_list<std::int64_t> list)  // NOLINT(google-explicit-constructor)
      : data_(list.begin()), size_(list.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  /// Refers to the elements of a vector.
  IntArrayRef(const std::vector<std::int64_t>& v)  // NOLINT(google-explicit-constructor)
      : data_(v.data()), size_(v.size()) {}
  /// Refers to one integer.
  constexpr IntArrayRef(const std::int64_t& one) : data_(&one), size_(1) {}  // NOLINT
  /// Refers to `n` integers at `data`.
  constexpr IntArrayRef(const std::int64_t* data, std::size_t n) : data_(data), size_(n) {}

  /// First element.
  constexpr const std::int64_t* begin() const { return data_; }
  /// One past the last element.
  constexpr const std::int64_t* end() const { return data_ + size_; }
  /// Pointer to the elements.
  constexpr const std::int64_t* data() const { return data_; }
  /// Number of elements.
  constexpr std::size_t size() const { return size_; }
  /// True when there are no elements.
  constexpr bool empty() const { return size_ == 0; }
  /// Element `i` (unchecked).
  constexpr const std::int64_t& operator[](std::size_t i) const { return data_[i]; }
  /// The last element (the list must not be empty).
  constexpr const std::int64_t& back() const { return data_[size_ - 1]; }
  /// An owned copy.
  Shape vec() const { return Shape(begin(), end()); }
  /// Element-wise equality.
  bool equals(IntArrayRef other) const {
    if (size_ != other.size_) return false;
    for (std::size_t i = 0; i < size_; ++i)
      if (data_[i] != other.data_[i]) return false;
    return true;
  }

 private:
  const std::int64_t* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Formats a list as PyTorch does in messages: "[2, 3]".
std::string to_string(IntArrayRef list);

/// The product of the sizes (1 for an empty list).
inline std::int64_t numel_of(IntArrayRef sizes) {
  std::int64_t n = 1;
  for (auto s : sizes) n *= s;
  return n;
}

/// Turns a possibly negative dim into an index in [0, ndim). Throws IndexError
/// "Dimension out of range (expected to be in range of [-2, 1], but got 2)".
/// A 0-d tensor accepts dims -1 and 0, as in PyTorch.
std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim);

/// Checks that no size is negative ("Trying to create tensor with negative dimension -1: [2, -1]").
void check_sizes_nonnegative(IntArrayRef sizes);

/// Row-major ("C-contiguous") strides for `sizes`, in elements.
///
/// The last dimension has stride 1 and each earlier one steps over a whole row
/// of the later ones: `strides[i] = strides[i+1] * max(sizes[i+1], 1)`. The
/// `max(..., 1)` is PyTorch's rule for empty dimensions, so sizes {2, 0, 3} give
/// {3, 3, 1}. A 0-d shape {} gives {}.
/// @param sizes the shape; every entry is >= 0.
/// @return one stride per dimension.
inline Shape contiguous_strides(IntArrayRef sizes) {
  // BEGIN SOLUTION week01.contiguous_strides
  Shape strides(sizes.size());
  std::int64_t step = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    strides[i] = step;
    step *= sizes[i] > 1 ? sizes[i] : 1;
  }
  return strides;
  // END SOLUTION
}

/// Whether a tensor with these sizes and strides is laid out row-major with no
/// gaps, i.e. whether walking its elements in index order walks memory in order.
///
/// Dimensions of size 1 never move the index, so their strides do not matter;
/// a tensor with no elements is contiguous. Otherwise the strides must equal
/// contiguous_strides(sizes) on every dimension whose size is not 1.
/// Examples: sizes {2, 3} strides {3, 1} -> true; {3, 2} with {1, 3} (a transpose)
/// -> false; {2, 1, 3} with {3, 99, 1} -> true; {0, 4} with any strides -> true.
inline bool is_contiguous(IntArrayRef sizes, IntArrayRef strides) {
  // BEGIN SOLUTION week01.is_contiguous
  if (numel_of(sizes) == 0) return true;
  std::int64_t expected = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
  // END SOLUTION
}

/// Resolves a requested shape for `numel` elements: at most one entry may be -1,
/// and it becomes whatever makes the element counts agree.
///
/// Throws kindling::Error with PyTorch's words:
/// - two -1 entries: "only one dimension can be inferred";
/// - an entry below -1: "invalid shape dimension -2";
/// - counts that cannot agree: "shape '[4, 2]' is invalid for input of size 6";
/// - a -1 beside a 0 for 0 elements: "cannot reshape tensor of 0 elements into shape
///   [0, -1] because the unspecified dimension size -1 can be any value and is ambiguous".
/// @return the shape with -1 replaced.
inline Shape infer_size(IntArrayRef shape, std::int64_t numel) {
  // BEGIN SOLUTION week01.infer_size
  std::int64_t known = 1;
  std::optional<std::size_t> infer_dim;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      KINDLING_CHECK(!infer_dim, "only one dimension can be inferred");
      infer_dim = i;
    } else {
      KINDLING_CHECK(shape[i] >= 0, "invalid shape dimension ", shape[i]);
      known *= shape[i];
    }
  }
  Shape result = shape.vec();
  if (infer_dim) {
    KINDLING_CHECK(known != 0, "cannot reshape tensor of 0 elements into shape ", to_string(shape),
                   " because the unspecified dimension size -1 can be any value and is ambiguous");
    KINDLING_CHECK(numel % known == 0, "shape '", to_string(shape), "' is invalid for input of size ", numel);
    result[*infer_dim] = numel / known;
  } else {
    KINDLING_CHECK(numel == known, "shape '", to_string(shape), "' is invalid for input of size ", numel);
  }
  return result;
  // END SOLUTION
}

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
inline std::optional<Shape> compute_view_strides(IntArrayRef old_sizes, IntArrayRef old_strides,
                                                 IntArrayRef new_sizes) {
  // BEGIN SOLUTION week01.view
  if (old_sizes.empty()) return Shape(new_sizes.size(), 1);
  const std::int64_t numel = numel_of(old_sizes);
  if (numel == 0) {
    if (old_sizes.equals(new_sizes)) return old_strides.vec();
    return contiguous_strides(new_sizes);
  }
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

/// The shape two shapes broadcast to (NumPy/PyTorch rules): align from the
/// right; each pair of sizes must be equal or one of them 1; a missing
/// dimension counts as 1. {2, 1, 3} and {4, 3} give {2, 4, 3}.
/// Throws kindling::Error: "The size of tensor a (3) must match the size of
/// tensor b (2) at non-singleton dimension 1", the dimension counted in the result.
inline Shape broadcast_shapes(IntArrayRef a, IntArrayRef b) {
  // BEGIN SOLUTION week01.expand
  const std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t from_right = n - 1 - i;
    const std::int64_t sa = from_right < a.size() ? a[a.size() - 1 - from_right] : 1;
    const std::int64_t sb = from_right < b.size() ? b[b.size() - 1 - from_right] : 1;
    KINDLING_CHECK(sa == sb || sa == 1 || sb == 1, "The size of tensor a (", sa, ") must match the size of tensor b (",
                   sb, ") at non-singleton dimension ", i);
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
  // END SOLUTION
}

/// Where element `index` of a strided tensor lives in its storage, in elements:
/// `storage_offset + sum(index[d] * strides[d])`.
/// `index` and `strides` have the same length; the index is already in range.
inline std::int64_t index_to_offset(IntArrayRef index, IntArrayRef strides, std::int64_t storage_offset) {
  // BEGIN SOLUTION week01.strided_access
  std::int64_t offset = storage_offset;
  for (std::size_t d = 0; d < index.size(); ++d) offset += index[d] * strides[d];
  return offset;
  // END SOLUTION
}

/// The multi-index of the `flat`-th element in row-major order of `sizes`
/// (the inverse of counting 0, 1, 2, ... through the index space).
/// Example: flat 5 in sizes {2, 3} is {1, 2}. `flat` is in [0, numel_of(sizes)).
inline Shape flat_to_index(std::int64_t flat, IntArrayRef sizes) {
  // BEGIN SOLUTION week01.strided_access
  Shape index(sizes.size());
  for (std::size_t d = sizes.size(); d-- > 0;) {
    index[d] = flat % sizes[d];
    flat /= sizes[d];
  }
  return index;
  // END SOLUTION
}

}  // namespace kindling
