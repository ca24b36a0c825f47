// Elementwise operations: type promotion, one generic binary kernel and one
// generic unary kernel, instantiated per dtype and operator.

#include <cmath>
#include <functional>

#include <kindling/device_hooks.hpp>
#include <kindling/factory.hpp>
#include <kindling/ops.hpp>

#include "autograd_hooks.hpp"
#include "internal.hpp"
#include "loop.hpp"

namespace kindling {

// ---- type promotion ---------------------------------------------------------------------
namespace {
struct ResultTypeState {
  std::optional<ScalarType> dim, zero, wrapped;
};

void update_state(ResultTypeState& s, const Tensor& t) {
  ScalarType current = t.dtype();
  auto merge = [](std::optional<ScalarType>& slot, ScalarType v) { slot = slot ? promote_types(*slot, v) : v; };
  if (t.impl().is_wrapped_number) {
    if (is_floating_point(current)) current = kDefaultDtype;
    merge(s.wrapped, current);
  } else if (t.dim() == 0) {
    merge(s.zero, current);
  } else {
    merge(s.dim, current);
  }
}

// c10's combine_categories: a lower-priority group only matters when it is of a higher category.
std::optional<ScalarType> combine(std::optional<ScalarType> higher, std::optional<ScalarType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_floating_point(*higher)) return higher;
  if (*higher == kBool || is_floating_point(*lower)) return promote_types(*higher, *lower);
  return higher;
}

ScalarType result_type_of(std::initializer_list<const Tensor*> tensors) {
  ResultTypeState s;
  for (const Tensor* t : tensors) update_state(s, *t);
  return *combine(s.dim, combine(s.zero, s.wrapped));
}
}  // namespace

ScalarType result_type(const Tensor& a, const Tensor& b) { return result_type_of({&a, &b}); }
ScalarType result_type(const Tensor& a, const Scalar& b) {
  ResultTypeState s;
  update_state(s, a);
  // A Scalar counts as a wrapped number: a float as the default dtype, an int as int64.
  const ScalarType w = b.is_floating_point() ? kDefaultDtype : b.type();
  s.wrapped = s.wrapped ? promote_types(*s.wrapped, w) : w;
  return *combine(s.dim, combine(s.zero, s.wrapped));
}

namespace detail {
Tensor wrapped_scalar_for(const Scalar& s, const Tensor& other) {
  const ScalarType t = result_type(other, s);
  return wrapped_scalar(s, is_floating_point(t) ? t : s.type());
}
}  // namespace detail

