// Linear's (out, in) layout and forward, its default initialisation, nn::init
// under no_grad, and the naive layout kernel.

#include <cmath>

#include "oracle_json.hpp"
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

// A negative size fails where the weight is allocated, and PyTorch's message names the weight's shape,
// (out, in): Linear(-1, 2) reports [2, -1]; a weight stored (in, out) would report [-1, 2].
TEST(week03_linear_layout, NegativeSizeFailsInTheWeightsAllocation) {
  expect_oracle_error([] { Linear lin(-1, 2); }, "linear_negative_in");
  expect_oracle_error([] { Linear lin(-1, -3); }, "linear_negative_both");
}

// A 1-d input (in_features,) is one sample, not a batch: PyTorch 1.13's F.linear(x, W, b) for x of shape (4,)
// is x W^T + b of shape (3,) (tools/oracle/week03.py, "linear_1d").
TEST(week03_linear_layout, VectorInputWithBiasIsWxPlusB) {
  Linear lin(4, 3);
  load_oracle_weights(lin);
  const Tensor x = oracle_ramp({4});
  SCOPED_TRACE(
      "a 1-d input of shape (in_features,) is one sample: the output is W x + b of shape (out_features,), with "
      "the bias added on this path as on the batched ones, and the gradients reach x, weight and bias");
  expect_case("linear_1d", [&] { return lin(x); }, {x, lin.weight, lin.bias});
}

// PyTorch 1.13: nn.Linear(4, 1) on a (4,) input returns shape (1,), with or without a bias ("linear_1d_one_output",
// "linear_1d_one_output_nobias").
TEST(week03_linear_layout, VectorInputWithOneOutputFeatureKeepsItsOutputDim) {
  const std::string rule =
      "Linear(4, 1) on a 1-d input of shape (4,) returns shape (1,): only the batch dim that a 1-d input never had "
      "may be removed, never the output dim (squeeze() without a dim drops every size-1 dim, out_features 1 too)";
  for (const bool has_bias : {true, false}) {
    SCOPED_TRACE(rule + (has_bias ? " [with a bias]" : " [without a bias]"));
    Linear lin(4, 1, has_bias);
    assign(lin.weight, oracle_ramp({1, 4}, 5.0, 1.0).detach());
    if (has_bias) assign(lin.bias, oracle_ramp({1}, 3.0, 0.5).detach());
    const std::string name = has_bias ? "linear_1d_one_output" : "linear_1d_one_output_nobias";
    const Tensor probe = lin(oracle_ramp({4}).detach());
    ASSERT_EQ(probe.sizes().vec(), oracle_values(name, "out").sizes) << rule;
    const Tensor x = oracle_ramp({4});
    if (has_bias)
      expect_case(name, [&] { return lin(x); }, {x, lin.weight, lin.bias});
    else
      expect_case(name, [&] { return lin(x); }, {x, lin.weight});
  }
}

