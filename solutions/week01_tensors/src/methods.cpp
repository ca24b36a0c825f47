// LibTorch's method forms of the free functions (tensor.hpp, "LibTorch's method forms"):
// each one calls the function of the same name, so that both spellings are one operation.

#include <kindling/factory.hpp>
#include <kindling/join.hpp>
#include <kindling/linalg.hpp>
#include <kindling/ops.hpp>
#include <kindling/tensor.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

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

// ---- LibTorch's convenience and in-place forms -----------------------------------------------

std::vector<Tensor> Tensor::chunk(std::int64_t chunks, std::int64_t dim) const {
  return kindling::chunk(*this, chunks, dim);
}
std::vector<Tensor> Tensor::split(std::int64_t split_size, std::int64_t dim) const {
  return kindling::split(*this, split_size, dim);
}
const Tensor& Tensor::sub_(const Scalar& value) const {
  // The negated scalar keeps its kind: an integer tensor minus an integer stays an integer.
  return value.is_floating_point() ? add_(-value.to<double>()) : add_(Scalar(-value.to<std::int64_t>()));
}
const Tensor& Tensor::exp_() const {
  KINDLING_CHECK(is_floating_point(), "result type Float can't be cast to the desired output type ",
                 dtype_short_name(dtype()));
  return copy_(kindling::exp(*this));
}

namespace {
// Gives `self` the geometry of `view` (a view of self): the in-place shape operations.
const Tensor& take_geometry(const Tensor& self, const Tensor& view, const char* name) {
  KINDLING_CHECK(!self.requires_grad(), name,
                 "(): changing the shape in place of a tensor that requires grad is not supported here; use the "
                 "out-of-place form (x = x.",
                 std::string(name).substr(0, std::string(name).size() - 1), "(...))");
  self.impl().sizes = view.sizes().vec();
  self.impl().strides = view.strides().vec();
  return self;
}
}  // namespace

const Tensor& Tensor::unsqueeze_(std::int64_t dim) const { return take_geometry(*this, unsqueeze(dim), "unsqueeze_"); }
const Tensor& Tensor::squeeze_() const { return take_geometry(*this, squeeze(), "squeeze_"); }
const Tensor& Tensor::squeeze_(std::int64_t dim) const { return take_geometry(*this, squeeze(dim), "squeeze_"); }

TensorOptions Tensor::options() const { return TensorOptions(dtype()).device(device()); }
Tensor Tensor::new_zeros(IntArrayRef sizes) const { return zeros(sizes, options()); }
Tensor Tensor::new_zeros(IntArrayRef sizes, const TensorOptions& o) const {
  return zeros(sizes, TensorOptions(o.dtype_.value_or(dtype())).device(o.device_or(device())));
}
Tensor Tensor::new_ones(IntArrayRef sizes) const { return ones(sizes, options()); }
Tensor Tensor::new_full(IntArrayRef sizes, const Scalar& value) const { return full(sizes, value, options()); }
Tensor Tensor::new_empty(IntArrayRef sizes) const { return empty(sizes, options()); }
Tensor Tensor::data() const { return detach(); }

Tensor Tensor::all(std::int64_t dim, bool keepdim) const {
  return kindling::eq(kindling::eq(*this, 0).to(kInt64).sum({dim}, keepdim), 0);
}
Tensor Tensor::any(std::int64_t dim, bool keepdim) const {
  return kindling::ne(kindling::ne(*this, 0).to(kInt64).sum({dim}, keepdim), 0);
}

bool Tensor::is_contiguous(MemoryFormat format) const {
  if (format != MemoryFormat::ChannelsLast) return is_contiguous();
  if (dim() != 4) return false;
  // Channels vary fastest, then width, then height, then the batch (sizes of 1 do not count).
  const auto s = sizes();
  const auto st = strides();
  std::int64_t expected = 1;
  for (const std::size_t d : {std::size_t{1}, std::size_t{3}, std::size_t{2}, std::size_t{0}}) {
    if (s[d] == 1) continue;
    if (st[d] != expected) return false;
    expected *= s[d];
  }
  return true;
}

Tensor Tensor::contiguous(MemoryFormat format) const {
  switch (format) {
    case MemoryFormat::Contiguous:
      return contiguous();
    case MemoryFormat::Preserve:
      return *this;
    case MemoryFormat::ChannelsLast:
      KINDLING_CHECK(dim() == 4, "required rank 4 tensor to use channels_last format");
      if (is_contiguous(MemoryFormat::ChannelsLast)) return *this;
      return permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
  }
  return *this;
}

