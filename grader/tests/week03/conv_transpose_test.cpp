// The given engine (not graded): the transposed convolution (F::conv_transpose2d,
// nn::ConvTranspose2d) against PyTorch 1.13, and gradcheck of its backward.
#include "week03_support.hpp"

using namespace kindling;
using namespace kindling::testing;
namespace F = kindling::nn::functional;

namespace {
struct ConvTCase {
  const char* name;
  Shape x, w;
  bool bias;
  nn::Pair2 stride, padding, output_padding, dilation;
};
}  // namespace

TEST(EngineConvTranspose, MatchesPyTorchForwardAndBackward) {
  const std::vector<ConvTCase> cases = {
      {"convt_basic", {2, 3, 4, 5}, {3, 2, 3, 3}, true, 1, 0, 0, 1},
      {"convt_dcgan", {2, 4, 3, 3}, {4, 2, 4, 4}, false, 2, 1, 0, 1},
      {"convt_full", {1, 2, 3, 4}, {2, 3, 3, 2}, true, {2, 3}, {1, 0}, {1, 2}, {1, 2}},
      {"convt_unbatched", {2, 3, 3}, {2, 1, 2, 2}, true, 2, 0, 1, 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const Tensor x = oracle_ramp(c.x, 11.0, 1.0), w = oracle_ramp(c.w, 13.0, 0.8);
    const Tensor b = c.bias ? oracle_ramp({c.w[1]}, 2.0, 0.5) : Tensor();
    TensorList leaves;
    for (const Tensor& t : {x, w, b})
      if (t.defined()) leaves.push_back(t);
    expect_case(
        c.name, [&] { return F::conv_transpose2d(x, w, b, c.stride, c.padding, c.output_padding, c.dilation); },
        leaves);
  }
  EXPECT_EQ(F::conv_transpose2d(oracle_ramp({1, 1, 3, 3}), oracle_ramp({1, 1, 2, 2})).grad_fn()->name(),
            oracle_string("convt_name", "convt"));
  expect_oracle_error(
      [] {
        F::conv_transpose2d(zeros({1, 1, 3, 3}), zeros({1, 1, 3, 3}), {}, 2, 0, 2);
      },
      "convt_output_padding");
}

TEST(EngineConvTranspose, GradcheckOfEveryInput) {
  const auto r = [](const Shape& s, double scale) {
    Tensor t = (arange(numel_of(s), kFloat64).reshape(s) / scale - 0.7).sin();
    t.requires_grad_();
    return t;
  };
  EXPECT_TRUE(autograd::gradcheck([](const TensorList& v) { return F::conv_transpose2d(v[0], v[1], v[2], 2, 1, 1); },
                                  {r({2, 2, 3, 3}, 5.0), r({2, 3, 3, 3}, 7.0), r({3}, 3.0)}));
  EXPECT_TRUE(autograd::gradcheck(
      [](const TensorList& v) {
        return F::conv_transpose2d(v[0], v[1], {}, {1, 2}, 0, {0, 1}, {2, 1});
      },
      {r({1, 2, 3, 2}, 4.0), r({2, 1, 2, 3}, 6.0)}));
}

TEST(EngineConvTranspose, TheModuleIsPyTorchsAndUndoesAConvolutionsShape) {
  manual_seed(0);
  nn::ConvTranspose2d up(8, 3, 4, {.stride = 2, .padding = 1, .bias = false});
  EXPECT_EQ(up.repr(), oracle_string("reprs", "convt_dcgan"));
  EXPECT_EQ(
      nn::ConvTranspose2d(2, 4, {3, 2}, {.stride = {2, 1}, .padding = 1, .output_padding = {1, 0}, .dilation = {1, 2}})
          .repr(),
      oracle_string("reprs", "convt_full"));
  EXPECT_EQ(up.weight.sizes().vec(), (Shape{8, 3, 4, 4}));
  // A stride-2 convolution halves 16 x 16; the transposed one with the same window doubles it back.
  const Tensor y = up(randn({2, 8, 8, 8}));
  EXPECT_EQ(y.sizes().vec(), (Shape{2, 3, 16, 16}));
  // kaiming_uniform_(a = sqrt 5): bound 1 / sqrt(fan_in), fan_in = weight.size(1) * 16 = 48.
  EXPECT_LE(up.weight.abs().max().item<double>(), 1.0 / std::sqrt(48.0) + 1e-6);
}
