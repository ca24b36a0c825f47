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
/// (Task week01.contiguous_strides: the contract and the code are in src/tasks/contiguous_strides.cpp.)
Shape contiguous_strides(IntArrayRef sizes);

/// Whether a tensor with these sizes and strides is laid out row-major with no gaps.
/// (Task week01.is_contiguous: the contract and the code are in src/tasks/is_contiguous.cpp.)
bool is_contiguous(IntArrayRef sizes, IntArrayRef strides);

/// Resolves a requested shape for `numel` elements: at most one entry may be -1, and it becomes
/// whatever makes the element counts agree.
/// (Task week01.infer_size: the contract and the code are in src/tasks/infer_size.cpp.)
Shape infer_size(IntArrayRef shape, std::int64_t numel);

/// Strides that let a tensor with `old_sizes`/`old_strides` be seen with `new_sizes` without
/// copying, or std::nullopt when no such strides exist.
/// (Task week01.view: the contract and the code are in src/tasks/view.cpp.)
std::optional<Shape> compute_view_strides(IntArrayRef old_sizes, IntArrayRef old_strides, IntArrayRef new_sizes);

/// The shape two shapes broadcast to (NumPy/PyTorch rules): align from the right; each pair of
/// sizes must be equal or one of them 1; a missing dimension counts as 1.
/// (Task week01.expand: the contract and the code are in src/tasks/expand.cpp.)
Shape broadcast_shapes(IntArrayRef a, IntArrayRef b);

/// Where element `index` of a strided tensor lives in its storage, in elements: `storage_offset +
/// sum(index[d] * strides[d])`.
/// (Task week01.strided_access: the contract and the code are in src/tasks/strided_access.cpp.)
std::int64_t index_to_offset(IntArrayRef index, IntArrayRef strides, std::int64_t storage_offset);

/// The multi-index of the `flat`-th element in row-major order of `sizes`.
/// (Task week01.strided_access: the contract and the code are in src/tasks/strided_access.cpp.)
Shape flat_to_index(std::int64_t flat, IntArrayRef sizes);

}  // namespace kindling
