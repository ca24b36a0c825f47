// The engine's elementwise kernels: strided copies with casts, fills, unary and binary ops,
// each a grid-stride loop over the elements in row-major order, reading every operand through
// its own strides (0 for a broadcast dimension). One source for nvcc and the simulator.

#include <math.h>

#include <type_traits>

#include "common.hpp"

namespace kindling::cuda::kernels {
namespace {

// The op codes of kindling::UnaryOp and kindling::BinaryOp (device_hooks.hpp; backend.cpp checks
// that they agree).
enum Unary : int {
  kNeg,
  kAbs,
  kSign,
  kExp,
  kLog,
  kLog1p,
  kSqrt,
  kRsqrt,
  kSin,
  kCos,
  kTanh,
  kSigmoid,
  kReciprocal,
  kRelu,
  kFloor,
  kCeil,
  kRound,
  kIsNan,
  kIsFinite,
  kLogicalNot
};
enum Binary : int { kAdd, kSub, kMul, kDiv, kPow, kMaximum, kMinimum, kEq, kNe, kLt, kLe, kGt, kGe };

template <class T>
__device__ inline T int_pow(T base, T exp) {
  T result = 1;
  while (exp > 0) {
    if (exp & 1) result = static_cast<T>(result * base);
    base = static_cast<T>(base * base);
    exp = static_cast<T>(exp >> 1);
  }
  return result;
}

template <class D, class S>
__device__ inline D convert(S v) {
  if constexpr (std::is_same_v<D, std::uint8_t> && std::is_floating_point_v<S>)
    return static_cast<D>(static_cast<std::int64_t>(v));  // a float to uint8 goes through int64, as on the CPU
  else
    return static_cast<D>(v);
}

template <class D, class S>
__global__ void copy_kernel(DevPtr<D> dst, Strided sd, DevPtr<const S> src, Strided ss, std::int64_t n) {
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
    dst[offset_of(sd, i)] = convert<D, S>(static_cast<S>(src[offset_of(ss, i)]));
}

template <class T>
__global__ void fill_kernel(DevPtr<T> dst, Strided sd, T value, std::int64_t n) {
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
    dst[offset_of(sd, i)] = value;
}

template <class T>
__device__ inline T unary_value(int op, T v) {
  if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>) {  // no negative values
    switch (op) {
      case kNeg:
        return static_cast<T>(-v);  // uint8 wraps around, as on the CPU
      case kSign:
        return static_cast<T>(T(0) < v);
      case kRelu:
      default:
        return v;
    }
  } else if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case kNeg:
        return static_cast<T>(-v);
      case kAbs:
        return v < T(0) ? static_cast<T>(-v) : v;
      case kSign:
        return static_cast<T>((T(0) < v) - (v < T(0)));
      case kRelu:
        return v > T(0) ? v : T(0);
      default:  // rounding is the identity on integers
        return v;
    }
  } else {
    const double x = static_cast<double>(v);
    switch (op) {
      case kNeg:
        return -v;
      case kAbs:
        return v < T(0) ? -v : v;
      case kSign:
        return static_cast<T>((T(0) < v) - (v < T(0)));
      case kExp:
        return static_cast<T>(exp(x));
      case kLog:
        return static_cast<T>(log(x));
      case kLog1p:
        return static_cast<T>(log1p(x));
      case kSqrt:
        return static_cast<T>(sqrt(x));
      case kRsqrt:
        return static_cast<T>(1.0 / sqrt(x));
      case kSin:
        return static_cast<T>(sin(x));
      case kCos:
        return static_cast<T>(cos(x));
      case kTanh:
        return static_cast<T>(tanh(x));
      case kSigmoid:
        return static_cast<T>(1.0 / (1.0 + exp(-x)));
      case kReciprocal:
        return T(1) / v;
      case kRelu:
        return v > T(0) ? v : T(0);
      case kFloor:
        return static_cast<T>(floor(x));
      case kCeil:
        return static_cast<T>(ceil(x));
      case kRound:
        return static_cast<T>(nearbyint(x));
      default:
        return v;
    }
  }
}

template <class T>
__device__ inline bool unary_predicate(int op, T v) {
  switch (op) {
    case kIsNan:
      return is_nan(v);
    case kIsFinite:
      if constexpr (static_cast<bool>(T(0.5) == T(0)))
        return true;
      else
        return isfinite(static_cast<double>(v));
    default:  // kLogicalNot
      return v == T(0);
  }
}

template <class O, class T>
__global__ void unary_kernel(int op, DevPtr<O> out, Strided so, DevPtr<const T> x, Strided sx, std::int64_t n) {
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    const T v = x[offset_of(sx, i)];
    if constexpr (sizeof(O) == 1 && sizeof(T) != 1)
      out[offset_of(so, i)] = unary_predicate<T>(op, v);
    else if (op >= kIsNan)
      out[offset_of(so, i)] = static_cast<O>(unary_predicate<T>(op, v));
    else
      out[offset_of(so, i)] = static_cast<O>(unary_value<T>(op, v));
  }
}

