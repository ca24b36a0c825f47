#pragma once
/// @file conv.hpp
/// Conv2d, and the output-size rule shared by convolution and pooling.

#include <kindling/functional.hpp>
#include <kindling/module.hpp>

namespace kindling::nn {

/// The output length of a convolution or pooling along one spatial dim: floor((in + 2 * padding -
/// dilation * (kernel - 1) - 1) / stride) + 1.
/// (Task week03.conv_output_shape: the contract and the code are in src/tasks/conv_output_shape.cpp.)
std::int64_t conv_output_size(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t padding,
                              std::int64_t dilation = 1, bool ceil_mode = false);

/// Options of Conv2d after the three required arguments, for designated
/// initialisers: `Conv2d(3, 8, 3, {.stride = 2, .padding = 1})`.
struct Conv2dOptions {
  Pair2 stride = 1;         ///< step between windows
  Pair2 padding = 0;        ///< zeros added on each side
  Pair2 dilation = 1;       ///< spacing between kernel taps
  std::int64_t groups = 1;  ///< channel groups (in and out channels must divide)
  bool bias = true;         ///< learn a bias per output channel
};

/// 2-d convolution (torch.nn.Conv2d): weight (out, in / groups, kh, kw), bias
/// (out), both initialised as PyTorch does (kaiming_uniform_ with a = sqrt(5),
/// bias from U(+-1/sqrt(fan_in))).
class Conv2d : public Module {
 public:
  /// Throws ValueError "in_channels must be divisible by groups" (or out_channels).
  Conv2d(std::int64_t in, std::int64_t out, Pair2 kernel, Conv2dOptions opts = {});
  /// F::conv2d with this layer's weight, bias and options.
  Tensor forward(const Tensor& x) override;
  /// Redraws weight and bias.
  void reset_parameters();
  /// "3, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1)", as PyTorch prints it.
  std::string extra_repr() const override;

  std::int64_t in_channels;   ///< input channels
  std::int64_t out_channels;  ///< output channels
  Pair2 kernel_size;          ///< (kh, kw)
  Conv2dOptions options;      ///< stride, padding, dilation, groups, bias
  Tensor weight;              ///< (out, in / groups, kh, kw)
  Tensor bias;                ///< (out), or undefined
};

/// Options of ConvTranspose2d after the three required arguments.
struct ConvTranspose2dOptions {
  Pair2 stride = 1;          ///< step between the windows the output is scattered into
  Pair2 padding = 0;         ///< rows and columns removed from each side of the output
  Pair2 output_padding = 0;  ///< rows and columns added on one side (to reach an exact size)
  Pair2 dilation = 1;        ///< spacing between kernel taps
  bool bias = true;          ///< learn a bias per output channel
};

/// The transposed 2-d convolution (torch.nn.ConvTranspose2d, one group): weight (in, out,
/// kh, kw), bias (out), initialised as PyTorch does (kaiming_uniform_ with a = sqrt(5); its
/// fan_in is weight.size(1) * kh * kw).
class ConvTranspose2d : public Module {
 public:
  /// in, out channels and the kernel size.
  ConvTranspose2d(std::int64_t in, std::int64_t out, Pair2 kernel, ConvTranspose2dOptions opts = {});
  /// F::conv_transpose2d with this layer's weight, bias and options.
  Tensor forward(const Tensor& x) override;
  /// Redraws weight and bias.
  void reset_parameters();
  /// "8, 3, kernel_size=(4, 4), stride=(2, 2)", as PyTorch prints it (padding, dilation,
  /// output_padding after, when not their defaults).
  std::string extra_repr() const override;

  std::int64_t in_channels;        ///< input channels
  std::int64_t out_channels;       ///< output channels
  Pair2 kernel_size;               ///< (kh, kw)
  ConvTranspose2dOptions options;  ///< stride, padding, output_padding, dilation, bias
  Tensor weight;                   ///< (in, out, kh, kw)
  Tensor bias;                     ///< (out), or undefined
};

}  // namespace kindling::nn