// ---- generic kernels -----------------------------------------------------------------------
namespace {
template <class Out, class In, class F>
void binary_loop(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  detail::parallel_for_each_run<3>(
      "elementwise", out.sizes(), {&out, &a, &b},
      [&f](std::array<char*, 3> p, std::array<std::int64_t, 3> s, std::int64_t n) {
        Out* o = reinterpret_cast<Out*>(p[0]);
        const In* x = reinterpret_cast<const In*>(p[1]);
        const In* y = reinterpret_cast<const In*>(p[2]);
        constexpr auto so = static_cast<std::int64_t>(sizeof(Out)), si = static_cast<std::int64_t>(sizeof(In));
        if (s[0] == so && s[1] == si && s[2] == si) {
          for (std::int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
        } else if (s[0] == so && s[1] == si && s[2] == 0) {
          const In yv = *y;
          for (std::int64_t i = 0; i < n; ++i) o[i] = f(x[i], yv);
        } else if (s[0] == so && s[1] == 0 && s[2] == si) {
          const In xv = *x;
          for (std::int64_t i = 0; i < n; ++i) o[i] = f(xv, y[i]);
        } else {
          for (std::int64_t i = 0; i < n; ++i)
            *reinterpret_cast<Out*>(p[0] + i * s[0]) =
                f(*reinterpret_cast<const In*>(p[1] + i * s[1]), *reinterpret_cast<const In*>(p[2] + i * s[2]));
        }
      });
}

// o[i] = f(v[i]) over one contiguous run. A function of its own, with the run's
// pointers as arguments: written inline in unary_loop's lambda, GCC 12 left some
// instances scalar (a comparison with a value, ReLU's backward mask: one vcomiss and
// one seta per element, 0.7-0.9 ns against about 0.1 here). The output is always a
// fresh tensor, so it never overlaps the input.
template <class Out, class In, class F>
[[gnu::noinline]] void map_run(Out* __restrict o, const In* __restrict v, std::int64_t n, F f) {
  for (std::int64_t i = 0; i < n; ++i) o[i] = f(v[i]);
}

// out = f(x) elementwise; `out` is a fresh contiguous tensor (never x itself).
template <class Out, class In, class F>
void unary_loop(const Tensor& out, const Tensor& x, F f) {
  detail::parallel_for_each_run<2>("elementwise", out.sizes(), {&out, &x},
                                   [&f](std::array<char*, 2> p, std::array<std::int64_t, 2> s, std::int64_t n) {
                                     if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
                                       map_run(reinterpret_cast<Out*>(p[0]), reinterpret_cast<const In*>(p[1]), n, f);
                                     } else {
                                       for (std::int64_t i = 0; i < n; ++i)
                                         *reinterpret_cast<Out*>(p[0] + i * s[0]) =
                                             f(*reinterpret_cast<const In*>(p[1] + i * s[1]));
                                     }
                                   });
}

enum class Bin { Add, Sub, Mul, Div, Pow, Maximum, Minimum, Eq, Ne, Lt, Le, Gt, Ge };

bool is_comparison(Bin op) { return op >= Bin::Eq; }

using detail::autograd::differentiable;
using detail::autograd::Op;
using detail::autograd::OpArgs;

// The autograd op of an arithmetic operator (comparisons are not differentiable).
Op grad_op(Bin op) {
  constexpr Op ops[] = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Pow, Op::Maximum, Op::Minimum};
  return ops[static_cast<int>(op)];
}

// Integer arithmetic wraps around on overflow, as PyTorch's does: done in detail::Wrapping<T>,
// the unsigned type of T's width (reduce.cpp's sums do the same). For floating types and bool,
// Wrapping<T> is T and these are the plain operations.
template <class T>
T wrap_mul(T x, T y) {
  using W = detail::Wrapping<T>;
  return static_cast<T>(static_cast<W>(x) * static_cast<W>(y));
}
template <class T>
T wrap_neg(T x) {
  using W = detail::Wrapping<T>;
  return static_cast<T>(-static_cast<W>(x));
}

// An integer power, PyTorch's powi: a negative exponent gives the truncated reciprocal, which is
// 1 for base 1, +-1 for base -1 (by the exponent's parity) and 0 for every other base, 0 included.
template <class T>
T int_pow(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) return base == 1 ? T{1} : base == -1 ? static_cast<T>(exp % 2 == 0 ? 1 : -1) : T{0};
  }
  T result = 1;
  while (exp > 0) {
    if (exp & 1) result = wrap_mul(result, base);
    base = wrap_mul(base, base);
    exp >>= 1;
  }
  return result;
}

// Calls f with `x op y` for op in {Add, Sub, Mul, Div} as a function of (x, y), in T:
// the one definition the tensor-tensor kernel and the tensor-Scalar one both run, so
// that they give the same bits.
// Integers in detail::Wrapping<T> (they wrap around); for floating types the casts are no-ops.
template <class T, class F>
void with_arithmetic(Bin op, T al, F&& f) {
  using W = detail::Wrapping<T>;
  switch (op) {
    case Bin::Add:
      return f([al](T x, T y) { return static_cast<T>(static_cast<W>(x) + static_cast<W>(al) * static_cast<W>(y)); });
    case Bin::Sub:
      return f([al](T x, T y) { return static_cast<T>(static_cast<W>(x) - static_cast<W>(al) * static_cast<W>(y)); });
    case Bin::Mul:
      return f([](T x, T y) { return static_cast<T>(static_cast<W>(x) * static_cast<W>(y)); });
    default:
      return f([](T x, T y) { return static_cast<T>(x / y); });
  }
}

