// MUTANT: treats norm_type 0 as an ordinary p-norm instead of counting the non-zeros
// Task week05.clip_grad_norm. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week05.clip_grad_norm`.

#include <cmath>
#include <limits>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>
#include <kindling/module.hpp>
#include <kindling/optim.hpp>

#include "optim_internal.hpp"

namespace kindling::nn::utils {

/// clip_grad_norm_, as PyTorch 1.13 computes it. Only parameters whose gradient is
/// defined take part; with none, return a 0-d float32 zero and change nothing.
/// 1. Each gradient's own norm: (sum |g|^q)^(1/q) for q = norm_type; max |g| for
///    q = infinity, min |g| for -infinity, the count of non-zeros for q = 0;
///    accumulate in double, then round the result to float.
/// 2. The total norm: the same norm of the list of per-gradient norms (again in
///    double, rounded to float).
/// 3. With error_if_nonfinite and a NaN or infinite total, throw kindling::Error
///    "The total norm of order 2.0 for gradients from `parameters` is non-finite, so
///    it cannot be clipped. To disable this error and scale the gradients by the
///    non-finite norm anyway, set `error_if_nonfinite=False`" (the order written as
///    Python writes a float: 2.0, 1.0, inf).
/// 4. coef = min(max_norm / (total + 1e-6), 1), in float; multiply every gradient by
///    it in place (also when it is 1).
/// Return the total norm as a 0-d float32 tensor.
Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type, bool error_if_nonfinite) {
  // BEGIN SOLUTION week05.clip_grad_norm
  std::vector<Tensor> grads;
  for (const Tensor& p : params)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return zeros({}, TensorOptions().dtype(kFloat32));
  // q = +inf: the largest |g|; q = -inf: the smallest; q = 0: how many are not zero.
  const bool pos_inf = std::isinf(norm_type) && norm_type > 0, neg_inf = std::isinf(norm_type) && norm_type < 0;
  auto norm = [&](const float* x, std::int64_t n) {
    double acc = neg_inf ? std::numeric_limits<double>::infinity() : 0.0;
    for (std::int64_t i = 0; i < n; ++i) {
      const double a = std::abs(static_cast<double>(x[i]));
      if (pos_inf)
        acc = std::max(acc, a);
      else if (neg_inf)
        acc = std::min(acc, a);
      else
        acc += std::pow(a, norm_type);
    }
    const bool plain = pos_inf || neg_inf;
    return static_cast<float>(plain ? acc : std::pow(acc, 1.0 / norm_type));
  };
  for (const Tensor& g : grads)  // checked before any gradient changes
    KINDLING_CHECK(g.is_contiguous(), "clip_grad_norm_: gradients must be contiguous");
  std::vector<float> norms;
  for (const Tensor& g : grads) {
    const Tensor c = g.contiguous();
    norms.push_back(norm(optim::detail::floats(c), c.numel()));
  }
  const float total = norm(norms.data(), static_cast<std::int64_t>(norms.size()));
  KINDLING_CHECK(!error_if_nonfinite || std::isfinite(total), "The total norm of order ",
                 pos_inf   ? std::string("inf")
                 : neg_inf ? std::string("-inf")
                           : detail::py_float_repr(norm_type),
                 " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and "
                 "scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`");
  const float coef = std::min(static_cast<float>(max_norm) / (total + 1e-6f), 1.0f);
  for (const Tensor& g : grads) {
    float* x = optim::detail::floats(g);
    for (std::int64_t i = 0; i < g.numel(); ++i) x[i] = x[i] * coef;
  }
  return full({}, Scalar(static_cast<double>(total)), TensorOptions().dtype(kFloat32));
  // END SOLUTION
}

}  // namespace kindling::nn::utils
