// The parameter-free functional ops of week 3: activations with their own
// nodes, flatten, batch norm (composed from week-1 ops, so autograd comes for
// free) and interpolation (index_select plus weights, likewise).

#include <cmath>

#include <kindling/backward.hpp>
#include <kindling/factory.hpp>
#include <kindling/functional.hpp>
#include <kindling/grad_mode.hpp>
#include <kindling/join.hpp>
#include <kindling/ops.hpp>

#include "internal.hpp"
#include "nn_internal.hpp"

namespace kindling::nn::functional {
namespace {

// y = f(x) elementwise, recorded as `name` with gradient grad * df(x).
template <class F, class DF>
Tensor unary(const Tensor& input, const char* name, F f, DF df) {
  KINDLING_CHECK(input.is_floating_point(), "\"", name, "\" not implemented for '", dtype_short_name(input.dtype()),
                 "'");
  const Tensor x = input.contiguous();
  Tensor y = kindling::detail::empty_contiguous(x.sizes(), x.dtype());
  auto run = [](const Tensor& in, const Tensor& out, auto fn) {
    nn::detail::visit_float(in.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* a = in.data_ptr<T>();
      T* b = out.data_ptr<T>();
      const std::int64_t n = in.numel();
      for (std::int64_t i = 0; i < n; ++i) b[i] = static_cast<T>(fn(static_cast<double>(a[i])));
    });
  };
  run(x, y, f);
  nn::detail::record_function(name, y, {input}, {x},
                              [df, run](const Tensor& grad, const TensorList& saved, const std::vector<bool>&) {
                                Tensor d = kindling::detail::empty_contiguous(saved[0].sizes(), saved[0].dtype());
                                run(saved[0], d, df);
                                return TensorList{grad * d};
                              });
  return y;
}

}  // namespace

Tensor leaky_relu(const Tensor& x, double negative_slope) {
  return unary(
      x, "LeakyReluBackward0", [negative_slope](double v) { return v > 0 ? v : v * negative_slope; },
      [negative_slope](double v) { return v > 0 ? 1.0 : negative_slope; });
}

Tensor gelu(const Tensor& x) {
  constexpr double kInvSqrt2 = 0.70710678118654752440, kInvSqrt2Pi = 0.39894228040143267794;
  return unary(
      x, "GeluBackward0", [](double v) { return 0.5 * v * (1.0 + std::erf(v * kInvSqrt2)); },
      [](double v) { return 0.5 * (1.0 + std::erf(v * kInvSqrt2)) + v * kInvSqrt2Pi * std::exp(-0.5 * v * v); });
}