// Calls f with the comparison op in {Eq, Ne, Lt, Le, Gt, Ge} as a function object.
template <class F>
void with_comparison(Bin op, F&& f) {
  switch (op) {
    case Bin::Eq:
      return f(std::equal_to<>());
    case Bin::Ne:
      return f(std::not_equal_to<>());
    case Bin::Lt:
      return f(std::less<>());
    case Bin::Le:
      return f(std::less_equal<>());
    case Bin::Gt:
      return f(std::greater<>());
    default:
      return f(std::greater_equal<>());
  }
}

// out = a op b, with a, b already of the compute dtype T.
template <class T>
void binary_kernel(Bin op, const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  switch (op) {
    case Bin::Add:
    case Bin::Sub:
    case Bin::Mul:
    case Bin::Div:
      return with_arithmetic<T>(op, alpha.to<T>(), [&](auto fn) { binary_loop<T, T>(out, a, b, fn); });
    case Bin::Pow:
      if constexpr (std::is_floating_point_v<T>)
        return binary_loop<T, T>(out, a, b, [](T x, T y) { return std::pow(x, y); });
      else
        return binary_loop<T, T>(out, a, b, [](T x, T y) { return int_pow<T>(x, y); });
    case Bin::Maximum:
    case Bin::Minimum: {
      const bool take_max = op == Bin::Maximum;
      return binary_loop<T, T>(out, a, b, [take_max](T x, T y) {
        if constexpr (std::is_floating_point_v<T>) {
          if (x != x) return x;
          if (y != y) return y;
        }
        return take_max ? (x < y ? y : x) : (y < x ? y : x);
      });
    }
    case Bin::Eq:
    case Bin::Ne:
    case Bin::Lt:
    case Bin::Le:
    case Bin::Gt:
    case Bin::Ge:
      return with_comparison(
          op, [&](auto cmp) { binary_loop<bool, T>(out, a, b, [cmp](T x, T y) -> bool { return cmp(x, y); }); });
  }
}

// PyTorch refuses a subtraction with a bool operand, a Scalar one included.
void check_sub_operands(bool a_is_bool, bool b_is_bool) {
  if (a_is_bool && b_is_bool)
    throw Error(
        "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
        "`logical_xor()` operator instead.");
  if (a_is_bool || b_is_bool)
    throw Error(
        "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "
        "use the `~` or `logical_not()` operator instead.");
}

ScalarType compute_dtype(Bin op, const Tensor& a, const Tensor& b) {
  ScalarType t = result_type(a, b);
  if (op == Bin::Div && !is_floating_point(t)) t = kDefaultDtype;  // true division
  if (op == Bin::Sub) check_sub_operands(a.dtype() == kBool, b.dtype() == kBool);
  // A negative integer exponent is refused only as a Scalar (pow(Tensor, Scalar)); a tensor of
  // exponents takes int_pow's truncated reciprocals, as in PyTorch.
  if (op == Bin::Pow) KINDLING_CHECK(t != kBool, "\"pow\" not implemented for 'Bool'");
  return t;
}

void dispatch_binary(Bin op, ScalarType t, const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  visit_dtype(t, [&](auto tag) { binary_kernel<typename decltype(tag)::type>(op, out, a, b, alpha); });
}

// pow(Tensor, Scalar) on floating values, as PyTorch's CPU kernel runs it: exponents 0.5, -0.5
// and -1 are sqrt, rsqrt and reciprocal, and 2, 3 and -2 are products. The values differ from
// std::pow's at the edges: (-0.0) ** 0.5 is -0.0 and (-inf) ** 0.5 is NaN, as sqrt gives them.
// `e` is the Scalar's own value, as a double (PyTorch compares it so: 0.50000001 is not 0.5, even
// where a float32 0-d tensor of it would be). Returns false (out untouched) for any other exponent.
bool scalar_pow(const Tensor& out, const Tensor& a, double e) {
  if (e != 0.5 && e != -0.5 && e != -1.0 && e != 2.0 && e != 3.0 && e != -2.0) return false;
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      // The exponent is chosen once, outside the loop: each loop body is one expression.
      const auto run = [&](auto f) { unary_loop<T, T>(out, a, f); };
      if (e == 0.5)
        run([](T x) { return std::sqrt(x); });
      else if (e == -0.5)
        run([](T x) { return T(1) / std::sqrt(x); });
      else if (e == -1.0)
        run([](T x) { return T(1) / x; });
      else if (e == 2.0)
        run([](T x) { return x * x; });
      else if (e == 3.0)
        run([](T x) { return x * x * x; });
      else
        run([](T x) { return T(1) / (x * x); });
    }
  });
  return true;
}

