// Task week02.custom_function: a custom autograd function whose gradient is not the derivative.
// Fake quantisation's values and straight-through gradient against PyTorch 1.13's
// torch.fake_quantize_per_tensor_affine (tools/oracle/week02.py), its node, and its errors.

#include <string>

#include <kindling/autograd.hpp>
#include <kindling/fake_quantize.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

TEST(week02_custom_function, ValuesAndTheStraightThroughGradientArePyTorchs) {
  for (const auto& c : oracle_json("fake_quantize")) {
    const Tensor x = exact_tensor_from_json(c["x"]).requires_grad_();
    const auto scale = c["scale"].get<double>();
    const auto zp = c["zero_point"].get<std::int64_t>();
    const auto lo = c["quant_min"].get<std::int64_t>(), hi = c["quant_max"].get<std::int64_t>();
    SCOPED_TRACE("fake_quantize_per_tensor_affine(x, " + std::to_string(scale) + ", " + std::to_string(zp) + ", " +
                 std::to_string(lo) + ", " + std::to_string(hi) + ")");
    const Tensor y = autograd::fake_quantize_per_tensor_affine(x, scale, zp, lo, hi);
    expect_values(y, values_from_json(c["y"]), 0, 0);
    y.backward(exact_tensor_from_json(c["gout"]));
    ASSERT_TRUE(x.grad().defined());
    expect_values(x.grad(), values_from_json(c["grad"]), 0, 0);
  }
}

TEST(week02_custom_function, TheResultHangsOnTheCustomNodeAndNoGradRecordsNothing) {
  const Tensor x = tensor({0.3f, -2.0f, 7.0f}).requires_grad_();
  const Tensor y = autograd::fake_quantize_per_tensor_affine(x, 0.5, 0, -8, 7);
  ASSERT_TRUE(y.grad_fn() != nullptr) << "the result must record the custom function's node";
  EXPECT_NE(y.grad_fn()->name().find("FakeQuantize"), std::string::npos) << y.grad_fn()->name();
  {
    NoGradGuard no_grad;
    EXPECT_FALSE(autograd::fake_quantize_per_tensor_affine(x, 0.5, 0, -8, 7).requires_grad());
  }
  // Twice through the same input: the gradients add up, each masked.
  (y + autograd::fake_quantize_per_tensor_affine(x, 1.0, 0, -1, 1)).sum().backward();
  expect_values(x.grad(), Values{{3}, "float32", {2.0, 1.0, 0.0}}, 0, 0);
}

TEST(week02_custom_function, ErrorsArePyTorchs) {
  const auto& e = oracle_json("fake_quantize_errors");
  const Tensor x = ones({3});
  EXPECT_EQ(autograd::fake_quantize_per_tensor_affine(x, 0.1, 3, 0, 20).sum().item<float>(), 3.0f);
  expect_error_json([&] { autograd::fake_quantize_per_tensor_affine(x, 0.1, 3, 20, 0); }, e["min_above_max"]);
  expect_error_json([&] { autograd::fake_quantize_per_tensor_affine(x, 0.1, 30, 0, 20); }, e["zero_point_outside"]);
}
