#pragma once
/// @file indexing.hpp
/// Python's `x[...]` in C++, as LibTorch spells it: `x.index({Slice(0, 3), None, Ellipsis, 1})`
/// reads, `x.index_put_({mask}, 0.0)` writes.
///
/// The rule the notes teach for view versus copy holds here word for word. Integers, slices,
/// `None` and `Ellipsis` are *basic* indexing: the result is a view of `x` (select, slice,
/// unsqueeze), sharing its storage. A tensor in the list (of int64 positions or a bool mask), and
/// a bool (`True`, `False`), is *advanced* indexing: the result is a new tensor (index_select),
/// and writing to it does not write to `x`; `index_put_` is the form that writes.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include <kindling/tensor.hpp>

namespace kindling::indexing {

/// Python's `start:stop:step`. Each bound is optional (`Slice()` is `:`, `Slice(None, 3)` is
/// `:3`); negative bounds count from the end and out-of-range bounds are clamped, as in Python.
class Slice {
 public:
  /// `start:stop:step` (step > 0, as in PyTorch).
  Slice(std::optional<std::int64_t> start = std::nullopt,  // NOLINT(google-explicit-constructor)
        std::optional<std::int64_t> stop = std::nullopt, std::optional<std::int64_t> step = std::nullopt)
      : start_(start), stop_(stop), step_(step.value_or(1)) {}
  std::optional<std::int64_t> start() const { return start_; }  ///< the first index, if given
  std::optional<std::int64_t> stop() const { return stop_; }    ///< one past the last, if given
  std::int64_t step() const { return step_; }                   ///< the step (1 unless given)

 private:
  std::optional<std::int64_t> start_, stop_;
  std::int64_t step_;
};

/// Python's `...`: as many full slices as the other indices leave dimensions.
struct EllipsisIndexType {};
/// Python's `...`.
inline constexpr EllipsisIndexType Ellipsis{};
/// Python's `None`: a new dimension of size 1 here (unsqueeze).
inline constexpr std::nullopt_t None = std::nullopt;

/// One entry of an index list: an integer, a Slice, None, Ellipsis ("..." too), a bool (Python's
/// `True`/`False`) or a tensor (int64 positions or a bool mask).
class TensorIndex {
 public:
  /// None: unsqueeze.
  TensorIndex(std::nullopt_t /*none*/) : v_(NoneTag{}) {}  // NOLINT(google-explicit-constructor)
  /// Ellipsis.
  TensorIndex(EllipsisIndexType /*ellipsis*/) : v_(EllipsisIndexType{}) {}  // NOLINT(google-explicit-constructor)
  /// "...", as LibTorch also accepts.
  TensorIndex(const char* text);  // NOLINT(google-explicit-constructor)
  /// An integer: select (the dimension goes).
  template <class I>
  requires(std::is_integral_v<I> && !std::is_same_v<I, bool>) TensorIndex(I i)  // NOLINT(google-explicit-constructor)
      : v_(static_cast<std::int64_t>(i)) {}
  /// A bool: `True` adds a dimension of size 1, `False` one of size 0 (a bool only: a double or a
  /// pointer does not turn into one).
  template <class B>
  requires std::is_same_v<B, bool> TensorIndex(B b) : v_(b) {}  // NOLINT(google-explicit-constructor)
  /// A slice.
  TensorIndex(Slice s) : v_(s) {}  // NOLINT(google-explicit-constructor)
  /// A tensor: advanced indexing.
  TensorIndex(Tensor t) : v_(std::move(t)) {}  // NOLINT(google-explicit-constructor)

  bool is_none() const { return std::holds_alternative<NoneTag>(v_); }                ///< None
  bool is_ellipsis() const { return std::holds_alternative<EllipsisIndexType>(v_); }  ///< Ellipsis
  bool is_integer() const { return std::holds_alternative<std::int64_t>(v_); }        ///< an integer
  bool is_boolean() const { return std::holds_alternative<bool>(v_); }                ///< a bool
  bool is_slice() const { return std::holds_alternative<Slice>(v_); }                 ///< a Slice
  bool is_tensor() const { return std::holds_alternative<Tensor>(v_); }               ///< a tensor
  std::int64_t integer() const { return std::get<std::int64_t>(v_); }                 ///< the integer
  bool boolean() const { return std::get<bool>(v_); }                                 ///< the bool
  const Slice& slice() const { return std::get<Slice>(v_); }                          ///< the slice
  const Tensor& tensor() const { return std::get<Tensor>(v_); }                       ///< the tensor

 private:
  struct NoneTag {};
  std::variant<NoneTag, EllipsisIndexType, std::int64_t, bool, Slice, Tensor> v_;
};

}  // namespace kindling::indexing