// `scalar_exponent`: b wraps that Scalar exponent of pow(Tensor, Scalar).
Tensor binary_kernel_only(Bin op, const Tensor& a, const Tensor& b, const Scalar& alpha,
                          std::optional<double> scalar_exponent = std::nullopt) {
  const Device device = detail::common_device({&a, &b});
  const ScalarType t = compute_dtype(op, a, b);
  const Shape shape = detail::broadcast_pair(a.sizes(), b.sizes());
  Tensor out = detail::empty_contiguous(shape, is_comparison(op) ? kBool : t, device);
  if (!device.is_cpu()) {
    // A 0-d CPU operand (a wrapped Scalar) stays where it is: the device reads its value.
    auto operand = [&](const Tensor& x) { return x.device().is_cpu() ? x.to(t) : x.to(t).expand(shape); };
    device_backend(device.type).binary(static_cast<BinaryOp>(op), out, operand(a), operand(b), alpha);
    return out;
  }
  if (scalar_exponent && is_floating_point(t) && scalar_pow(out, a.to(t), *scalar_exponent)) return out;
  dispatch_binary(op, t, out, a.to(t), b.to(t), alpha);
  return out;
}

// `scalar_overload`: recorded as PyTorch's Scalar overload (detail::mul_scalar_overload).
Tensor binary(Bin op, const Tensor& a, const Tensor& b, const Scalar& alpha = 1, bool scalar_overload = false,
              std::optional<double> scalar_exponent = std::nullopt) {
  if (is_comparison(op)) return binary_kernel_only(op, a, b, alpha);
  return differentiable(
      grad_op(op), {a, b}, [&] { return binary_kernel_only(op, a, b, alpha, scalar_exponent); },
      [&] { return OpArgs{.alpha = alpha, .scalar_overload = scalar_overload}; });
}

void binary_write(Bin op, ScalarType t, const Tensor& self, const Tensor& other, const Scalar& alpha);

const Tensor& binary_inplace(Bin op, const Tensor& self, const Tensor& other, const Scalar& alpha = 1) {
  const Device device = detail::common_device({&self, &other});
  KINDLING_CHECK(device == self.device(),
                 "Expected all tensors to be on the same device, but found at least two devices, ", device, " and ",
                 self.device(), "!");
  const ScalarType t = compute_dtype(op, self, other);
  KINDLING_CHECK(can_cast(t, self.dtype()), "result type ", dtype_short_name(t),
                 " can't be cast to the desired output type ", dtype_short_name(self.dtype()));
  const Shape shape = broadcast_shapes(self.sizes(), other.sizes());
  KINDLING_CHECK(IntArrayRef(shape).equals(self.sizes()), "output with shape ", to_string(self.sizes()),
                 " doesn't match the broadcast shape ", to_string(shape));
  detail::check_no_internal_overlap(self);
  detail::autograd::inplace(
      grad_op(op), self, {other}, [&] { binary_write(op, t, self, other, alpha); },
      [&] { return OpArgs{.alpha = alpha}; });
  return self;
}

void binary_write(Bin op, ScalarType t, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  if (t == self.dtype()) {
    Tensor rhs = other.to(t);
    // An operand that overlaps self in another layout would read values already overwritten.
    if (rhs.is_alias_of(self) && !(rhs.data_ptr() == self.data_ptr() && rhs.strides().equals(self.strides())))
      rhs = rhs.clone();
    if (!self.device().is_cpu())
      device_backend(self.device().type)
          .binary(static_cast<BinaryOp>(op), self, self, rhs.device().is_cpu() ? rhs : rhs.expand(self.sizes()), alpha);
    else
      dispatch_binary(op, t, self, self, rhs, alpha);
    self.bump_version();
  } else {
    detail::copy(self, binary_kernel_only(op, self, other, alpha));
    self.bump_version();
  }
}