Tensor flatten(const Tensor& x, std::int64_t start_dim, std::int64_t end_dim) {
  const std::int64_t n = std::max<std::int64_t>(x.dim(), 1);
  auto wrap = [n](std::int64_t d) {
    KINDLING_CHECK_AS(IndexError, d >= -n && d < n, "Dimension out of range (expected to be in range of [", -n, ", ",
                      n - 1, "], but got ", d, ")");
    return d < 0 ? d + n : d;
  };
  const std::int64_t s = wrap(start_dim), e = wrap(end_dim);
  KINDLING_CHECK(s <= e, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (x.dim() == 0) return x.reshape({1});
  Shape shape;
  for (std::int64_t d = 0; d < s; ++d) shape.push_back(x.sizes()[static_cast<std::size_t>(d)]);
  std::int64_t merged = 1;
  for (std::int64_t d = s; d <= e; ++d) merged *= x.sizes()[static_cast<std::size_t>(d)];
  shape.push_back(merged);
  for (std::int64_t d = e + 1; d < x.dim(); ++d) shape.push_back(x.sizes()[static_cast<std::size_t>(d)]);
  return x.reshape(shape);
}

Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  KINDLING_CHECK(x.dim() >= 2, "batch_norm expects an input with at least 2 dims (N, C, ...), got ", x.dim());
  const std::int64_t C = x.sizes()[1];
  const std::pair<const Tensor*, const char*> per_channel[] = {
      {&running_mean, "running_mean"}, {&running_var, "running_var"}, {&weight, "weight"}, {&bias, "bias"}};
  for (const auto& [t, name] : per_channel)
    if (t->defined()) KINDLING_CHECK(t->numel() == C, name, " should contain ", C, " elements not ", t->numel());
  Shape reduce{0}, channel_shape(static_cast<std::size_t>(x.dim()), 1);
  for (std::int64_t d = 2; d < x.dim(); ++d) reduce.push_back(d);
  channel_shape[1] = C;
  Tensor xhat;
  if (training) {
    const std::int64_t count = x.numel() / std::max<std::int64_t>(C, 1);
    KINDLING_CHECK_AS(ValueError, count > 1, "Expected more than 1 value per channel when training, got input size ",
                      autograd::torch_size_string(x.sizes()));
    const Tensor mean_ = mean(x, reduce, true);
    const Tensor centered = x - mean_;
    const Tensor var = mean(centered * centered, reduce, true);  // biased: normalises the batch
    if (running_mean.defined() && running_var.defined()) {
      AutoGradMode off(false);
      const double unbias = static_cast<double>(count) / static_cast<double>(count - 1);
      running_mean.copy_(running_mean * (1.0 - momentum) + mean_.view({C}) * momentum);
      running_var.copy_(running_var * (1.0 - momentum) + var.view({C}) * (momentum * unbias));
    }
    xhat = centered * rsqrt(var + eps);
  } else {
    KINDLING_CHECK(running_mean.defined() && running_var.defined(),
                   "batch_norm in eval mode needs running_mean and running_var");
    xhat = (x - running_mean.view(channel_shape)) * rsqrt(running_var.view(channel_shape) + eps);
  }
  if (weight.defined()) xhat = xhat * weight.view(channel_shape);
  if (bias.defined()) xhat = xhat + bias.view(channel_shape);
  return xhat;
}

namespace {
// Source rows (i0, i1) and weights (w0, w1) of each output row, for one axis, as tensors.
struct Taps {
  Tensor i0, i1, w0, w1;
};

Taps linear_taps(std::int64_t in, std::int64_t out, std::optional<double> scale_factor, bool align_corners,
                 ScalarType dtype) {
  const LinearTaps t = linear_source_taps(in, out, scale_factor, align_corners);
  KINDLING_CHECK(
      t.lo.size() == static_cast<std::size_t>(out) && t.hi.size() == t.lo.size() && t.lambda.size() == t.lo.size(),
      "linear_source_taps must return ", out, " taps");
  std::vector<float> w0(t.lambda.size());
  for (std::size_t k = 0; k < w0.size(); ++k) w0[k] = 1.0f - t.lambda[k];
  return {tensor(t.lo), tensor(t.hi), tensor(w0).to(dtype), tensor(t.lambda).to(dtype)};
}

Tensor nearest_index(std::int64_t in, std::int64_t out, std::optional<double> scale_factor) {
  std::vector<std::int64_t> idx = nearest_source_indices(in, out, scale_factor);
  KINDLING_CHECK(idx.size() == static_cast<std::size_t>(out), "nearest_source_indices must return ", out, " indices");
  return tensor(idx);
}
}  // namespace