Tensor Tensor::to(Device device, ScalarType dtype, bool non_blocking, bool copy, MemoryFormat format) const {
  Tensor out = to(device, dtype, non_blocking);
  if (copy && out.is_same(*this)) out = clone();
  if (format == MemoryFormat::Preserve) return out;
  if (format == MemoryFormat::Contiguous && !out.is_contiguous()) return out.contiguous();
  if (format == MemoryFormat::ChannelsLast) return out.contiguous(MemoryFormat::ChannelsLast);
  return out;
}

Tensor Tensor::flip(IntArrayRef dims) const {
  if (dim() == 0) {
    for (const std::int64_t d : dims) (void)wrap_dim(d, 1);  // only 0 and -1 name a 0-d tensor's dim
    return clone();
  }
  Tensor out = *this;
  std::vector<bool> seen(static_cast<std::size_t>(std::max<std::int64_t>(dim(), 1)), false);
  for (const std::int64_t d : dims) {
    const std::int64_t w = wrap_dim(d, dim());
    KINDLING_CHECK(!seen[static_cast<std::size_t>(w)], "dim ", w, " appears multiple times in the list of dims");
    seen[static_cast<std::size_t>(w)] = true;
    const std::int64_t n = size(w);
    out = kindling::index_select(out, w, arange(n - 1, -1, -1, TensorOptions(kInt64).device(device())));
  }
  return dims.empty() ? clone() : out;
}

Tensor Tensor::multinomial(std::int64_t num_samples, bool replacement) const {
  KINDLING_CHECK(dim() == 1 || dim() == 2, "prob_dist must be 1 or 2 dim");
  KINDLING_CHECK(is_floating_point(),
                 "multinomial only supports floating-point dtypes for input, got: ", dtype_short_name(dtype()));
  KINDLING_CHECK(num_samples > 0, "cannot sample n_sample <= 0 samples");
  const std::int64_t categories = size(-1);
  KINDLING_CHECK(replacement || num_samples <= categories,
                 "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  const std::int64_t rows = dim() == 1 ? 1 : size(0);
  const std::vector<double> p = detach().cpu().to_vector<double>();
  for (const double v : p)
    KINDLING_CHECK(std::isfinite(v) && v >= 0, "probability tensor contains either `inf`, `nan` or element < 0");
  const auto n = static_cast<std::size_t>(num_samples);
  const auto c = static_cast<std::size_t>(categories);
  std::vector<std::int64_t> out(static_cast<std::size_t>(rows) * n);
  // Uniform samples from the default generator: seeded by manual_seed, like every draw.
  const std::vector<double> u =
      rand({rows, replacement ? num_samples : categories}, TensorOptions(kFloat64)).to_vector<double>();
  for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r) {
    const double* row = p.data() + r * c;
    const double total = std::accumulate(row, row + c, 0.0);
    KINDLING_CHECK(total > 0, "invalid multinomial distribution (sum of probabilities <= 0)");
    if (replacement) {  // inverse of the cumulative distribution
      std::vector<double> cdf(c);
      std::partial_sum(row, row + c, cdf.begin());
      for (std::size_t k = 0; k < n; ++k) {
        const double target = u[r * n + k] * total;
        auto it = std::upper_bound(cdf.begin(), cdf.end(), target);
        auto idx =
            static_cast<std::size_t>(std::min<std::ptrdiff_t>(it - cdf.begin(), static_cast<std::ptrdiff_t>(c) - 1));
        while (row[idx] == 0 && idx > 0) --idx;  // never a category of weight 0
        out[r * n + k] = static_cast<std::int64_t>(idx);
      }
    } else {  // the n largest p / E with E ~ Exp(1): a draw without replacement (PyTorch's method)
      std::vector<double> key(c);
      for (std::size_t j = 0; j < c; ++j) key[j] = row[j] == 0 ? -1.0 : row[j] / -std::log1p(-u[r * c + j]);
      std::vector<std::size_t> order(c);
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key[a] > key[b]; });
      for (std::size_t k = 0; k < n; ++k) out[r * n + k] = static_cast<std::int64_t>(order[k]);
    }
  }
  Tensor result = tensor(out, TensorOptions(kInt64).device(device()));
  return dim() == 1 ? result : result.view({rows, num_samples});
}

}  // namespace kindling
