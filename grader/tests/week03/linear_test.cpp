// Linear's (out, in) layout and forward, its default initialisation, nn::init
// under no_grad, and the naive layout kernel.

#include <cmath>

#include "week03_support.hpp"

namespace kindling::testing {
namespace {

using nn::Linear;

// The oracle's fixture: W = oracle_ramp(3, 4, 5, 1), b = oracle_ramp(3, 3, 0.5).
void load_oracle_weights(Linear& lin) {
  assign(lin.weight, oracle_ramp({3, 4}, 5.0, 1.0).detach());
  assign(lin.bias, oracle_ramp({3}, 3.0, 0.5).detach());
}

TEST(week03_linear_layout, WeightIsOutByInAndBiasIsOut) {
  Linear lin(4, 3);
  EXPECT_EQ(lin.weight.sizes().vec(), (Shape{3, 4}));
  EXPECT_EQ(lin.bias.sizes().vec(), (Shape{3}));
}

// y = nn.Linear(3, 2)(torch.randn(4, 3)); [f[0].name() if f[0] else None for f in y.grad_fn.next_functions]
// -> ['torch::autograd::AccumulateGrad', None, 'TBackward0']: addmm reads the weight through a view.
TEST(week03_linear_layout, AddmmReadsTheWeightThroughATransposedViewNotACopy) {
  Linear lin(3, 2);
  const Tensor y = lin(oracle_ramp({4, 3}).detach());
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "AddmmBackward0");
  const auto& edges = y.grad_fn()->next_edges();
  ASSERT_EQ(edges.size(), 3u);
  ASSERT_TRUE(edges[2].valid());
  EXPECT_EQ(edges[2].fn->name(), "TBackward0")
      << "the weight should reach addmm as weight.t(), a view: a copy (contiguous(), clone) costs a pass over the "
         "weight on every forward, which the (out, in) layout exists to avoid";
}

TEST(week03_linear_layout, ParametersAreLeavesThatRequireGrad) {
  Linear lin(4, 3);
  EXPECT_TRUE(lin.weight.requires_grad());
  EXPECT_TRUE(lin.weight.is_leaf());
  EXPECT_TRUE(lin.bias.requires_grad());
  const auto params = lin.named_parameters();
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[0].first, "weight");
  EXPECT_EQ(params[1].first, "bias");
}

TEST(week03_linear_layout, NoBiasRegistersNone) {
  Linear lin(5, 2, false);
  EXPECT_FALSE(lin.bias.defined());
  EXPECT_EQ(lin.parameters().size(), 1u);
  EXPECT_EQ(lin.repr(), oracle_string("reprs", "linear_nobias"));
}

TEST(week03_linear_layout, ForwardAndGradientsMatchPyTorchFor2dInput) {
  Linear lin(4, 3);
  load_oracle_weights(lin);
  const Tensor x = oracle_ramp({2, 4});
  expect_case("linear_2d", [&] { return lin(x); }, {x, lin.weight, lin.bias});
}

TEST(week03_linear_layout, BatchedInputKeepsLeadingDims) {
  Linear lin(4, 3);
  load_oracle_weights(lin);
  const Tensor x = oracle_ramp({2, 2, 4});
  expect_case("linear_3d", [&] { return lin(x); }, {x, lin.weight, lin.bias});
}

// nn.Linear(4, 3)(torch.arange(16.).view(2, 4, 2).transpose(1, 2)).shape -> torch.Size([2, 2, 3])
TEST(week03_linear_layout, NonContiguousBatchedInputIsAccepted) {
  Linear lin(4, 3);
  load_oracle_weights(lin);
  const Tensor x = oracle_ramp({2, 4, 2}).detach().transpose(1, 2);  // (2, 2, 4), not contiguous
  ASSERT_FALSE(x.is_contiguous());
  Tensor y;
  ASSERT_NO_THROW(y = lin(x)) << "flatten the leading dims with reshape(), which copies an input that view() "
                                 "cannot flatten (a transposed one), as PyTorch's Linear accepts it";
  EXPECT_EQ(y.sizes().vec(), (Shape{2, 2, 3}));
  EXPECT_TRUE(allclose(y.detach(), lin(x.contiguous()).detach()))
      << "a non-contiguous input must give the same output as its contiguous copy";
}

TEST(week03_linear_layout, VectorInputWithoutBias) {
  Linear lin(4, 3, false);
  assign(lin.weight, oracle_ramp({3, 4}, 5.0, 1.0).detach());
  const Tensor x = oracle_ramp({4});
  expect_case("linear_1d_nobias", [&] { return lin(x); }, {x, lin.weight});
}

TEST(week03_linear_layout, TwoDimInputIsOneAddmm) {
  Linear lin(4, 3);
  const Tensor y = lin(zeros({2, 4}));
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), oracle_string("linear_grad_fn", "name"));
}

