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

// PyTorch's powi, as the CPU's: a negative exponent gives 1 for base 1, +-1 for base -1, else 0.
template <class T>
__device__ inline T int_pow(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < T(0)) return base == T(1) ? T(1) : base == T(-1) ? static_cast<T>(exp % T(2) == T(0) ? 1 : -1) : T(0);
  }
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
        return v < T(0) ? T(0) : v;
      default:  // rounding is the identity on integers
        return v;
    }
  } else {
    const double x = static_cast<double>(v);
    switch (op) {
      case kNeg:
        return -v;
      case kAbs:
        return v <= T(0) ? T(0) - v : v;  // abs(-0.0) is +0.0; NaN stays NaN
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
        return v < T(0) ? T(0) : v;
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

// The common case, apart: every array operand contiguous (1-D after coalesce()) and an arithmetic
// op known at compile time, so that an element costs its loads, its op and its store. The general
// kernel above spends more instructions than a GPU's memory system leaves it on index arithmetic
// and the op's switch (measured on an H200: x + y at 0.20 of the copy bandwidth before, with the
// strided indexing, 0.61 with it coalesced).
template <int Op, class T>
__global__ void binary_contiguous_kernel(DevPtr<T> out, DevPtr<const T> a, T a_value, DevPtr<const T> b, T b_value,
                                         T alpha, std::int64_t n) {
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    const T x = a ? static_cast<T>(a[i]) : a_value;
    const T y = b ? static_cast<T>(b[i]) : b_value;
    out[i] = arithmetic<T>(Op, x, y, alpha);
  }
}

// True for a layout that addresses its elements one after another from its offset (after coalesce()).
inline bool is_dense(const Strided& s) { return s.ndim == 0 || (s.ndim == 1 && s.strides[0] == 1); }

}  // namespace

void copy(ScalarType dst_type, const Operand& dst, ScalarType src_type, const Operand& src, std::int64_t n,
          void* stream) {
  if (n == 0) return;
  Strided sd = dst.layout, ss = src.layout;
  coalesce({&sd, &ss});
  with_type(dst_type, [&](auto d) {
    using D = decltype(d);
    with_type(src_type, [&](auto s) {
      using S = decltype(s);
      launch<copy_kernel<D, S>>(config_for(n, stream), device_ptr<D>(dst.data), sd, device_ptr<const S>(src.data), ss,
                                n);
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
    Strided sd = dst.layout;
    coalesce({&sd});
    launch<fill_kernel<T>>(config_for(n, stream), device_ptr<T>(dst.data), sd, v, n);
  });
}

void unary(int op, ScalarType out_type, const Operand& out, ScalarType type, const Operand& x, std::int64_t n,
           void* stream) {
  if (n == 0) return;
  Strided so = out.layout, sx = x.layout;
  coalesce({&so, &sx});
  with_type(type, [&](auto t) {
    using T = decltype(t);
    if (out_type == ScalarType::Bool && type != ScalarType::Bool)
      launch<unary_kernel<bool, T>>(config_for(n, stream), op, device_ptr<bool>(out.data), so,
                                    device_ptr<const T>(x.data), sx, n);
    else
      launch<unary_kernel<T, T>>(config_for(n, stream), op, device_ptr<T>(out.data), so, device_ptr<const T>(x.data),
                                 sx, n);
  });
}

void binary(int op, ScalarType type, const Operand& out, const Operand& a, const Operand& b, double alpha,
            std::int64_t alpha_int, std::int64_t n, void* stream) {
  if (n == 0) return;
  Strided so = out.layout, sa = a.layout, sb = b.layout;
  coalesce({&so, a.is_scalar ? nullptr : &sa, b.is_scalar ? nullptr : &sb});
  with_type(type, [&](auto t) {
    using T = decltype(t);
    T al{};
    if constexpr (static_cast<bool>(T(0.5) == T(0)))
      al = static_cast<T>(alpha_int);
    else
      al = static_cast<T>(alpha);
    const auto pa = a.is_scalar ? DevPtr<const T>() : device_ptr<const T>(a.data);
    const auto pb = b.is_scalar ? DevPtr<const T>() : device_ptr<const T>(b.data);
    if (op <= kDiv && is_dense(so) && (a.is_scalar || is_dense(sa)) && (b.is_scalar || is_dense(sb))) {
      // (Offsets folded into the pointers: the kernel indexes from element 0.)
      const auto at = [](auto p, const Strided& l) { return p ? p + l.offset : p; };
      const auto po = device_ptr<T>(out.data) + so.offset;
      const LaunchConfig config = config_for(n, stream);
      const T av = scalar_of<T>(a), bv = scalar_of<T>(b);
      switch (op) {
        case kAdd:
          return launch<binary_contiguous_kernel<kAdd, T>>(config, po, at(pa, sa), av, at(pb, sb), bv, al, n);
        case kSub:
          return launch<binary_contiguous_kernel<kSub, T>>(config, po, at(pa, sa), av, at(pb, sb), bv, al, n);
        case kMul:
          return launch<binary_contiguous_kernel<kMul, T>>(config, po, at(pa, sa), av, at(pb, sb), bv, al, n);
        default:
          return launch<binary_contiguous_kernel<kDiv, T>>(config, po, at(pa, sa), av, at(pb, sb), bv, al, n);
      }
    }
    if (op >= kEq && type != ScalarType::Bool)
      launch<binary_kernel<bool, T>>(config_for(n, stream), op, device_ptr<bool>(out.data), so, pa, sa, scalar_of<T>(a),
                                     pb, sb, scalar_of<T>(b), al, n);
    else
      launch<binary_kernel<T, T>>(config_for(n, stream), op, device_ptr<T>(out.data), so, pa, sa, scalar_of<T>(a), pb,
                                  sb, scalar_of<T>(b), al, n);
  });
}

}  // namespace kindling::cuda::kernels
