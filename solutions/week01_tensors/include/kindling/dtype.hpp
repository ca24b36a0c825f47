#pragma once
/// @file dtype.hpp
/// Element types and PyTorch's type promotion.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include <kindling/error.hpp>

namespace kindling {

/// The element types a tensor can hold, in promotion order.
enum class ScalarType : std::int8_t { Bool, UInt8, Int32, Int64, Float32, Float64 };
/// LibTorch spells the element type `Dtype` in some places; both names work.
using Dtype = ScalarType;

inline constexpr ScalarType kBool = ScalarType::Bool;        ///< torch.bool
inline constexpr ScalarType kUInt8 = ScalarType::UInt8;      ///< torch.uint8
inline constexpr ScalarType kInt32 = ScalarType::Int32;      ///< torch.int32
inline constexpr ScalarType kInt64 = ScalarType::Int64;      ///< torch.int64
inline constexpr ScalarType kFloat32 = ScalarType::Float32;  ///< torch.float32
inline constexpr ScalarType kFloat64 = ScalarType::Float64;  ///< torch.float64
inline constexpr ScalarType kByte = kUInt8;                  ///< alias of kUInt8
inline constexpr ScalarType kInt = kInt32;                   ///< alias of kInt32
inline constexpr ScalarType kLong = kInt64;                  ///< alias of kInt64
inline constexpr ScalarType kFloat = kFloat32;               ///< alias of kFloat32
inline constexpr ScalarType kDouble = kFloat64;              ///< alias of kFloat64

/// The dtype factories use when none is given (torch.get_default_dtype()).
inline constexpr ScalarType kDefaultDtype = kFloat32;

/// Bytes per element.
constexpr std::size_t element_size(ScalarType t) {
  switch (t) {
    case kBool:
    case kUInt8:
      return 1;
    case kInt32:
    case kFloat32:
      return 4;
    case kInt64:
    case kFloat64:
      return 8;
  }
  return 0;
}

/// PyTorch's name without the module, e.g. "float32".
constexpr std::string_view dtype_name(ScalarType t) {
  switch (t) {
    case kBool:
      return "bool";
    case kUInt8:
      return "uint8";
    case kInt32:
      return "int32";
    case kInt64:
      return "int64";
    case kFloat32:
      return "float32";
    case kFloat64:
      return "float64";
  }
  return "?";
}

/// The name PyTorch's C++ messages use, e.g. "Float" or "Long".
constexpr std::string_view dtype_short_name(ScalarType t) {
  switch (t) {
    case kBool:
      return "Bool";
    case kUInt8:
      return "Byte";
    case kInt32:
      return "Int";
    case kInt64:
      return "Long";
    case kFloat32:
      return "Float";
    case kFloat64:
      return "Double";
  }
  return "?";
}

/// The legacy tensor type name PyTorch prints in some messages, e.g. "torch.FloatTensor".
constexpr std::string_view legacy_type_name(ScalarType t) {
  switch (t) {
    case kBool:
      return "torch.BoolTensor";
    case kUInt8:
      return "torch.ByteTensor";
    case kInt32:
      return "torch.IntTensor";
    case kInt64:
      return "torch.LongTensor";
    case kFloat32:
      return "torch.FloatTensor";
    case kFloat64:
      return "torch.DoubleTensor";
  }
  return "?";
}

/// True for float32 and float64.
constexpr bool is_floating_point(ScalarType t) { return t == kFloat32 || t == kFloat64; }
/// True for the integer types; bool counts only when `include_bool`.
constexpr bool is_integral(ScalarType t, bool include_bool) {
  return t == kUInt8 || t == kInt32 || t == kInt64 || (include_bool && t == kBool);
}

/// torch.promote_types: the smallest type both convert to without losing category.
/// For Kindling's six types the promotion order is the enum order.
constexpr ScalarType promote_types(ScalarType a, ScalarType b) { return a < b ? b : a; }

/// torch.can_cast: whether a result of type `from` may be written into `to`
/// (no float into an integer, no number into bool).
constexpr bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating_point(from) && !is_floating_point(to)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

/// The C++ type of each dtype: `typename cpp_type<kFloat32>::type` is float.
template <ScalarType T>
struct cpp_type;
/// kBool holds bool.
template <>
struct cpp_type<kBool> {
  using type = bool; /**< the C++ type */
};
/// kUInt8 holds std::uint8_t.
template <>
struct cpp_type<kUInt8> {
  using type = std::uint8_t; /**< the C++ type */
};
/// kInt32 holds std::int32_t.
template <>
struct cpp_type<kInt32> {
  using type = std::int32_t; /**< the C++ type */
};
/// kInt64 holds std::int64_t.
template <>
struct cpp_type<kInt64> {
  using type = std::int64_t; /**< the C++ type */
};
/// kFloat32 holds float.
template <>
struct cpp_type<kFloat32> {
  using type = float; /**< the C++ type */
};
/// kFloat64 holds double.
template <>
struct cpp_type<kFloat64> {
  using type = double; /**< the C++ type */
};

/// The dtype of a C++ element type.
template <class T>
constexpr ScalarType dtype_of() {
  if constexpr (std::is_same_v<T, bool>)
    return kBool;
  else if constexpr (std::is_same_v<T, std::uint8_t>)
    return kUInt8;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return kInt32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return kInt64;
  else if constexpr (std::is_same_v<T, float>)
    return kFloat32;
  else if constexpr (std::is_same_v<T, double>)
    return kFloat64;
  else
    static_assert(sizeof(T) == 0, "not a Kindling element type");
}

/// A tag carrying a C++ element type, passed to the visitor of visit_dtype.
template <class T>
struct TypeTag {
  using type = T; /**< the element type */
};

/// Calls `f(TypeTag<T>{})` with the C++ type of `t`: the one place that turns a
/// runtime dtype into a compile-time type.
template <class F>
decltype(auto) visit_dtype(ScalarType t, F&& f) {
  switch (t) {
    case kBool:
      return f(TypeTag<bool>{});
    case kUInt8:
      return f(TypeTag<std::uint8_t>{});
    case kInt32:
      return f(TypeTag<std::int32_t>{});
    case kInt64:
      return f(TypeTag<std::int64_t>{});
    case kFloat32:
      return f(TypeTag<float>{});
    case kFloat64:
      return f(TypeTag<double>{});
  }
  throw Error("unknown dtype");
}

}  // namespace kindling