TEST(week03_linear_layout, WrongFeatureCountGetsTheMatmulMessage) {
  Linear lin(4, 3);
  expect_oracle_error([&] { lin(zeros({2, 5})); }, "linear_wrong_features");
}

TEST(week03_linear_init, WeightAndBiasStayWithinOneOverSqrtFanIn) {
  manual_seed(3);
  Linear lin(400, 300);
  const double bound = 1.0 / std::sqrt(400.0);
  EXPECT_LE(max(abs(lin.weight)).item<double>(), bound);
  EXPECT_LE(max(abs(lin.bias)).item<double>(), bound);
  // U(-b, b) reaches close to its bounds over 120,000 draws, and has variance b^2 / 3.
  EXPECT_GT(max(lin.weight).item<double>(), 0.99 * bound);
  EXPECT_LT(min(lin.weight).item<double>(), -0.99 * bound);
  const double var = mean(lin.weight * lin.weight).item<double>();
  EXPECT_NEAR(var, bound * bound / 3.0, 0.02 * bound * bound);
  EXPECT_NEAR(mean(lin.weight).item<double>(), 0.0, 0.01 * bound);
}

TEST(week03_linear_init, BiasBoundUsesInFeaturesNotOutFeatures) {
  manual_seed(4);
  Linear lin(16, 2000);  // bias bound 1/4; a bound of 1/sqrt(2000) would be far smaller
  EXPECT_LE(max(abs(lin.bias)).item<double>(), 0.25);
  EXPECT_GT(max(abs(lin.bias)).item<double>(), 0.24);
}

TEST(week03_linear_init, KaimingUniformWithSqrt5IsOneOverSqrtFanIn) {
  manual_seed(5);
  const Tensor w = empty({50, 64});
  nn::init::kaiming_uniform_(w, std::sqrt(5.0));
  EXPECT_LE(max(abs(w)).item<double>(), 0.125 + 1e-7);
  EXPECT_GT(max(abs(w)).item<double>(), 0.12);
}

TEST(week03_linear_init, KaimingUniformFanOutAndRelu) {
  manual_seed(6);
  const Tensor w = empty({32, 8, 3, 3});  // fan_out = 32 * 9 = 288
  nn::init::kaiming_uniform_(w, 0.0, "fan_out", "relu");
  const double bound = std::sqrt(2.0) * std::sqrt(3.0 / 288.0);
  EXPECT_LE(max(abs(w)).item<double>(), bound + 1e-7);
  EXPECT_GT(max(abs(w)).item<double>(), 0.97 * bound);
}

TEST(week03_linear_init, KaimingUniformDrawsFromTheGeneratorItIsGiven) {
  Generator g1(5), g2(5);
  const Tensor a = zeros({8, 4}), b = zeros({8, 4});
  nn::init::kaiming_uniform_(a, std::sqrt(5.0), "fan_in", "leaky_relu", &g1);
  (void)rand({7});  // the global generator moves on between the two draws
  nn::init::kaiming_uniform_(b, std::sqrt(5.0), "fan_in", "leaky_relu", &g2);
  EXPECT_TRUE(equal(a, b)) << "two generators with the same seed gave different values: is the generator passed on?";
}

TEST(week03_linear_init, ResetParametersDrawsNewValues) {
  manual_seed(7);
  Linear lin(8, 8);
  const Tensor before = lin.weight.detach().clone();
  lin.reset_parameters();
  EXPECT_FALSE(equal(before, lin.weight.detach()));
  EXPECT_TRUE(lin.weight.is_leaf());
  EXPECT_FALSE(lin.weight.grad_fn());
}

TEST(week03_init_no_grad, UniformFillsALeafParameterWithoutRecording) {
  const Tensor w = zeros({100, 100}).requires_grad_();
  nn::init::uniform_(w, -2.0, 3.0);
  EXPECT_TRUE(w.is_leaf());
  EXPECT_FALSE(w.grad_fn());
  EXPECT_TRUE(w.requires_grad());
  EXPECT_GE(min(w).item<double>(), -2.0);
  EXPECT_LT(max(w).item<double>(), 3.0);
  EXPECT_NEAR(mean(w).item<double>(), 0.5, 0.05);
  EXPECT_EQ(w.version(), 1u);  // one in-place write
}

TEST(week03_init_no_grad, NormalHasTheRequestedMoments) {
  const Tensor w = zeros({200, 100}).requires_grad_();
  nn::init::normal_(w, 1.0, 0.5);
  EXPECT_FALSE(w.grad_fn());
  EXPECT_NEAR(mean(w).item<double>(), 1.0, 0.01);
  const Tensor centered = w.detach() - 1.0;
  EXPECT_NEAR(std::sqrt(mean(centered * centered).item<double>()), 0.5, 0.01);
}