template <class T>
__device__ inline T arithmetic(int op, T x, T y, T alpha) {
  switch (op) {
    case kAdd:
      return static_cast<T>(x + alpha * y);
    case kSub:
      return static_cast<T>(x - alpha * y);
    case kMul:
      return static_cast<T>(x * y);
    case kDiv:
      return static_cast<T>(x / y);
    case kPow:
      if constexpr (static_cast<bool>(T(0.5) == T(0)))
        return int_pow<T>(x, y);
      else
        return static_cast<T>(pow(static_cast<double>(x), static_cast<double>(y)));
    case kMaximum:
    case kMinimum:
      if (is_nan(x)) return x;
      if (is_nan(y)) return y;
      if (op == kMaximum) return x < y ? y : x;
      return y < x ? y : x;
    default:
      return x;
  }
}

template <class T>
__device__ inline bool compare(int op, T x, T y) {
  switch (op) {
    case kEq:
      return x == y;
    case kNe:
      return x != y;
    case kLt:
      return x < y;
    case kLe:
      return x <= y;
    case kGt:
      return x > y;
    default:
      return x >= y;
  }
}

// A 0-d CPU operand arrives as a value (`scalar`), with a null pointer.
template <class O, class T>
__global__ void binary_kernel(int op, DevPtr<O> out, Strided so, DevPtr<const T> a, Strided sa, T a_value,
                              DevPtr<const T> b, Strided sb, T b_value, T alpha, std::int64_t n) {
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    const T x = a ? static_cast<T>(a[offset_of(sa, i)]) : a_value;
    const T y = b ? static_cast<T>(b[offset_of(sb, i)]) : b_value;
    if constexpr (sizeof(O) == 1 && sizeof(T) != 1)
      out[offset_of(so, i)] = compare<T>(op, x, y);
    else if (op >= kEq)
      out[offset_of(so, i)] = static_cast<O>(compare<T>(op, x, y));
    else
      out[offset_of(so, i)] = arithmetic<T>(op, x, y, alpha);
  }
}

}  // namespace

void copy(ScalarType dst_type, const Operand& dst, ScalarType src_type, const Operand& src, std::int64_t n,
          void* stream) {
  if (n == 0) return;
  with_type(dst_type, [&](auto d) {
    using D = decltype(d);
    with_type(src_type, [&](auto s) {
      using S = decltype(s);
      launch<copy_kernel<D, S>>(config_for(n, stream), device_ptr<D>(dst.data), dst.layout,
                                device_ptr<const S>(src.data), src.layout, n);
    });
  });
}

void fill(ScalarType type, const Operand& dst, double value, std::int64_t value_int, std::int64_t n, void* stream) {
  if (n == 0) return;
  with_type(type, [&](auto t) {
    using T = decltype(t);
    T v{};
    if constexpr (static_cast<bool>(T(0.5) == T(0)))
      v = static_cast<T>(value_int);
    else
      v = static_cast<T>(value);
    launch<fill_kernel<T>>(config_for(n, stream), device_ptr<T>(dst.data), dst.layout, v, n);
  });
}

void unary(int op, ScalarType out_type, const Operand& out, ScalarType type, const Operand& x, std::int64_t n,
           void* stream) {
  if (n == 0) return;
  with_type(type, [&](auto t) {
    using T = decltype(t);
    if (out_type == ScalarType::Bool && type != ScalarType::Bool)
      launch<unary_kernel<bool, T>>(config_for(n, stream), op, device_ptr<bool>(out.data), out.layout,
                                    device_ptr<const T>(x.data), x.layout, n);
    else
      launch<unary_kernel<T, T>>(config_for(n, stream), op, device_ptr<T>(out.data), out.layout,
                                 device_ptr<const T>(x.data), x.layout, n);
  });
}

void binary(int op, ScalarType type, const Operand& out, const Operand& a, const Operand& b, double alpha,
            std::int64_t alpha_int, std::int64_t n, void* stream) {
  if (n == 0) return;
  with_type(type, [&](auto t) {
    using T = decltype(t);
    T al{};
    if constexpr (static_cast<bool>(T(0.5) == T(0)))
      al = static_cast<T>(alpha_int);
    else
      al = static_cast<T>(alpha);
    const auto pa = a.is_scalar ? DevPtr<const T>() : device_ptr<const T>(a.data);
    const auto pb = b.is_scalar ? DevPtr<const T>() : device_ptr<const T>(b.data);
    if (op >= kEq && type != ScalarType::Bool)
      launch<binary_kernel<bool, T>>(config_for(n, stream), op, device_ptr<bool>(out.data), out.layout, pa, a.layout,
                                     scalar_of<T>(a), pb, b.layout, scalar_of<T>(b), al, n);
    else
      launch<binary_kernel<T, T>>(config_for(n, stream), op, device_ptr<T>(out.data), out.layout, pa, a.layout,
                                  scalar_of<T>(a), pb, b.layout, scalar_of<T>(b), al, n);
  });
}

}  // namespace kindling::cuda::kernels
