// Task week03.fold_conv_bn: folding an eval-mode BatchNorm2d into the convolution before it.
// Expected values: PyTorch 1.13's torch.nn.utils.fusion.fuse_conv_bn_eval on the same ramps.
#include <kindling/nn.hpp>

#include "oracle_json.hpp"
#include "week03_support.hpp"

namespace kindling::testing {
namespace {

struct FoldCase {
  std::string name;
  std::int64_t cin, cout;
  nn::Pair2 kernel;
  nn::Conv2dOptions options;
  bool affine;
  double eps;
  Shape x;
};

std::vector<FoldCase> fold_cases() {
  return {
      {"fold_basic", 3, 4, 3, {.padding = 1}, true, 1e-5, {2, 3, 5, 5}},
      {"fold_no_conv_bias", 3, 4, 3, {.padding = 1, .bias = false}, true, 1e-5, {2, 3, 5, 5}},
      {"fold_full",
       4,
       6,
       {3, 2},
       {.stride = 2, .padding = {1, 2}, .dilation = 2, .groups = 2},
       true,
       1e-3,
       {1, 4, 9, 8}},
      {"fold_no_affine", 2, 3, 2, {}, false, 1e-5, {2, 2, 4, 4}},
  };
}

// The oracle's conv and bn: every tensor a ramp (tools/oracle/week03.py, "week03.fold_conv_bn").
struct Pair {
  nn::Conv2d conv;
  nn::BatchNorm2d bn;
};
Pair build(const FoldCase& c) {
  Pair p{nn::Conv2d(c.cin, c.cout, c.kernel, c.options), nn::BatchNorm2d(c.cout, c.eps, 0.1, c.affine)};
  assign(p.conv.weight, oracle_ramp(p.conv.weight.sizes().vec(), 13.0, 0.8));
  if (p.conv.bias.defined()) assign(p.conv.bias, oracle_ramp({c.cout}, 2.0, 0.5));
  if (c.affine) {
    assign(p.bn.weight, oracle_ramp({c.cout}, 4.0, -0.5));
    assign(p.bn.bias, oracle_ramp({c.cout}, 3.0, 0.4));
  }
  assign(p.bn.running_mean, oracle_ramp({c.cout}, 5.0, 0.3));
  assign(p.bn.running_var, oracle_ramp({c.cout}, 2.0, -0.25));
  p.conv.eval();
  p.bn.eval();
  return p;
}

TEST(week03_fold_conv_bn, WeightAndBiasMatchPyTorchsFusion) {
  for (const FoldCase& c : fold_cases()) {
    SCOPED_TRACE(c.name);
    Pair p = build(c);
    const nn::Conv2d folded = nn::fold_conv_bn(p.conv, p.bn);
    ASSERT_TRUE(folded.weight.defined());
    ASSERT_TRUE(folded.bias.defined());
    expect_values(folded.weight.detach(), oracle_values(c.name, "weight"), 1e-5, 1e-6);
    expect_values(folded.bias.detach(), oracle_values(c.name, "bias"), 1e-5, 1e-6);
  }
}

TEST(week03_fold_conv_bn, OneConvolutionGivesConvThenBatchNorm) {
  for (const FoldCase& c : fold_cases()) {
    SCOPED_TRACE(c.name);
    Pair p = build(c);
    nn::Conv2d folded = nn::fold_conv_bn(p.conv, p.bn);
    NoGradGuard no_grad;
    const Tensor x = oracle_ramp(c.x, 11.0, 1.0).detach();
    expect_values(p.bn(p.conv(x)), oracle_values(c.name, "out"), 1e-4, 1e-5);
    expect_values(folded(x), oracle_values(c.name, "out"), 1e-4, 1e-5);
  }
}

TEST(week03_fold_conv_bn, KeepsTheConvolutionsGeometry) {
  const FoldCase c = fold_cases()[2];
  Pair p = build(c);
  const nn::Conv2d folded = nn::fold_conv_bn(p.conv, p.bn);
  EXPECT_EQ(folded.in_channels, 4);
  EXPECT_EQ(folded.out_channels, 6);
  EXPECT_EQ(folded.kernel_size.h, 3);
  EXPECT_EQ(folded.kernel_size.w, 2);
  EXPECT_EQ(folded.options.stride.h, 2);
  EXPECT_EQ(folded.options.padding.w, 2);
  EXPECT_EQ(folded.options.dilation.h, 2);
  EXPECT_EQ(folded.options.groups, 2);
  EXPECT_TRUE(folded.options.bias);
  EXPECT_EQ(folded.weight.sizes().vec(), (Shape{6, 2, 3, 2}));
}

TEST(week03_fold_conv_bn, ParametersAreFreshRegisteredLeaves) {
  Pair p = build(fold_cases()[0]);
  const Tensor conv_weight_before = p.conv.weight.detach().clone();
  const Tensor mean_before = p.bn.running_mean.clone();
  nn::Conv2d folded = nn::fold_conv_bn(p.conv, p.bn);
  // Written into the registered parameters: the registry and the state dict see the values.
  const auto params = folded.named_parameters();
  ASSERT_EQ(params.size(), 2u);
  EXPECT_TRUE(equal(params[0].second.detach(), folded.weight.detach()));
  expect_values(params[0].second.detach(), oracle_values("fold_basic", "weight"), 1e-5, 1e-6);
  expect_values(params[1].second.detach(), oracle_values("fold_basic", "bias"), 1e-5, 1e-6);
  for (const auto& [name, t] : params) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(t.is_leaf());
    EXPECT_TRUE(t.requires_grad());
    EXPECT_EQ(t.grad_fn(), nullptr);
  }
  EXPECT_NE(folded.weight.data_ptr(), p.conv.weight.data_ptr());
  EXPECT_NE(folded.bias.data_ptr(), p.conv.bias.data_ptr());
  // conv and bn are untouched.
  EXPECT_TRUE(equal(p.conv.weight.detach(), conv_weight_before));
  EXPECT_TRUE(equal(p.bn.running_mean, mean_before));
}

TEST(week03_fold_conv_bn, RefusesMismatchedChannelsAndMissingStatistics) {
  nn::Conv2d conv(3, 4, 3);
  expect_error<Error>([&] { nn::fold_conv_bn(conv, nn::BatchNorm2d(3)); },
                      "fold_conv_bn: the conv has 4 output channels but the BatchNorm normalises 3");
  expect_error<Error>([&] { nn::fold_conv_bn(conv, nn::BatchNorm2d(4, 1e-5, 0.1, true, false)); },
                      "fold_conv_bn: the BatchNorm keeps no running statistics");
}

}  // namespace
// Study note 003: "convolution - batchnorm 사용 시, convolution bias 사용 하지 않음" (no conv bias
// before a BatchNorm). In training mode BatchNorm subtracts each channel's batch mean, so a bias
// added to a whole channel cancels: its gradient is zero up to rounding (PyTorch: at most 1.5e-8
// here, against weight gradients near 1.9). In eval mode it does not cancel, and the fold has to
// carry it into the folded bias.
TEST(week03_fold_conv_bn, AConvBiasBeforeTrainingBatchNormGetsNoGradient) {
  const auto& c = oracle_json("conv_bias_before_bn");
  nn::Conv2dOptions opts;
  opts.padding = 1;
  nn::Conv2d conv(2, 3, 3, opts);
  assign(conv.weight, oracle_ramp({3, 2, 3, 3}, 13.0, 0.8).detach());
  assign(conv.bias, oracle_ramp({3}, 2.0, 0.5).detach());
  nn::BatchNorm2d bn(3);
  const Tensor x = oracle_ramp({2, 2, 4, 4}, 11.0, 1.0).detach();
  const Tensor y = bn(conv(x));
  y.backward(oracle_gout(y.sizes().vec()));
  expect_values(conv.bias.grad(), values_from_json(c.at("bias_grad")), 0.0, 1e-5);
  EXPECT_LT(conv.bias.grad().abs().max().item<double>(), 1e-5);
  EXPECT_NEAR(conv.weight.grad().abs().max().item<double>(), c.at("weight_grad_max").get<double>(), 1e-4);
  // After that training step, the eval-mode pair is a different function of the bias: folding
  // must give the same output as the pair, bias and running statistics included.
  expect_values(bn.running_mean, values_from_json(c.at("running_mean")), 1e-5, 1e-6);
  bn.eval();
  nn::Conv2d folded = nn::fold_conv_bn(conv, bn);
  NoGradGuard no_grad;
  EXPECT_TRUE(allclose(folded(x), bn(conv(x)), 1e-4, 1e-5));
}

}  // namespace kindling::testing