// Floating math: integer inputs compute in the default dtype, as in PyTorch.
// On a device, `op` names the kernel.
Tensor device_unary(UnaryOp op, const Tensor& in, ScalarType out_dtype) {
  Tensor out = detail::empty_contiguous(in.sizes(), out_dtype, in.device());
  device_backend(in.device().type).unary(op, out, in);
  return out;
}

template <class F>
Tensor unary_float(const Tensor& x, UnaryOp op, F f) {
  const ScalarType t = is_floating_point(x.dtype()) ? x.dtype() : kDefaultDtype;
  const Tensor in = x.to(t);
  if (!x.device().is_cpu()) return device_unary(op, in, t);
  Tensor out = detail::empty_contiguous(x.sizes(), t);
  if (t == kFloat32)
    unary_loop<float, float>(out, in, [&f](float v) { return static_cast<float>(f(v)); });
  else
    unary_loop<double, double>(out, in, [&f](double v) { return static_cast<double>(f(v)); });
  return out;
}

// Dtype-preserving math.
template <class F>
Tensor unary_same(const Tensor& x, UnaryOp op, F f) {
  if (!x.device().is_cpu()) return device_unary(op, x, x.dtype());
  Tensor out = detail::empty_contiguous(x.sizes(), x.dtype());
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    unary_loop<T, T>(out, x, [&f](T v) { return static_cast<T>(f(v)); });
  });
  return out;
}

template <class F>
Tensor unary_predicate(const Tensor& x, UnaryOp op, F f) {
  if (!x.device().is_cpu()) return device_unary(op, x, kBool);
  Tensor out = detail::empty_contiguous(x.sizes(), kBool);
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    unary_loop<bool, T>(out, x, [&f](T v) { return static_cast<bool>(f(v)); });
  });
  return out;
}

