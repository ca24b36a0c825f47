#pragma once
/// @file functional.hpp
/// kindling::nn::functional (alias `F`): the layers' computations as free
/// functions, for code that keeps its own weights. Modules call these.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <kindling/tensor.hpp>

namespace kindling::nn {

/// A pair of sizes for the two spatial dims (height, width). An integer gives
/// both; `{2, 3}` gives them separately. `from_int` remembers which, because
/// PyTorch prints `kernel_size=2` and `kernel_size=(2, 3)` differently.
struct Pair2 {
  std::int64_t h = 0;     ///< height
  std::int64_t w = 0;     ///< width
  bool from_int = false;  ///< built from one integer
  /// Both dims `v`.
  Pair2(std::int64_t v) : h(v), w(v), from_int(true) {}  // NOLINT(google-explicit-constructor)
  /// Height `height`, width `width`.
  Pair2(std::int64_t height, std::int64_t width) : h(height), w(width) {}
  /// "(h, w)".
  std::string tuple() const { return "(" + std::to_string(h) + ", " + std::to_string(w) + ")"; }
  /// "v" when built from one integer, else "(h, w)".
  std::string repr() const { return from_int ? std::to_string(h) : tuple(); }
  /// Same sizes.
  bool operator==(const Pair2& o) const { return h == o.h && w == o.w; }
};

namespace functional {

/// max(x, 0) + negative_slope * min(x, 0).
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01);
/// x * Phi(x) with the exact normal CDF Phi(x) = (1 + erf(x / sqrt(2))) / 2 (GELU(approximate='none')).
Tensor gelu(const Tensor& x);
/// Flattens dims start_dim..end_dim into one.
Tensor flatten(const Tensor& x, std::int64_t start_dim = 1, std::int64_t end_dim = -1);

/// 2-d convolution (cross-correlation) of x (N, C, H, W) or (C, H, W) with
/// weight (O, C / groups, kh, kw) and an optional bias (O). Output size per
/// spatial dim: conv_output_size(). Computed as im2col + one GEMM per group.
Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias = {}, Pair2 stride = 1, Pair2 padding = 0,
              Pair2 dilation = 1, std::int64_t groups = 1);
/// The transposed convolution of x (N, C_in, H, W) or (C_in, H, W) with weight
/// (C_in, C_out, kh, kw) and an optional bias (C_out): the input gradient of the conv2d
/// that maps its output back to x (col2im of W^T x), so (H - 1) stride - 2 padding +
/// dilation (kh - 1) + output_padding + 1 rows out. One group. Gradients: x's is the
/// forward convolution of the gradient, the weight's x times its im2col.
Tensor conv_transpose2d(const Tensor& x, const Tensor& weight, const Tensor& bias = {}, Pair2 stride = 1,
                        Pair2 padding = 0, Pair2 output_padding = 0, Pair2 dilation = 1);
/// Max over each window (padding never wins). `stride` defaults to the kernel size.
/// As in PyTorch, a NaN propagates; the gradient goes to the first of equal maxima
/// in row-major window order, and to the last NaN of a window.
Tensor max_pool2d(const Tensor& x, Pair2 kernel_size, std::optional<Pair2> stride = std::nullopt, Pair2 padding = 0,
                  Pair2 dilation = 1, bool ceil_mode = false);
/// Mean over each window; padding counts as zeros when `count_include_pad`.
Tensor avg_pool2d(const Tensor& x, Pair2 kernel_size, std::optional<Pair2> stride = std::nullopt, Pair2 padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true);
/// Mean over adaptive_pool_bin() windows so that the output is `output_size`.
Tensor adaptive_avg_pool2d(const Tensor& x, Pair2 output_size);
/// Batch normalisation over dim 1 of x (N, C, ...). Training: normalise with the
/// batch's mean and biased variance, and update the running statistics (if
/// defined) with the unbiased variance: r = (1 - momentum) r + momentum * batch.
/// Eval: normalise with the running statistics.
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum = 0.1, double eps = 1e-5);
/// Where the outputs of one axis read from in bilinear interpolation: output o
/// is (1 - lambda[o]) * input[lo[o]] + lambda[o] * input[hi[o]].
struct LinearTaps {
  std::vector<std::int64_t> lo;  ///< the lower source index of each output
  std::vector<std::int64_t> hi;  ///< the upper source index (lo + 1, or lo at the last input)
  std::vector<float> lambda;     ///< the weight of hi, in [0, 1]; lo gets 1 - lambda
};

/// The source index of each of `out` outputs along an axis of `in` inputs, for
/// mode "nearest" (PyTorch 1.13's legacy nearest: floor(o * scale)).
/// (Task week03.interpolate: the contract and the code are in src/tasks/interpolate.cpp.)
std::vector<std::int64_t> nearest_source_indices(std::int64_t in, std::int64_t out, std::optional<double> scale_factor);

/// The taps of each of `out` outputs along an axis of `in` inputs, for mode
/// "bilinear", with or without align_corners.
/// (Task week03.interpolate: the contract and the code are in src/tasks/interpolate.cpp.)
LinearTaps linear_source_taps(std::int64_t in, std::int64_t out, std::optional<double> scale_factor,
                              bool align_corners);

/// Resizes the spatial dims of x (N, C, H, W) to `size`, or by `scale_factor`
/// (output = floor(input * scale)). `mode`: "nearest" or "bilinear";
/// `align_corners` only for bilinear (default false).
Tensor interpolate(const Tensor& x, std::optional<Pair2> size,
                   std::optional<std::pair<double, double>> scale_factor = std::nullopt,
                   const std::string& mode = "nearest", std::optional<bool> align_corners = std::nullopt);

}  // namespace functional

/// Short name, as `import torch.nn.functional as F`.
namespace F = functional;

}  // namespace kindling::nn

namespace kindling {
/// Running sums along `dim` (torch.cumsum): out[..., k, ...] = x[..., 0, ...] + ... + x[..., k, ...].
/// Integer and bool inputs give int64. The gradient (CumsumBackward0) is the running sum of the
/// incoming gradient taken from the other end.
Tensor cumsum(const Tensor& x, std::int64_t dim);
}  // namespace kindling
