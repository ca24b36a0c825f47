// Task week02.relu_backward: ReLU's gradient, from its output, so that relu_ can overwrite
// its input; and the gradients that hand-written ReLUs give at 0. Expected values from
// PyTorch 1.13 (tools/oracle/week02.py).

#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include <kindling/autograd.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::autograd;
using namespace kindling::testing;

namespace {
Tensor hand_input() { return tensor({-1.0F, 0.0F, 2.0F, -0.0F, 3.0F, -0.5F}).requires_grad_(); }
}  // namespace

TEST(week02_relu_backward, TheFormulaReadsOnlyTheResult) {
  const Tensor result = tensor({0.0F, 0.0F, 2.0F, 0.5F});
  const Tensor grad = tensor({1.0F, -2.0F, 3.0F, 4.0F});
  const Tensor g = relu_backward(grad, result);
  EXPECT_EQ(g.to_vector<float>(), (std::vector<float>{0.0F, 0.0F, 3.0F, 4.0F}));
  EXPECT_EQ(g.sizes().vec(), grad.sizes().vec());
  EXPECT_EQ(grad.to_vector<float>(), (std::vector<float>{1.0F, -2.0F, 3.0F, 4.0F}));  // left alone
  const Tensor g64 = relu_backward(ones({2, 2}, kFloat64), tensor({{1.0, 0.0}, {0.0, 5.0}}, kFloat64));
  EXPECT_EQ(g64.dtype(), kFloat64);
  EXPECT_EQ(g64.to_vector<double>(), (std::vector<double>{1, 0, 0, 1}));
}

// torch: x = torch.tensor([-1., 0., 2., 0.], requires_grad=True);
// torch.relu(x).backward(torch.tensor([inf, inf, 1., nan])) -> x.grad = [0., 0., 1., 0.]
TEST(week02_relu_backward, AnInfiniteOrNaNGradientWhereTheResultIsZeroGivesZero) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor g = relu_backward(tensor({inf, inf, 1.0F, nan}), tensor({0.0F, 0.0F, 2.0F, 0.0F}));
  EXPECT_EQ(g.to_vector<float>(), (std::vector<float>{0.0F, 0.0F, 1.0F, 0.0F}))
      << "where the result is 0 the gradient is selected away (0), not multiplied by 0 (inf * 0 and nan * 0 are NaN)";
  const Tensor x = tensor({-1.0F, 0.0F, 2.0F, 0.0F}).requires_grad_();
  relu(x).backward(tensor({inf, inf, 1.0F, nan}));
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{0.0F, 0.0F, 1.0F, 0.0F}))
      << "relu's backward must give 0 where the result is 0, even for an infinite or NaN incoming gradient";
}

// torch: x = torch.tensor([nan, -1., 0., 2., nan], requires_grad=True); torch.relu(x).backward(g):
// relu keeps the NaN, and the gradient there is g (threshold_backward zeroes only where result <= 0).
TEST(week02_relu_backward, ANaNResultPassesTheGradientOnAsInPyTorch) {
  const auto& c = oracle_json("relu_nan");
  const Tensor g = to_tensor(values_from_json(c.at("gout")));
  const Tensor result = tensor({NAN, 0.0F, 0.0F, 2.0F, NAN});
  expect_values(relu_backward(g, result), values_from_json(c.at("grad")));
  const Tensor x = tensor({NAN, -1.0F, 0.0F, 2.0F, NAN}).requires_grad_();
  const Tensor y = relu(x);
  expect_values(y.detach(), values_from_json(c.at("out")));
  y.backward(g);
  expect_values(x.grad(), values_from_json(c.at("grad")));
}

TEST(week02_relu_backward, ReluMatchesPyTorchAtZeroAndEverywhere) {
  const auto& c = oracle_json("relu_hand").at("relu");
  const Tensor x = hand_input();
  const Tensor y = relu(x);
  expect_values(y.detach(), values_from_json(c.at("out")));
  y.backward(oracle_gout({6}));
  expect_values(x.grad(), values_from_json(c.at("grad")));
}

TEST(week02_relu_backward, ReluInPlaceOnANonLeafStillBackpropagates) {
  const auto& c = oracle_json("relu_inplace");
  const Tensor w = oracle_ramp({3, 4});
  Tensor h = w * 2 + 1;
  const Tensor& same = relu_(h);  // the input is gone: only the result is left to read
  EXPECT_TRUE(same.is_same(h));
  EXPECT_EQ(static_cast<std::int64_t>(h.version()), c.at("version").get<std::int64_t>());
  ASSERT_NE(h.grad_fn(), nullptr);
  EXPECT_EQ(h.grad_fn()->name(), c.at("grad_fn").get<std::string>());
  expect_values(h.detach(), values_from_json(c.at("out")));
  h.backward(oracle_gout({3, 4}));
  expect_values(w.grad(), values_from_json(c.at("grad")));
  expect_oracle_error([] { relu_(oracle_ramp({3})); }, "relu_inplace_leaf_error");
}

TEST(week02_relu_backward, AWriteAfterReluInPlaceIsCaught) {
  // ReluBackward0 saved the result; writing into it again leaves nothing right to read.
  expect_oracle_error(
      [] {
        Tensor h = oracle_ramp({3, 4}) * 2 + 1;
        relu_(h);
        h.mul_(2);
        h.sum().backward();
      },
      "relu_inplace_then_write_error");
}

TEST(week02_relu_backward, HandWrittenReLUsDisagreeOnlyAtZero) {
  // Six ways to write max(x, 0): the same values, but at 0 each picks its own subgradient
  // (clamp 1, x * (x > 0) and where 0, (x + |x|) / 2 and maximum 0.5), as in PyTorch.
  const auto& cases = oracle_json("relu_hand");
  const Tensor zero = zeros({});
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> forms = {
      {"relu", [](const Tensor& t) { return relu(t); }},
      {"clamp_min", [](const Tensor& t) { return clamp(t, 0.0, std::nullopt); }},
      {"mul_mask", [](const Tensor& t) { return t * gt(t, 0); }},
      {"where", [&](const Tensor& t) { return where(gt(t, 0), t, zero); }},
      {"abs_mean", [](const Tensor& t) { return (t + abs(t)) / 2; }},
      {"maximum", [&](const Tensor& t) { return maximum(t, zero); }}};
  const Tensor relu_grad = [] {
    const Tensor x = hand_input();
    relu(x).backward(oracle_gout({6}));
    return x.grad();
  }();
  for (const auto& [name, f] : forms) {
    SCOPED_TRACE(name);
    const auto& c = cases.at(name);
    const Tensor x = hand_input();
    const Tensor y = f(x);
    expect_values(y.detach(), values_from_json(c.at("out")));
    y.backward(oracle_gout({6}));
    expect_values(x.grad(), values_from_json(c.at("grad")));
    // Away from 0 (elements 0, 2, 4, 5) every form agrees with relu's own gradient.
    for (std::int64_t i : {0, 2, 4, 5})
      EXPECT_FLOAT_EQ(x.grad().to_vector<float>()[i], relu_grad.to_vector<float>()[i]);
  }
}