// The Scalar operand of an op with `other` (see detail::wrapped_scalar_for).
Tensor wrap(const Scalar& s, const Tensor& other) { return detail::wrapped_scalar_for(s, other); }
}  // namespace

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) { return binary(Bin::Add, a, b, alpha); }
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) { return binary(Bin::Sub, a, b, alpha); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary(Bin::Mul, a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return binary(Bin::Div, a, b); }
Tensor pow(const Tensor& a, const Tensor& b) { return binary(Bin::Pow, a, b); }
Tensor pow(const Tensor& a, const Scalar& e) {
  KINDLING_CHECK(a.is_floating_point() || e.is_floating_point() || e.to<std::int64_t>() >= 0,
                 "Integers to negative integer powers are not allowed.");
  return binary(Bin::Pow, a, wrap(e, a), 1, false, e.to<double>());
}
Tensor maximum(const Tensor& a, const Tensor& b) { return binary(Bin::Maximum, a, b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return binary(Bin::Minimum, a, b); }

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
namespace {
// `a op s` for a floating `a`, whose dtype a Scalar never changes: the kernel reads the
// Scalar as a value in a's dtype, the same value and the same arithmetic as with a
// wrapped 0-d tensor (binary_kernel's expressions), but no tensor is made for it, and
// autograd records it as input 1's value. Other dtypes take the wrapped path.
Tensor binary_scalar(Bin op, const Tensor& a, const Scalar& s, bool scalar_overload = false) {
  if (!a.is_floating_point() || !a.device().is_cpu()) return binary(op, a, wrap(s, a), 1, scalar_overload);
  static const Tensor kNoTensor;
  return differentiable(
      grad_op(op), {a, kNoTensor},
      [&] {
        Tensor out = detail::empty_contiguous(a.sizes(), a.dtype());
        visit_dtype(a.dtype(), [&](auto tag) {
          using T = typename decltype(tag)::type;
          if constexpr (!std::is_floating_point_v<T>) {
            throw Error("binary_scalar: not a floating dtype");  // unreachable: checked above
          } else {
            const T y = s.to<T>();
            with_arithmetic<T>(op, T(1), [&](auto fn) { unary_loop<T, T>(out, a, [fn, y](T x) { return fn(x, y); }); });
          }
        });
        return out;
      },
      [&] { return OpArgs{.scalar_operand = s, .scalar_overload = scalar_overload}; });
}
}  // namespace

Tensor detail::mul_scalar_overload(const Tensor& a, const Scalar& s) { return binary_scalar(Bin::Mul, a, s, true); }

Tensor operator+(const Tensor& a, const Scalar& b) { return binary_scalar(Bin::Add, a, b); }
Tensor operator-(const Tensor& a, const Scalar& b) {
  check_sub_operands(a.dtype() == kBool, b.type() == kBool);  // a wrapped bool may have become a float
  return binary_scalar(Bin::Sub, a, b);
}
Tensor operator*(const Tensor& a, const Scalar& b) { return binary_scalar(Bin::Mul, a, b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return binary_scalar(Bin::Div, a, b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return add(wrap(a, b), b); }
Tensor operator-(const Scalar& a, const Tensor& b) {
  check_sub_operands(a.type() == kBool, b.dtype() == kBool);
  return sub(wrap(a, b), b);
}
Tensor operator*(const Scalar& a, const Tensor& b) { return mul(wrap(a, b), b); }
Tensor operator/(const Scalar& a, const Tensor& b) { return div(wrap(a, b), b); }
Tensor operator-(const Tensor& a) { return neg(a); }

Tensor neg(const Tensor& x) {
  return differentiable(Op::Neg, {x}, [&] {
    KINDLING_CHECK(x.dtype() != kBool,
                   "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                   "to invert a mask, use the `~` or `logical_not()` operator instead.");
    return unary_same(x, UnaryOp::Neg, [](auto v) { return wrap_neg(v); });
  });
}
Tensor abs(const Tensor& x) {
  return differentiable(Op::Abs, {x}, [&] {
    KINDLING_CHECK(x.dtype() != kBool, "\"abs_cpu\" not implemented for 'Bool'");
    return unary_same(x, UnaryOp::Abs, [](auto v) {
      if constexpr (std::is_unsigned_v<decltype(v)>)
        return v;
      else if constexpr (std::is_floating_point_v<decltype(v)>)
        return std::abs(v);  // abs(-0.0) is +0.0, as in PyTorch
      else
        return v < 0 ? wrap_neg(v) : v;
    });
  });
}
Tensor sign(const Tensor& x) {
  return differentiable(Op::Sign, {x}, [&] {
    return unary_same(x, UnaryOp::Sign, [](auto v) { return (decltype(v){} < v) - (v < decltype(v){}); });
  });
}
Tensor exp(const Tensor& x) {
  return differentiable(Op::Exp, {x}, [&] { return unary_float(x, UnaryOp::Exp, [](auto v) { return std::exp(v); }); });
}
Tensor log(const Tensor& x) {
  return differentiable(Op::Log, {x}, [&] { return unary_float(x, UnaryOp::Log, [](auto v) { return std::log(v); }); });
}
Tensor log1p(const Tensor& x) {
  return differentiable(Op::Log1p, {x},
                        [&] { return unary_float(x, UnaryOp::Log1p, [](auto v) { return std::log1p(v); }); });
}
Tensor sqrt(const Tensor& x) {
  return differentiable(Op::Sqrt, {x},
                        [&] { return unary_float(x, UnaryOp::Sqrt, [](auto v) { return std::sqrt(v); }); });
}
Tensor rsqrt(const Tensor& x) {
  return differentiable(Op::Rsqrt, {x},
                        [&] { return unary_float(x, UnaryOp::Rsqrt, [](auto v) { return 1 / std::sqrt(v); }); });
}
Tensor sin(const Tensor& x) {
  return differentiable(Op::Sin, {x}, [&] { return unary_float(x, UnaryOp::Sin, [](auto v) { return std::sin(v); }); });
}
Tensor cos(const Tensor& x) {
  return differentiable(Op::Cos, {x}, [&] { return unary_float(x, UnaryOp::Cos, [](auto v) { return std::cos(v); }); });
}
Tensor tanh(const Tensor& x) {
  return differentiable(Op::Tanh, {x}, [&] {
    if (x.dtype() == kFloat32 && x.is_contiguous() && x.device().is_cpu()) {  // the common case, vectorised
      Tensor out = detail::empty_contiguous(x.sizes(), kFloat32);
      detail::tanh_float(x.data_ptr<float>(), out.data_ptr<float>(), x.numel());
      return out;
    }
    return unary_float(x, UnaryOp::Tanh, [](auto v) { return std::tanh(v); });
  });
}
Tensor sigmoid(const Tensor& x) {
  return differentiable(Op::Sigmoid, {x}, [&] {
    return unary_float(x, UnaryOp::Sigmoid, [](auto v) { return 1 / (1 + std::exp(-v)); });
  });
}
Tensor reciprocal(const Tensor& x) {
  return differentiable(Op::Reciprocal, {x},
                        [&] { return unary_float(x, UnaryOp::Reciprocal, [](auto v) { return 1 / v; }); });
}
namespace {
// max(x, 0) into a new tensor: the kernel of relu and relu_.
Tensor relu_values(const Tensor& x) {
  KINDLING_CHECK(x.dtype() != kBool, "Boolean inputs not supported for relu");
  // 0 where v < 0, v itself elsewhere: a NaN stays NaN (it is not hidden as 0) and -0.0 stays -0.0, as in PyTorch.
  return unary_same(x, UnaryOp::Relu, [](auto v) { return v < decltype(v){} ? decltype(v){} : v; });
}
}  // namespace

Tensor relu(const Tensor& x) {
  return differentiable(Op::Relu, {x}, [&] { return relu_values(x); });
}
namespace {
// Rounding functions: applied to floating values, the identity on integers; bool is refused,
// naming PyTorch's CPU kernel ("floor_vml_cpu").
template <class F>
Tensor rounding(const Tensor& x, UnaryOp op, const char* kernel, F f) {
  KINDLING_CHECK(x.dtype() != kBool, "\"", kernel, "\" not implemented for 'Bool'");
  return unary_same(x, op, [f](auto v) {
    if constexpr (std::is_floating_point_v<decltype(v)>)
      return f(v);
    else
      return v;
  });
}
}  // namespace

Tensor floor(const Tensor& x) {
  return differentiable(Op::Floor, {x}, [&] {
    return rounding(x, UnaryOp::Floor, "floor_vml_cpu", [](auto v) { return std::floor(v); });
  });
}
Tensor ceil(const Tensor& x) {
  return differentiable(
      Op::Ceil, {x}, [&] { return rounding(x, UnaryOp::Ceil, "ceil_vml_cpu", [](auto v) { return std::ceil(v); }); });
}
Tensor round(const Tensor& x) {
  return differentiable(Op::Round, {x}, [&] {
    return rounding(x, UnaryOp::Round, "round_vml_cpu", [](auto v) { return std::nearbyint(v); });  // half to even
  });
}
// PyTorch records square as pow(x, 2): PowBackward0.
Tensor square(const Tensor& x) { return pow(x, Scalar(2)); }
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) {
  KINDLING_CHECK(min || max, "torch.clamp: At least one of 'min' or 'max' must not be None");
  // A bool result (bool x, bool bounds) has no CPU kernel in PyTorch; each form names its own.
  const ScalarType t = promote_types(min ? result_type(x, *min) : x.dtype(), max ? result_type(x, *max) : x.dtype());
  KINDLING_CHECK(t != kBool, "\"",
                 min && max ? "clamp_scalar_cpu"
                 : min      ? "clamp_min_cpu"
                            : "clamp_max_scalar_cpu",
                 "\" not implemented for 'Bool'");
  return differentiable(
      Op::Clamp, {x},
      [&] {
        Tensor r = x;
        if (min) r = maximum(r, wrap(*min, x));
        if (max) r = minimum(r, wrap(*max, x));
        return r;
      },
      [&] { return OpArgs{.min = min, .max = max}; });
}

Tensor eq(const Tensor& a, const Tensor& b) { return binary(Bin::Eq, a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return binary(Bin::Ne, a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return binary(Bin::Lt, a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return binary(Bin::Le, a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return binary(Bin::Gt, a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return binary(Bin::Ge, a, b); }
namespace {
// A comparison with a Scalar, computed in the dtype the wrapped number would give
// (result_type(a, s)) but with no 0-d tensor made for it: masks such as ReLU's
// backward `result <= 0` are taken on every step of training.
Tensor compare_scalar(Bin op, const Tensor& a, const Scalar& s) {
  if (!a.device().is_cpu()) return binary(op, a, wrap(s, a));
  const ScalarType t = result_type(a, s);
  Tensor out = detail::empty_contiguous(a.sizes(), kBool);
  const Tensor ac = a.to(t);
  visit_dtype(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = s.to<T>();
    with_comparison(op, [&](auto cmp) { unary_loop<bool, T>(out, ac, [cmp, v](T x) -> bool { return cmp(x, v); }); });
  });
  return out;
}
}  // namespace

Tensor eq(const Tensor& a, const Scalar& b) { return compare_scalar(Bin::Eq, a, b); }
Tensor ne(const Tensor& a, const Scalar& b) { return compare_scalar(Bin::Ne, a, b); }
Tensor lt(const Tensor& a, const Scalar& b) { return compare_scalar(Bin::Lt, a, b); }
Tensor le(const Tensor& a, const Scalar& b) { return compare_scalar(Bin::Le, a, b); }
Tensor gt(const Tensor& a, const Scalar& b) { return compare_scalar(Bin::Gt, a, b); }
Tensor ge(const Tensor& a, const Scalar& b) { return compare_scalar(Bin::Ge, a, b); }
Tensor isnan(const Tensor& x) {
  return unary_predicate(x, UnaryOp::IsNan, [](auto v) { return v != v; });
}
Tensor isfinite(const Tensor& x) {
  return unary_predicate(x, UnaryOp::IsFinite, [](auto v) {
    if constexpr (std::is_floating_point_v<decltype(v)>)
      return std::isfinite(v);
    else
      return true;
  });
}
Tensor logical_not(const Tensor& x) {
  return unary_predicate(x, UnaryOp::LogicalNot, [](auto v) { return v == decltype(v){}; });
}

bool equal(const Tensor& a, const Tensor& b) {
  if (!a.sizes().equals(b.sizes())) return false;
  const auto va = a.to_vector<double>(), vb = b.to_vector<double>();
  return va == vb;
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  const Shape shape = broadcast_shapes(a.sizes(), b.sizes());
  const auto va = a.expand(shape).to_vector<double>(), vb = b.expand(shape).to_vector<double>();
  for (std::size_t i = 0; i < va.size(); ++i) {
    if (std::isnan(va[i]) || std::isnan(vb[i])) {
      if (!(equal_nan && std::isnan(va[i]) && std::isnan(vb[i]))) return false;
      continue;
    }
    if (va[i] == vb[i]) continue;  // equal infinities
    if (!(std::abs(va[i] - vb[i]) <= atol + rtol * std::abs(vb[i]))) return false;
  }
  return true;
}

const Tensor& add_(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return binary_inplace(Bin::Add, self, other, alpha);
}
const Tensor& sub_(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return binary_inplace(Bin::Sub, self, other, alpha);
}
const Tensor& mul_(const Tensor& self, const Tensor& other) { return binary_inplace(Bin::Mul, self, other); }
const Tensor& div_(const Tensor& self, const Tensor& other) { return binary_inplace(Bin::Div, self, other); }
// In place and recorded as such (ReluBackward0, its output saved after the write), as PyTorch
// does: relu's backward reads only its output, so overwriting the input loses nothing.
const Tensor& relu_(const Tensor& self) {
  KINDLING_CHECK(self.dtype() != kBool, "Boolean inputs not supported for relu");  // before any record
  detail::check_no_internal_overlap(self);
  detail::autograd::inplace(detail::autograd::Op::Relu, self, {}, [&] {
    detail::copy(self, relu_values(self));
    self.bump_version();
  });
  return self;
}
const Tensor& clamp_(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  return self.copy_(clamp(self, min, max));
}

}  // namespace kindling
