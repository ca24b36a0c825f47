// LibTorch's method forms of the free functions (tensor.hpp, "LibTorch's method forms"):
// each one calls the function of the same name, so that both spellings are one operation.

#include <kindling/factory.hpp>
#include <kindling/join.hpp>
#include <kindling/linalg.hpp>
#include <kindling/ops.hpp>
#include <kindling/tensor.hpp>

namespace kindling {

Tensor Tensor::pow(const Scalar& exponent) const { return kindling::pow(*this, exponent); }
Tensor Tensor::pow(const Tensor& exponent) const { return kindling::pow(*this, exponent); }
Tensor Tensor::sqrt() const { return kindling::sqrt(*this); }
Tensor Tensor::rsqrt() const { return kindling::rsqrt(*this); }
Tensor Tensor::tanh() const { return kindling::tanh(*this); }
Tensor Tensor::sigmoid() const { return kindling::sigmoid(*this); }
Tensor Tensor::sin() const { return kindling::sin(*this); }
Tensor Tensor::cos() const { return kindling::cos(*this); }
Tensor Tensor::log1p() const { return kindling::log1p(*this); }
Tensor Tensor::neg() const { return kindling::neg(*this); }
Tensor Tensor::square() const { return kindling::square(*this); }
Tensor Tensor::reciprocal() const { return kindling::reciprocal(*this); }
Tensor Tensor::sign() const { return kindling::sign(*this); }
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return kindling::clamp(*this, min, max);
}
Tensor Tensor::clamp_min(const Scalar& min) const { return kindling::clamp(*this, min, std::nullopt); }
Tensor Tensor::clamp_max(const Scalar& max) const { return kindling::clamp(*this, std::nullopt, max); }
const Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return kindling::clamp_(*this, min, max);
}

namespace {
Tensor p_norm(const Tensor& x, double p, const Shape* dims, bool keepdim) {
  const auto reduce = [&](const Tensor& t) { return dims ? kindling::sum(t, *dims, keepdim) : kindling::sum(t); };
  if (p == 2) return kindling::sqrt(reduce(x * x));
  if (p == 1) return reduce(kindling::abs(x));
  return kindling::pow(reduce(kindling::pow(kindling::abs(x), p)), 1.0 / p);
}
}  // namespace

Tensor Tensor::norm(const Scalar& p) const { return p_norm(*this, p.to<double>(), nullptr, false); }
Tensor Tensor::norm(const Scalar& p, IntArrayRef dims, bool keepdim) const {
  const Shape d = dims.vec();
  return p_norm(*this, p.to<double>(), &d, keepdim);
}

Tensor Tensor::all() const {
  if (numel() == 0) return scalar_tensor(true, TensorOptions(kBool));
  return kindling::ne(kindling::ne(*this, 0).to(kInt64).min(), 0);
}
Tensor Tensor::any() const {
  if (numel() == 0) return scalar_tensor(false, TensorOptions(kBool));
  return kindling::ne(kindling::ne(*this, 0).to(kInt64).max(), 0);
}

Tensor Tensor::eq(const Tensor& other) const { return kindling::eq(*this, other); }
Tensor Tensor::eq(const Scalar& other) const { return kindling::eq(*this, other); }
Tensor Tensor::ne(const Tensor& other) const { return kindling::ne(*this, other); }
Tensor Tensor::ne(const Scalar& other) const { return kindling::ne(*this, other); }
Tensor Tensor::gt(const Tensor& other) const { return kindling::gt(*this, other); }
Tensor Tensor::gt(const Scalar& other) const { return kindling::gt(*this, other); }
Tensor Tensor::lt(const Tensor& other) const { return kindling::lt(*this, other); }
Tensor Tensor::lt(const Scalar& other) const { return kindling::lt(*this, other); }
Tensor Tensor::ge(const Tensor& other) const { return kindling::ge(*this, other); }
Tensor Tensor::ge(const Scalar& other) const { return kindling::ge(*this, other); }
Tensor Tensor::le(const Tensor& other) const { return kindling::le(*this, other); }
Tensor Tensor::le(const Scalar& other) const { return kindling::le(*this, other); }
const Tensor& Tensor::eq_(const Tensor& other) const { return copy_(kindling::eq(*this, other)); }
const Tensor& Tensor::eq_(const Scalar& other) const { return copy_(kindling::eq(*this, other)); }

Tensor Tensor::argmax(std::optional<std::int64_t> dim, bool keepdim) const {
  return kindling::argmax(*this, dim, keepdim);
}
Tensor Tensor::argmin(std::optional<std::int64_t> dim, bool keepdim) const {
  return kindling::argmin(*this, dim, keepdim);
}
std::tuple<Tensor, Tensor> Tensor::max(std::int64_t dim, bool keepdim) const {
  return kindling::max(*this, dim, keepdim);
}
std::tuple<Tensor, Tensor> Tensor::min(std::int64_t dim, bool keepdim) const {
  return kindling::min(*this, dim, keepdim);
}
Tensor Tensor::softmax(std::int64_t dim) const { return kindling::softmax(*this, dim); }
Tensor Tensor::log_softmax(std::int64_t dim) const { return kindling::log_softmax(*this, dim); }
Tensor Tensor::logsumexp(IntArrayRef dims, bool keepdim) const { return kindling::logsumexp(*this, dims, keepdim); }
Tensor Tensor::prod() const { return kindling::prod(*this); }
Tensor Tensor::prod(std::int64_t dim, bool keepdim) const { return kindling::prod(*this, dim, keepdim); }
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  return kindling::masked_fill(*this, mask, value);
}
Tensor Tensor::index_select(std::int64_t dim, const Tensor& index) const {
  return kindling::index_select(*this, dim, index);
}
Tensor Tensor::add(const Tensor& other, const Scalar& alpha) const { return kindling::add(*this, other, alpha); }
Tensor Tensor::add(const Scalar& other) const { return *this + other; }
Tensor Tensor::sub(const Tensor& other, const Scalar& alpha) const { return kindling::sub(*this, other, alpha); }
Tensor Tensor::sub(const Scalar& other) const { return *this - other; }
Tensor Tensor::mul(const Tensor& other) const { return *this * other; }
Tensor Tensor::mul(const Scalar& other) const { return *this * other; }
Tensor Tensor::div(const Tensor& other) const { return *this / other; }
Tensor Tensor::div(const Scalar& other) const { return *this / other; }
Tensor Tensor::bmm(const Tensor& other) const { return kindling::bmm(*this, other); }
Tensor Tensor::dot(const Tensor& other) const { return kindling::dot(*this, other); }
Tensor Tensor::mv(const Tensor& other) const { return kindling::mv(*this, other); }

const Tensor& Tensor::uniform_(double from, double to) const {
  return copy_(rand(sizes(), TensorOptions(dtype()).device(device())) * (to - from) + from);
}
const Tensor& Tensor::normal_(double mean, double std) const {
  return copy_(randn(sizes(), TensorOptions(dtype()).device(device())) * std + mean);
}

}  // namespace kindling
