// MUTANT: assigns new tensors to folded.weight/bias instead of copy_ into them: the registered parameters keep init
// Task week03.fold_conv_bn. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.fold_conv_bn`.

#include <kindling/batchnorm.hpp>
#include <kindling/conv.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/no_grad.hpp>

namespace kindling::nn {

/// Folds an eval-mode BatchNorm2d into the convolution before it: returns a new
/// Conv2d `folded` such that folded(x) equals bn(conv(x)) with bn in eval mode.
/// - `folded` has conv's in/out channels, kernel size, stride, padding, dilation
///   and groups, and always a bias. Per output channel c, with
///   s[c] = bn.weight[c] / sqrt(bn.running_var[c] + bn.eps) (bn.weight counts as 1
///   when bn has no affine parameters):
///   folded.weight[c] = conv.weight[c] * s[c] (every (in, kh, kw) entry), and
///   folded.bias[c] = (conv.bias[c] - running_mean[c]) * s[c] + bn.bias[c]
///   (conv.bias counts as 0 when conv has none, bn.bias as 0 without affine).
/// - The values are written into folded's own registered parameters, so that
///   folded.parameters() and state_dict() hold them; they stay leaves that
///   require grad, with no grad_fn, and share no storage with conv or bn.
/// - conv and bn are left unchanged.
/// - Throws kindling::Error `fold_conv_bn: the conv has 4 output channels but the
///   BatchNorm normalises 3` when the counts differ, and `fold_conv_bn: the
///   BatchNorm keeps no running statistics` when bn.running_mean is undefined
///   (track_running_stats=false).
Conv2d fold_conv_bn(const Conv2d& conv, const BatchNorm2d& bn) {
  // BEGIN SOLUTION week03.fold_conv_bn
  KINDLING_CHECK(conv.out_channels == bn.num_features, "fold_conv_bn: the conv has ", conv.out_channels,
                 " output channels but the BatchNorm normalises ", bn.num_features);
  KINDLING_CHECK(bn.running_mean.defined(), "fold_conv_bn: the BatchNorm keeps no running statistics");
  Conv2dOptions opts = conv.options;
  opts.bias = true;
  Conv2d folded(conv.in_channels, conv.out_channels, conv.kernel_size, opts);
  NoGradGuard no_grad;
  const Tensor scale = rsqrt(bn.running_var + bn.eps);  // 1 / sqrt(var + eps)
  const Tensor s = bn.weight.defined() ? bn.weight.detach() * scale : scale;
  folded.weight = conv.weight.detach() * s.view({-1, 1, 1, 1});
  const Tensor b = conv.bias.defined() ? conv.bias.detach() : zeros({conv.out_channels}, conv.weight.dtype());
  Tensor shift = (b - bn.running_mean) * s;
  if (bn.bias.defined()) shift = shift + bn.bias.detach();
  folded.bias = shift;
  return folded;
  // END SOLUTION
}

}  // namespace kindling::nn