Tensor interpolate(const Tensor& x, std::optional<Pair2> size, std::optional<std::pair<double, double>> scale_factor,
                   const std::string& mode, std::optional<bool> align_corners) {
  KINDLING_CHECK_AS(ValueError, size || scale_factor, "either size or scale_factor should be defined");
  KINDLING_CHECK_AS(ValueError, !(size && scale_factor), "only one of size or scale_factor should be defined");
  KINDLING_CHECK(mode == "nearest" || mode == "bilinear", "interpolate: unsupported mode '", mode,
                 "' (Kindling has nearest and bilinear)");
  KINDLING_CHECK_AS(ValueError, mode == "bilinear" || !align_corners,
                    "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
                    "trilinear");
  KINDLING_CHECK(x.dim() == 4, "Got ", x.dim(), "D input, but ", mode, " mode needs 4D input");
  const std::int64_t H = x.sizes()[2], W = x.sizes()[3];
  std::int64_t OH = 0, OW = 0;
  std::optional<double> sh, sw;
  if (size) {
    OH = size->h;
    OW = size->w;
  } else {
    sh = scale_factor->first;
    sw = scale_factor->second;
    OH = static_cast<std::int64_t>(std::floor(static_cast<double>(H) * *sh));
    OW = static_cast<std::int64_t>(std::floor(static_cast<double>(W) * *sw));
  }
  KINDLING_CHECK(OH > 0 && OW > 0, "Input and output sizes should be greater than 0, but got input (H: ", H, ", W: ", W,
                 ") output (H: ", OH, ", W: ", OW, ")");
  if (mode == "nearest") return index_select(index_select(x, 2, nearest_index(H, OH, sh)), 3, nearest_index(W, OW, sw));
  const bool corners = align_corners.value_or(false);
  const Taps th = linear_taps(H, OH, sh, corners, x.dtype());
  const Taps tw = linear_taps(W, OW, sw, corners, x.dtype());
  const Tensor rows =
      index_select(x, 2, th.i0) * th.w0.view({1, 1, OH, 1}) + index_select(x, 2, th.i1) * th.w1.view({1, 1, OH, 1});
  return index_select(rows, 3, tw.i0) * tw.w0.view({1, 1, 1, OW}) +
         index_select(rows, 3, tw.i1) * tw.w1.view({1, 1, 1, OW});
}

}  // namespace kindling::nn::functional

// ---- cumsum: a scan with a node of its own --------------------------------------------------

namespace kindling {
namespace {
// Running sums of x along `dim` (from the end when `reverse`), accumulated in double (int64
// for integer inputs) and rounded to the result's dtype at each step, as PyTorch's CPU kernel.
Tensor scan(const Tensor& x, std::int64_t dim, bool reverse) {
  const ScalarType out_type = is_floating_point(x.dtype()) ? x.dtype() : kInt64;
  const Tensor c = x.cpu().contiguous();
  const Shape sizes = c.sizes().vec();
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t d = 0; d < dim; ++d) outer *= sizes[static_cast<std::size_t>(d)];
  for (std::size_t d = static_cast<std::size_t>(dim) + 1; d < sizes.size(); ++d) inner *= sizes[d];
  const std::int64_t n = sizes.empty() ? 1 : sizes[static_cast<std::size_t>(dim)];
  Tensor out = empty(sizes, TensorOptions(out_type));
  auto run = [&](auto acc_tag, auto out_tag) {
    using Acc = decltype(acc_tag);
    using Out = decltype(out_tag);
    const std::vector<Acc> in = c.to_vector<Acc>();
    Out* dst = static_cast<Out*>(out.data_ptr());
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i) {
        Acc sum = 0;
        for (std::int64_t k = 0; k < n; ++k) {
          const std::int64_t j = reverse ? n - 1 - k : k;
          const std::int64_t at = (o * n + j) * inner + i;
          sum += in[static_cast<std::size_t>(at)];
          dst[at] = static_cast<Out>(sum);
        }
      }
  };
  if (out_type == kFloat32)
    run(double{}, float{});
  else if (out_type == kFloat64)
    run(double{}, double{});
  else
    run(std::int64_t{}, std::int64_t{});
  return out.to(x.device());
}
}  // namespace

Tensor cumsum(const Tensor& x, std::int64_t dim) {
  const std::int64_t d = wrap_dim(dim, std::max<std::int64_t>(x.dim(), 1));
  const Tensor out = scan(x, x.dim() == 0 ? 0 : d, false);
  // The gradient of a running sum is the running sum of the gradient from the other end.
  nn::detail::record_function("CumsumBackward0", out, {x}, {},
                              [d](const Tensor& grad, const TensorList&, const std::vector<bool>&) {
                                return TensorList{scan(grad, grad.dim() == 0 ? 0 : d, true)};
                              });
  return out;
}

Tensor Tensor::cumsum(std::int64_t dim) const { return kindling::cumsum(*this, dim); }

}  // namespace kindling
