// MUTANT: takes uniform noise on [-stddev, stddev), whose standard deviation is only stddev / sqrt(3)
// Task week01.noise. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.noise`.

#include <algorithm>
#include <cmath>
#include <limits>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>
#include <kindling/noise.hpp>
#include <kindling/ops.hpp>

// Useful: randn_like(x, {}, generator) and rand_like(x, {}, generator) (they raise
// PyTorch's errors for integer dtypes themselves), the arithmetic of ops.hpp (with
// Scalars too), x.numel(), x.to_vector<double>() (the elements in
// row-major order, any layout, converted to double), std::sqrt, std::clamp,
// KINDLING_CHECK(cond, parts...).

namespace kindling {

/// x plus noise of mean 0 and standard deviation `stddev`: a new tensor with x's
/// shape and dtype, x unchanged. Every element gets its own independent draw, taken
/// from `generator` (the default generator when it is null), so that two calls with
/// generators seeded alike give the same result.
/// - NoiseKind::Gaussian: normal noise, as `x + stddev * torch.randn_like(x)`.
/// - NoiseKind::Uniform: noise uniform on [-a, a) with a chosen so that its
///   standard deviation is `stddev` too (not uniform on [0, stddev), and not on
///   [-stddev, stddev], whose standard deviations are smaller).
/// - stddev < 0 throws kindling::Error "normal expects std >= 0.0, but found std "
///   followed by the value as `<<` prints a double (-1 prints "-1"), for both kinds:
///   PyTorch's text for `normal_`. stddev == 0 gives x's values.
/// - An integer or bool x throws the error of the random factory for its kind:
///   "\"normal_kernel_cpu\" not implemented for 'Long'" (Gaussian) or
///   "\"check_uniform_bounds\" not implemented for 'Long'" (Uniform), with the
///   dtype's short name.
Tensor add_noise(const Tensor& x, double stddev, NoiseKind kind, Generator* generator) {
  // BEGIN SOLUTION week01.noise
  KINDLING_CHECK(stddev >= 0.0, "normal expects std >= 0.0, but found std ", stddev);
  if (kind == NoiseKind::Gaussian) return x + randn_like(x, {}, generator) * stddev;
  // U[0, 1) has variance 1/12; U[-a, a) has variance a^2 / 3, so a = sqrt(3) * stddev.
  const double half_width = stddev;
  return x + (rand_like(x, {}, generator) * 2.0 - 1.0) * half_width;
  // END SOLUTION
}

/// The Pearson correlation of a's and b's elements, paired in row-major order
/// whatever their shapes and layouts: cov(a, b) / (std(a) * std(b)), with the means
/// subtracted first, computed in double whatever the dtypes, and clamped to
/// [-1, 1] as torch.corrcoef clamps it. NaN when a's or b's sum of squared deviations
/// from its mean is 0 (a constant such as [5, 5, 5], whose mean is exact) or when they
/// have fewer than 2 elements, as in PyTorch.
/// - a.numel() != b.numel() throws kindling::Error "stack expects each tensor to be
///   equal size, but got [3] at entry 0 and [4] at entry 1" with the two element
///   counts: the error of `torch.stack([a.flatten(), b.flatten()])`.
double correlation(const Tensor& a, const Tensor& b) {
  // BEGIN SOLUTION week01.noise
  KINDLING_CHECK(a.numel() == b.numel(), "stack expects each tensor to be equal size, but got [", a.numel(),
                 "] at entry 0 and [", b.numel(), "] at entry 1");
  const std::vector<double> x = a.to_vector<double>(), y = b.to_vector<double>();
  const auto n = static_cast<double>(x.size());
  if (x.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  const double r = sxy / std::sqrt(sxx * syy);  // 0 / 0 is NaN for a constant input
  return std::isnan(r) ? r : std::clamp(r, -1.0, 1.0);
  // END SOLUTION
}

}  // namespace kindling
