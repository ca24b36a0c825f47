#pragma once
/// @file shape.hpp
/// Shapes and strides as plain numbers: the arithmetic under every view.
///
/// Note: a tensor is a window onto a flat Storage. Element (i0, i1, ..., ik) lives
/// at `storage_offset + i0*stride[0] + i1*stride[1] + ... + ik*stride[k]`. Every
/// view (transpose, slice, expand, ...) only changes sizes, strides and offset; it
/// never moves data. These free functions are that arithmetic, testable on their own.

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <kindling/error.hpp>

namespace kindling {

/// An owned list of sizes or strides, kept inside the object up to `kInline` entries.
///
/// Note: it behaves like `std::vector<std::int64_t>` (the subset the kit uses), but a
/// tensor of at most five dimensions needs no heap block for its shape or its strides,
/// as in PyTorch (c10::DimVector is a SmallVector of 5, and TensorImpl keeps sizes and
/// strides inline up to 5 dims). A small tensor is otherwise two allocations more, and a
/// kernel's loop setup several; together they were a quarter of a tiny graph's time.
class Shape {
 public:
  using value_type = std::int64_t;                                       ///< element type
  using size_type = std::size_t;                                         ///< index type
  using difference_type = std::ptrdiff_t;                                ///< iterator difference
  using reference = std::int64_t&;                                       ///< element reference
  using const_reference = const std::int64_t&;                           ///< const element reference
  using pointer = std::int64_t*;                                         ///< element pointer
  using const_pointer = const std::int64_t*;                             ///< const element pointer
  using iterator = std::int64_t*;                                        ///< contiguous iterator
  using const_iterator = const std::int64_t*;                            ///< const contiguous iterator
  using reverse_iterator = std::reverse_iterator<iterator>;              ///< reverse iterator
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;  ///< const reverse iterator
  /// Entries held without a heap block.
  static constexpr size_type kInline = 5;

  /// An empty list.
  Shape() noexcept {}  // NOLINT(modernize-use-equals-default): inline_ stays uninitialised
  /// `n` copies of `value` (explicit, like std::vector's).
  explicit Shape(size_type n, std::int64_t value = 0) { assign(n, value); }
  /// The braced list's entries.
  Shape(std::initializer_list<std::int64_t> list) { assign(list.begin(), list.end()); }
  /// The entries of [first, last).
  template <std::input_iterator It>
  Shape(It first, It last) {
    assign(first, last);
  }
  /// A copy of a std::vector's entries.
  Shape(const std::vector<std::int64_t>& v) { assign(v.begin(), v.end()); }  // NOLINT(google-explicit-constructor)
  /// A copy.
  Shape(const Shape& other) { assign(other.begin(), other.end()); }
  /// Takes `other`'s heap block, if it has one; `other` is left empty.
  Shape(Shape&& other) noexcept { steal(other); }
  /// Copies `other`'s entries.
  Shape& operator=(const Shape& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  /// Takes `other`'s entries; `other` is left empty.
  Shape& operator=(Shape&& other) noexcept {
    if (this != &other) {
      release();
      steal(other);
    }
    return *this;
  }
  /// Replaces the entries with the braced list's.
  Shape& operator=(std::initializer_list<std::int64_t> list) {
    assign(list.begin(), list.end());
    return *this;
  }
  ~Shape() { release(); }

  /// A std::vector with the same entries.
  operator std::vector<std::int64_t>() const { return {begin(), end()}; }  // NOLINT(google-explicit-constructor)

  /// Number of entries.
  size_type size() const noexcept { return size_; }
  /// True when there are no entries.
  bool empty() const noexcept { return size_ == 0; }
  /// Entries that fit before the next reallocation.
  size_type capacity() const noexcept { return capacity_; }
  /// Pointer to the entries.
  std::int64_t* data() noexcept { return data_; }
  /// Pointer to the entries.
  const std::int64_t* data() const noexcept { return data_; }
  /// Entry `i` (unchecked).
  std::int64_t& operator[](size_type i) noexcept { return data_[i]; }
  /// Entry `i` (unchecked).
  const std::int64_t& operator[](size_type i) const noexcept { return data_[i]; }
  /// Entry `i`; std::out_of_range past the end.
  std::int64_t& at(size_type i) {
    if (i >= size_) throw std::out_of_range("Shape::at: index out of range");
    return data_[i];
  }
  /// Entry `i`; std::out_of_range past the end.
  const std::int64_t& at(size_type i) const { return const_cast<Shape*>(this)->at(i); }
  /// The first entry (the list must not be empty).
  std::int64_t& front() noexcept { return data_[0]; }
  /// The first entry (the list must not be empty).
  const std::int64_t& front() const noexcept { return data_[0]; }
  /// The last entry (the list must not be empty).
  std::int64_t& back() noexcept { return data_[size_ - 1]; }
  /// The last entry (the list must not be empty).
  const std::int64_t& back() const noexcept { return data_[size_ - 1]; }
  /// First entry.
  iterator begin() noexcept { return data_; }
  /// One past the last entry.
  iterator end() noexcept { return data_ + size_; }
  /// First entry.
  const_iterator begin() const noexcept { return data_; }
  /// One past the last entry.
  const_iterator end() const noexcept { return data_ + size_; }
  /// First entry.
  const_iterator cbegin() const noexcept { return data_; }
  /// One past the last entry.
  const_iterator cend() const noexcept { return data_ + size_; }
  /// Last entry, walking backwards.
  reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  /// Before the first entry, walking backwards.
  reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  /// Last entry, walking backwards.
  const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
  /// Before the first entry, walking backwards.
  const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }

  /// Makes room for `n` entries without reallocating.
  void reserve(size_type n) {
    if (n > capacity_) grow(n);
  }
  /// Removes every entry (keeps the capacity).
  void clear() noexcept { size_ = 0; }
  /// Appends `value`.
  void push_back(std::int64_t value) {
    if (size_ == capacity_) grow(2 * capacity_);
    data_[size_++] = value;
  }
  /// Appends `value` and returns it.
  std::int64_t& emplace_back(std::int64_t value) {
    push_back(value);
    return back();
  }
  /// Removes the last entry (the list must not be empty).
  void pop_back() noexcept { --size_; }
  /// `n` entries: the first ones kept, new ones `value`.
  void resize(size_type n, std::int64_t value = 0) {
    reserve(n);
    for (size_type i = size_; i < n; ++i) data_[i] = value;
    size_ = static_cast<std::uint32_t>(n);
  }
  /// Replaces the entries with `n` copies of `value`.
  void assign(size_type n, std::int64_t value) {
    size_ = 0;
    resize(n, value);
  }
  /// Replaces the entries with those of [first, last).
  template <std::input_iterator It>
  void assign(It first, It last) {
    size_ = 0;
    if constexpr (std::forward_iterator<It>) reserve(static_cast<size_type>(std::distance(first, last)));
    for (; first != last; ++first) push_back(static_cast<std::int64_t>(*first));
  }
  /// Replaces the entries with the braced list's.
  void assign(std::initializer_list<std::int64_t> list) { assign(list.begin(), list.end()); }
  /// Inserts `n` copies of `value` before `pos`; returns the first inserted.
  iterator insert(const_iterator pos, size_type n, std::int64_t value) {
    const auto at = static_cast<size_type>(pos - data_);
    reserve(size_ + n);
    std::copy_backward(data_ + at, data_ + size_, data_ + size_ + n);
    std::fill_n(data_ + at, n, value);
    size_ += static_cast<std::uint32_t>(n);
    return data_ + at;
  }
  /// Inserts `value` before `pos`; returns it.
  iterator insert(const_iterator pos, std::int64_t value) { return insert(pos, 1, value); }
  /// Inserts the entries of [first, last) before `pos`; returns the first inserted.
  template <std::forward_iterator It>
  iterator insert(const_iterator pos, It first, It last) {
    const auto at = static_cast<size_type>(pos - data_);
    const auto n = static_cast<size_type>(std::distance(first, last));
    Shape copy(first, last);  // [first, last) may lie inside this list
    reserve(size_ + n);
    std::copy_backward(data_ + at, data_ + size_, data_ + size_ + n);
    std::copy(copy.begin(), copy.end(), data_ + at);
    size_ += static_cast<std::uint32_t>(n);
    return data_ + at;
  }
  /// Inserts the braced list's entries before `pos`.
  iterator insert(const_iterator pos, std::initializer_list<std::int64_t> list) {
    return insert(pos, list.begin(), list.end());
  }
  /// Removes the entries of [first, last); returns the entry after them.
  iterator erase(const_iterator first, const_iterator last) {
    const auto at = static_cast<size_type>(first - data_);
    const auto n = static_cast<size_type>(last - first);
    std::copy(data_ + at + n, data_ + size_, data_ + at);
    size_ -= static_cast<std::uint32_t>(n);
    return data_ + at;
  }
  /// Removes the entry at `pos`; returns the entry after it.
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  /// Exchanges the entries of two lists.
  void swap(Shape& other) noexcept {
    Shape tmp(std::move(other));
    other = std::move(*this);
    *this = std::move(tmp);
  }

  /// Element-wise equality.
  friend bool operator==(const Shape& a, const Shape& b) noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  /// Lexicographic order, as for std::vector.
  friend auto operator<=>(const Shape& a, const Shape& b) noexcept {
    return std::lexicographical_compare_three_way(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  bool on_heap() const noexcept { return data_ != inline_; }
  void release() noexcept {
    if (on_heap()) delete[] data_;
    data_ = inline_;
    size_ = 0;
    capacity_ = kInline;
  }
  void grow(size_type n) {
    n = std::max<size_type>(n, kInline);
    auto* bigger = new std::int64_t[n];
    std::copy(data_, data_ + size_, bigger);
    if (on_heap()) delete[] data_;
    data_ = bigger;
    capacity_ = static_cast<std::uint32_t>(n);
  }
  void steal(Shape& other) noexcept {
    if (other.on_heap()) {
      data_ = other.data_;
      capacity_ = other.capacity_;
    } else {
      std::copy(other.data_, other.data_ + other.size_, inline_);
    }
    size_ = other.size_;
    other.data_ = other.inline_;
    other.size_ = 0;
    other.capacity_ = kInline;
  }

  std::int64_t* data_ = inline_;
  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = kInline;
  std::int64_t inline_[kInline];
};

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
  /// Refers to the elements of a Shape.
  IntArrayRef(const Shape& v)  // NOLINT(google-explicit-constructor)
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
  /// The elements from `start` on (c10::ArrayRef::slice); checked.
  IntArrayRef slice(std::size_t start) const {
    if (start > size_) throw std::out_of_range("IntArrayRef::slice: start is past the end");
    return {data_ + start, size_ - start};
  }
  /// `length` elements from `start` (c10::ArrayRef::slice); checked.
  IntArrayRef slice(std::size_t start, std::size_t length) const {
    if (start + length > size_) throw std::out_of_range("IntArrayRef::slice: the slice runs past the end");
    return {data_ + start, length};
  }
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