// torch.nn.init.normal_(t, generator=g) does not exist in 1.13; Kindling's normal_ takes one, and the
// same seed must give the same values (drawn from that generator, not the global one).
TEST(week03_init_no_grad, NormalDrawsFromTheGeneratorItIsGiven) {
  Generator g1(11), g2(11);
  const Tensor a = zeros({64}), b = zeros({64});
  nn::init::normal_(a, 0.0, 1.0, &g1);
  manual_seed(99);  // the global generator moves on between the two draws
  (void)randn({5});
  nn::init::normal_(b, 0.0, 1.0, &g2);
  EXPECT_TRUE(equal(a, b)) << "two generators with the same seed gave different values: is the generator passed on?";
}

TEST(week03_init_no_grad, ConstantZerosAndOnes) {
  const Tensor w = empty({2, 3}).requires_grad_();
  nn::init::constant_(w, 0.25);
  EXPECT_TRUE(equal(w.detach(), full({2, 3}, 0.25)));
  nn::init::zeros_(w);
  EXPECT_TRUE(equal(w.detach(), zeros({2, 3})));
  nn::init::ones_(w);
  EXPECT_TRUE(equal(w.detach(), ones({2, 3})));
  EXPECT_FALSE(w.grad_fn());
}

TEST(week03_init_no_grad, ReturnsTheSameTensor) {
  const Tensor w = empty({3}).requires_grad_();
  EXPECT_EQ(&nn::init::uniform_(w), &w);
  EXPECT_EQ(&nn::init::constant_(w, 1.0), &w);
}

TEST(week03_init_no_grad, RestoresGradModeAfterwards) {
  const Tensor w = empty({3}).requires_grad_();
  nn::init::normal_(w);
  EXPECT_TRUE(GradMode::is_enabled());
  const Tensor y = w * 2;
  EXPECT_TRUE(y.requires_grad());
}

TEST(week03_init_no_grad, WritingALeafWithoutNoGradIsTheLeafError) {
  // What init would hit without its guard: the week-2 leaf rule.
  Linear lin(2, 2);
  expect_oracle_error([&] { lin.weight.copy_(zeros({2, 2})); }, "leaf_write_error");
}

TEST(week03_init_no_grad, FanAndGainMatchPyTorch) {
  const std::vector<std::pair<Shape, std::pair<std::int64_t, std::int64_t>>> fans = {
      {{3, 4}, {4, 3}}, {{8, 3, 3, 3}, {27, 72}}, {{5, 2, 4}, {8, 20}}, {{6, 1, 1, 1}, {1, 6}}};
  for (const auto& [shape, expected] : fans)
    EXPECT_EQ(nn::init::calculate_fan_in_and_fan_out(kindling::empty(shape)), expected);
  for (const char* g : {"linear", "conv2d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"})
    EXPECT_NEAR(nn::init::calculate_gain(g), oracle_number("gains", g), 1e-12) << g;
  EXPECT_NEAR(nn::init::calculate_gain("leaky_relu", std::sqrt(5.0)), oracle_number("gains", "leaky_relu_sqrt5"),
              1e-12);
  expect_oracle_error([] { nn::init::kaiming_uniform_(empty({3})); }, "fan_error");
  expect_oracle_error([] { nn::init::calculate_gain("swish"); }, "gain_error");
  expect_oracle_error([] { nn::init::kaiming_uniform_(empty({3, 3}), 0.0, "fan_avg"); }, "mode_error");
}

TEST(week03_layout_gemm, MatchesMmOnOddSizes) {
  for (auto [n, k, m] : {std::tuple{1, 1, 1}, {3, 5, 7}, {17, 33, 9}, {64, 130, 31}}) {
    const Tensor x = rand({n, k});
    const Tensor w = rand({m, k});  // (out, in)
    const Tensor y = nn::linear_naive(x, w);
    EXPECT_EQ(y.sizes().vec(), (Shape{n, m}));
    EXPECT_TRUE(allclose(y, mm(x, w.t()), 1e-5, 1e-5)) << n << "x" << k << "x" << m;
  }
}

TEST(week03_layout_gemm, AgreesWithTheInOutBaseline) {
  const Tensor x = rand({8, 12});
  const Tensor w = rand({5, 12});
  EXPECT_TRUE(allclose(nn::linear_naive(x, w), nn::matmul_naive_in_out(x, w.t().contiguous()), 1e-5, 1e-5));
}

TEST(week03_layout_gemm, RejectsMismatchedOperands) {
  expect_error<Error>(
      [] {
        nn::linear_naive(rand({2, 3}), rand({4, 5}));
      },
      "mat1 and mat2 shapes cannot be multiplied (2x3 and 5x4)");
  expect_error<Error>(
      [] {
        nn::linear_naive(rand({2, 3}), rand({4, 3}).t());
      },
      "naive matmul expects contiguous operands");
}

}  // namespace
}  // namespace kindling::testing
