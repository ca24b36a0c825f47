#pragma once
/// @file ops.hpp
/// Elementwise arithmetic and math with broadcasting, comparisons and reductions.
///
/// Binary operations broadcast their operands (broadcast_shapes) and promote
/// their dtypes as PyTorch does (result_type). In-place forms (`add_`) keep the
/// destination's shape and dtype, and refuse a result they cannot hold.

#include <optional>
#include <tuple>

#include <kindling/tensor.hpp>

namespace kindling {

/// The dtype PyTorch computes `a op b` in. Tensors with dimensions decide first;
/// 0-d tensors and then wrapped Scalars only raise the result to a higher
/// *category* (bool < integer < floating): `int32_tensor + 2.5` is float32,
/// `uint8_tensor + int64_0d_tensor` stays uint8.
ScalarType result_type(const Tensor& a, const Tensor& b);
/// result_type with a Scalar operand.
ScalarType result_type(const Tensor& a, const Scalar& b);

// ---- binary arithmetic ------------------------------------------------------------
/// a + alpha * b.
Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
/// a - alpha * b.
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
/// a * b.
Tensor mul(const Tensor& a, const Tensor& b);
/// a / b, true division (integers give float32).
Tensor div(const Tensor& a, const Tensor& b);
/// a ** b. Integer a to a negative integer b is PyTorch's truncated reciprocal: 1 for 1, +-1
/// for -1, 0 otherwise. Two bools: "\"pow\" not implemented for 'Bool'".
Tensor pow(const Tensor& a, const Tensor& b);
/// a ** exponent. An integer (or bool) `a` to a negative integer exponent throws "Integers to
/// negative integer powers are not allowed.", as PyTorch's Scalar overload does.
Tensor pow(const Tensor& a, const Scalar& exponent);
/// Elementwise larger value (NaN wins).
Tensor maximum(const Tensor& a, const Tensor& b);
/// Elementwise smaller value (NaN wins).
Tensor minimum(const Tensor& a, const Tensor& b);

/// `torch.add(a, b, alpha=alpha, out=out)`: writes a + alpha * b into `out`, converted
/// to out's dtype (the result type must be castable to it), resizing out in place
/// when its sizes differ from the broadcast shape; bumps out's version and returns
/// out itself. Task week01.add_out: the full contract, with PyTorch 1.13's errors, is
/// the doc comment in src/tasks/add_out.cpp.
const Tensor& add_out(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha = 1);

/// Tensor + Tensor.
Tensor operator+(const Tensor& a, const Tensor& b);
/// Tensor - Tensor.
Tensor operator-(const Tensor& a, const Tensor& b);
/// Tensor * Tensor.
Tensor operator*(const Tensor& a, const Tensor& b);
/// Tensor / Tensor.
Tensor operator/(const Tensor& a, const Tensor& b);
/// Tensor + Scalar.
Tensor operator+(const Tensor& a, const Scalar& b);
/// Tensor - Scalar.
Tensor operator-(const Tensor& a, const Scalar& b);
/// Tensor * Scalar.
Tensor operator*(const Tensor& a, const Scalar& b);
/// Tensor / Scalar.
Tensor operator/(const Tensor& a, const Scalar& b);
/// Scalar + Tensor.
Tensor operator+(const Scalar& a, const Tensor& b);
/// Scalar - Tensor.
Tensor operator-(const Scalar& a, const Tensor& b);
/// Scalar * Tensor.
Tensor operator*(const Scalar& a, const Tensor& b);
/// Scalar / Tensor.
Tensor operator/(const Scalar& a, const Tensor& b);
/// -Tensor.
Tensor operator-(const Tensor& a);

// ---- unary math -------------------------------------------------------------------
Tensor neg(const Tensor& x);         ///< -x
Tensor abs(const Tensor& x);         ///< |x| (abs(-0.0) is +0.0; bool is refused, as in PyTorch)
Tensor sign(const Tensor& x);        ///< -1, 0 or 1
Tensor exp(const Tensor& x);         ///< e^x (integers give float32)
Tensor log(const Tensor& x);         ///< natural log
Tensor log1p(const Tensor& x);       ///< log(1 + x), accurate near 0
Tensor sqrt(const Tensor& x);        ///< square root
Tensor rsqrt(const Tensor& x);       ///< 1 / sqrt(x)
Tensor sin(const Tensor& x);         ///< sine
Tensor cos(const Tensor& x);         ///< cosine
Tensor tanh(const Tensor& x);        ///< hyperbolic tangent
Tensor sigmoid(const Tensor& x);     ///< 1 / (1 + e^-x)
Tensor relu(const Tensor& x);        ///< max(x, 0): 0 where x < 0, so NaN and -0.0 pass through
Tensor floor(const Tensor& x);       ///< round down
Tensor ceil(const Tensor& x);        ///< round up
Tensor round(const Tensor& x);       ///< round half to even
Tensor reciprocal(const Tensor& x);  ///< 1 / x
Tensor square(const Tensor& x);      ///< x * x
/// Clamps into [min, max]; either bound may be absent.
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max);

