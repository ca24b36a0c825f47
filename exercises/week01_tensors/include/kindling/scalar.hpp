#pragma once
/// @file scalar.hpp
/// Scalar: one number of any dtype, as passed to fill_, full or `t + 2`.

#include <cstdint>
#include <type_traits>

#include <kindling/dtype.hpp>

namespace kindling {

/// A number that remembers whether it was a bool, an integer or a floating value,
/// because PyTorch's type promotion treats the three differently (`int_tensor * 2`
/// stays integral, `int_tensor * 2.5` becomes float32).
class Scalar {
 public:
  /// Zero, integral.
  constexpr Scalar() = default;
  /// From any arithmetic value: bool stays bool, integers become int64, floats double.
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  constexpr Scalar(T v) {  // NOLINT(google-explicit-constructor)
    if constexpr (std::is_same_v<T, bool>) {
      kind_ = kBool;
      i_ = v ? 1 : 0;
    } else if constexpr (std::is_floating_point_v<T>) {
      kind_ = kFloat64;
      d_ = static_cast<double>(v);
    } else {
      kind_ = kInt64;
      i_ = static_cast<std::int64_t>(v);
    }
  }
  /// kBool, kInt64 or kFloat64: the category the value came from.
  constexpr ScalarType type() const { return kind_; }
  /// True for a floating value.
  constexpr bool is_floating_point() const { return kind_ == kFloat64; }
  /// True for a bool.
  constexpr bool is_bool() const { return kind_ == kBool; }
  /// The value converted to T.
  template <class T>
  constexpr T to() const {
    if (kind_ == kFloat64) return static_cast<T>(d_);
    return static_cast<T>(i_);
  }
  /// LibTorch's named conversions (c10::Scalar's toDouble, toLong, ...): to<T>().
  constexpr double toDouble() const { return to<double>(); }
  constexpr float toFloat() const { return to<float>(); }               ///< to<float>()
  constexpr std::int64_t toLong() const { return to<std::int64_t>(); }  ///< to<int64_t>()
  constexpr int toInt() const { return to<int>(); }                     ///< to<int>()
  constexpr bool toBool() const { return to<bool>(); }                  ///< to<bool>()

 private:
  ScalarType kind_ = kInt64;
  std::int64_t i_ = 0;
  double d_ = 0.0;
};

}  // namespace kindling