// PyTorch 1.13: nn.Linear(4, 3)(torch.zeros(5)) raises "mat1 and mat2 shapes cannot be multiplied (1x5 and 4x3)",
// with or without a bias: the 1-d input is multiplied as a 1 x 5 matrix (matmul's rule), not through mv.
TEST(week03_linear_layout, VectorInputWithTheWrongLengthGetsTheMatmulMessage) {
  SCOPED_TRACE(
      "a 1-d input is multiplied by W^T as a 1 x in_features matrix (matmul of a vector and a matrix), so a wrong "
      "length gets mm's \"mat1 and mat2 shapes cannot be multiplied (1x5 and 4x3)\", as in PyTorch; mv(W, x) or "
      "a broadcast product reports a different error");
  Linear lin(4, 3);
  expect_oracle_error([&] { lin(zeros({5})); }, "linear_1d_wrong_features");
  Linear no_bias(4, 3, false);
  expect_oracle_error([&] { no_bias(zeros({5})); }, "linear_1d_wrong_features_nobias");
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

// torch.nn.init.uniform_(t, generator=g) does not exist in 1.13 either; as with normal_, Kindling's uniform_ takes
// one, and the same seed must give the same values.
TEST(week03_init_no_grad, UniformDrawsFromTheGeneratorItIsGiven) {
  Generator g1(11), g2(11);
  const Tensor a = zeros({64}), b = zeros({64});
  nn::init::uniform_(a, -1.0, 1.0, &g1);
  manual_seed(99);  // the global generator moves on between the two draws
  (void)rand({5});
  nn::init::uniform_(b, -1.0, 1.0, &g2);
  EXPECT_TRUE(equal(a, b)) << "two generators with the same seed gave uniform_ different values: uniform_ must draw "
                              "from the generator it is given (pass it on to rand), not from the global one";
}

// The five fills, by the names the oracle uses.
const std::vector<std::pair<std::string, std::function<void(const Tensor&)>>>& init_fills() {
  static const std::vector<std::pair<std::string, std::function<void(const Tensor&)>>> fills = {
      {"uniform_", [](const Tensor& t) { nn::init::uniform_(t); }},
      {"normal_", [](const Tensor& t) { nn::init::normal_(t); }},
      {"constant_", [](const Tensor& t) { nn::init::constant_(t, 0.25); }},
      {"zeros_", [](const Tensor& t) { nn::init::zeros_(t); }},
      {"ones_", [](const Tensor& t) { nn::init::ones_(t); }}};
  return fills;
}

// PyTorch 1.13: after nn.init.uniform_/normal_/constant_/zeros_/ones_ on torch.zeros(3, 4, requires_grad=True),
// t._version is 1, t.is_leaf, t.grad_fn is None and t.requires_grad ("init_parameter").
TEST(week03_init_no_grad, EachInitIsOneWriteAndLeavesALeafParameter) {
  const auto& expected = oracle_json("init_parameter");
  for (const auto& [name, fill] : init_fills()) {
    const auto& e = expected.at(name);
    const Tensor w = zeros({3, 4}).requires_grad_();
    fill(w);
    EXPECT_EQ(w.version(), e.at("version").get<std::uint32_t>())
        << "nn::init::" << name << " moved the parameter's version counter by " << w.version()
        << ": PyTorch's init is one in-place write under no_grad (version 1); compute the values first, then "
           "write them once (copy_ or fill_), rather than writing and then scaling and shifting in place";
    EXPECT_EQ(w.is_leaf(), e.at("is_leaf").get<bool>())
        << "nn::init::" << name << " turned the parameter into a non-leaf: the write was recorded by autograd";
    EXPECT_EQ(w.grad_fn() != nullptr, e.at("has_grad_fn").get<bool>())
        << "nn::init::" << name << " gave the parameter a grad_fn: the write must happen under NoGradGuard";
    EXPECT_EQ(w.requires_grad(), e.at("requires_grad").get<bool>())
        << "nn::init::" << name << " changed whether the parameter requires grad";
  }
}

// PyTorch 1.13: the same fills on torch.zeros(3, 4) leave requires_grad False, version 1 ("init_plain_tensor").
TEST(week03_init_no_grad, APlainTensorDoesNotStartRequiringGrad) {
  const auto& expected = oracle_json("init_plain_tensor");
  for (const auto& [name, fill] : init_fills()) {
    const auto& e = expected.at(name);
    const Tensor t = zeros({3, 4});
    fill(t);
    EXPECT_EQ(t.requires_grad(), e.at("requires_grad").get<bool>())
        << "nn::init::" << name
        << " made a tensor that did not require grad require it: init must leave the "
           "requires_grad flag alone; switch recording off with NoGradGuard instead of flipping the flag off "
           "for the write and on again";
    EXPECT_EQ(t.version(), e.at("version").get<std::uint32_t>())
        << "nn::init::" << name << " moved the version counter by " << t.version() << " (PyTorch: one write)";
  }
}

// PyTorch 1.13: `with torch.no_grad(): nn.init.uniform_(w)` (and the others) leaves grad mode off
// ("init_grad_mode_under_no_grad"); outside no_grad it stays on.
TEST(week03_init_no_grad, GradModeIsAsTheCallerLeftIt) {
  const auto& expected = oracle_json("init_grad_mode_under_no_grad");
  AutoGradMode on(true);  // this test's own mode, restored when it ends
  for (const auto& [name, fill] : init_fills()) {
    fill(zeros({3}).requires_grad_());
    EXPECT_TRUE(GradMode::is_enabled())
        << "nn::init::" << name
        << " left autograd switched off: turn recording off with a NoGradGuard, which "
           "restores the previous mode when it goes out of scope, not with GradMode::set_enabled(false)";
    GradMode::set_enabled(true);  // so that one mistake does not hide behind another
    {
      NoGradGuard outer;  // as in `with torch.no_grad(): model = Model()`
      fill(zeros({3}).requires_grad_());
      EXPECT_EQ(GradMode::is_enabled(), expected.at(name).get<bool>())
          << "nn::init::" << name
          << " called under an outer NoGradGuard switched autograd back on: restore the "
             "mode you found (a NoGradGuard does), do not set it to enabled";
    }
    GradMode::set_enabled(true);
  }
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