// ---- comparisons (bool results) -------------------------------------------------
Tensor eq(const Tensor& a, const Tensor& b);  ///< a == b
Tensor ne(const Tensor& a, const Tensor& b);  ///< a != b
Tensor lt(const Tensor& a, const Tensor& b);  ///< a < b
Tensor le(const Tensor& a, const Tensor& b);  ///< a <= b
Tensor gt(const Tensor& a, const Tensor& b);  ///< a > b
Tensor ge(const Tensor& a, const Tensor& b);  ///< a >= b
Tensor eq(const Tensor& a, const Scalar& b);  ///< a == b
Tensor ne(const Tensor& a, const Scalar& b);  ///< a != b
Tensor lt(const Tensor& a, const Scalar& b);  ///< a < b
Tensor le(const Tensor& a, const Scalar& b);  ///< a <= b
Tensor gt(const Tensor& a, const Scalar& b);  ///< a > b
Tensor ge(const Tensor& a, const Scalar& b);  ///< a >= b
Tensor isnan(const Tensor& x);                ///< true where x is NaN
Tensor isfinite(const Tensor& x);             ///< true where x is neither NaN nor infinite
Tensor logical_not(const Tensor& x);          ///< true where x is zero
/// True when both have the same shape and equal elements.
bool equal(const Tensor& a, const Tensor& b);
/// True when |a - b| <= atol + rtol * |b| everywhere (NaNs equal only if equal_nan).
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);

// ---- in-place forms --------------------------------------------------------------------
/// self += alpha * other (other broadcasts to self's shape).
const Tensor& add_(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
/// self -= alpha * other.
const Tensor& sub_(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
/// self *= other.
const Tensor& mul_(const Tensor& self, const Tensor& other);
/// self /= other.
const Tensor& div_(const Tensor& self, const Tensor& other);
/// Applies relu in place.
const Tensor& relu_(const Tensor& self);
/// Clamps in place.
const Tensor& clamp_(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max);

// ---- reductions ------------------------------------------------------------------------
/// Sum of all elements; integers and bools sum to int64.
Tensor sum(const Tensor& x, std::optional<ScalarType> dtype = std::nullopt);
/// Sum over `dims` (all dims when empty), keeping them as size 1 if `keepdim`.
Tensor sum(const Tensor& x, IntArrayRef dims, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
/// Mean of all elements; floating tensors only.
Tensor mean(const Tensor& x);
/// Mean over `dims`.
Tensor mean(const Tensor& x, IntArrayRef dims, bool keepdim = false);
/// Product of all elements.
Tensor prod(const Tensor& x);
/// Product over one dim.
Tensor prod(const Tensor& x, std::int64_t dim, bool keepdim = false);
/// Largest element (NaN if any is NaN).
Tensor max(const Tensor& x);
/// Smallest element.
Tensor min(const Tensor& x);
/// (values, indices) of the largest element along `dim`; first index on ties.
std::tuple<Tensor, Tensor> max(const Tensor& x, std::int64_t dim, bool keepdim = false);
/// (values, indices) of the smallest element along `dim`.
std::tuple<Tensor, Tensor> min(const Tensor& x, std::int64_t dim, bool keepdim = false);
/// Index of the largest element (of the flattened tensor when dim is absent).
Tensor argmax(const Tensor& x, std::optional<std::int64_t> dim = std::nullopt, bool keepdim = false);
/// Index of the smallest element.
Tensor argmin(const Tensor& x, std::optional<std::int64_t> dim = std::nullopt, bool keepdim = false);
/// log(sum(exp(x))) over `dims`, computed as m + log(sum(exp(x - m))) so that large
/// inputs do not overflow (the log-sum-exp trick).
Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim = false);
/// exp(x) / sum(exp(x)) along `dim`, shifted by the max for stability.
Tensor softmax(const Tensor& x, std::int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
/// log(softmax(x)) along `dim`, computed as x - logsumexp(x) (never log of 0).
Tensor log_softmax(const Tensor& x, std::int64_t dim, std::optional<ScalarType> dtype = std::nullopt);

}  // namespace kindling
