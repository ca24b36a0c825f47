#pragma once
/// @file pooling.hpp
/// MaxPool2d, AvgPool2d and AdaptiveAvgPool2d.

#include <kindling/conv.hpp>

namespace kindling::nn {

/// The window of output cell `i` of an adaptive pool from length `in` to length `out`: [floor(i *
/// in / out), ceil((i + 1) * in / out)).
/// (Task week03.adaptive_pool_bins: the contract and the code are in src/tasks/adaptive_pool_bins.cpp.)
std::pair<std::int64_t, std::int64_t> adaptive_pool_bin(std::int64_t i, std::int64_t in, std::int64_t out);

/// Max pooling (torch.nn.MaxPool2d); stride defaults to the kernel size.
class MaxPool2d : public Module {
 public:
  /// Windows of `kernel`, moved by `step` (default: `kernel`).
  explicit MaxPool2d(Pair2 kernel, std::optional<Pair2> step = std::nullopt, Pair2 pad = 0, Pair2 dil = 1,
                     bool ceil = false)
      : Module("MaxPool2d"),
        kernel_size(kernel),
        stride(step.value_or(kernel)),
        padding(pad),
        dilation(dil),
        ceil_mode(ceil) {}
  /// F::max_pool2d with this layer's settings.
  Tensor forward(const Tensor& x) override {
    return F::max_pool2d(x, kernel_size, stride, padding, dilation, ceil_mode);
  }
  /// "kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False"
  std::string extra_repr() const override;
  Pair2 kernel_size;  ///< window
  Pair2 stride;       ///< step
  Pair2 padding;      ///< implicit -inf padding on each side
  Pair2 dilation;     ///< spacing of window taps
  bool ceil_mode;     ///< round the output size up
};

/// Average pooling (torch.nn.AvgPool2d); stride defaults to the kernel size.
class AvgPool2d : public Module {
 public:
  /// Windows of `kernel`, moved by `step` (default: `kernel`).
  explicit AvgPool2d(Pair2 kernel, std::optional<Pair2> step = std::nullopt, Pair2 pad = 0, bool ceil = false,
                     bool include_pad = true)
      : Module("AvgPool2d"),
        kernel_size(kernel),
        stride(step.value_or(kernel)),
        padding(pad),
        ceil_mode(ceil),
        count_include_pad(include_pad) {}
  /// F::avg_pool2d with this layer's settings.
  Tensor forward(const Tensor& x) override {
    return F::avg_pool2d(x, kernel_size, stride, padding, ceil_mode, count_include_pad);
  }
  /// "kernel_size=2, stride=2, padding=0"
  std::string extra_repr() const override;
  Pair2 kernel_size;       ///< window
  Pair2 stride;            ///< step
  Pair2 padding;           ///< zeros on each side
  bool ceil_mode;          ///< round the output size up
  bool count_include_pad;  ///< padding counts in the divisor
};

/// Average pooling to a fixed output size (torch.nn.AdaptiveAvgPool2d).
class AdaptiveAvgPool2d : public Module {
 public:
  /// Output (h, w) = `size`.
  explicit AdaptiveAvgPool2d(Pair2 size) : Module("AdaptiveAvgPool2d"), output_size(size) {}
  /// F::adaptive_avg_pool2d(x, output_size).
  Tensor forward(const Tensor& x) override { return F::adaptive_avg_pool2d(x, output_size); }
  /// "output_size=(1, 1)"
  std::string extra_repr() const override { return "output_size=" + output_size.repr(); }
  Pair2 output_size;  ///< (h, w) of the output
};

}  // namespace kindling::nn
