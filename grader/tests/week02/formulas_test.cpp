// Tasks week02.sum_to_size, week02.mul_backward, week02.mm_backward.
#include <kindling/autograd.hpp>

#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

// ---- week02.sum_to_size -----------------------------------------------------------------------
TEST(week02_sum_to_size, SumsLeadingAndStretchedDims) {
  Tensor g = arange(24, kFloat32).reshape({4, 2, 3});
  Tensor r = autograd::sum_to_size(g, {2, 1});
  expect_values(r, {{2, 1}, "float32", {120, 156}});  // sum over i, k of 6i + 3j + k
}

TEST(week02_sum_to_size, MatchingShapeIsReturnedAsIs) {
  Tensor g = ones({2, 3});
  EXPECT_TRUE(autograd::sum_to_size(g, {2, 3}).is_same(g));
}

TEST(week02_sum_to_size, ScalarTarget) {
  expect_values(autograd::sum_to_size(arange(6, kFloat32).reshape({2, 3}), {}), {{}, "float32", {15}});
  expect_values(autograd::sum_to_size(arange(6, kFloat32).reshape({2, 3}), {1, 3}), {{1, 3}, "float32", {3, 5, 7}});
}

TEST(week02_sum_to_size, NonExpandableShapeThrows) {
  expect_error<Error>(
      [] {
        autograd::sum_to_size(ones({4, 2, 3}), {3, 1});
      },
      "size {[3, 1]} is not expandable to size {[4, 2, 3]}.");
}

TEST(week02_sum_to_size, BroadcastGradientsMatchPyTorch) {
  Tensor p = oracle_ramp({3, 1});
  Tensor q = oracle_ramp({1, 4}, 3.0);
  Tensor r = oracle_ramp({4}, 2.0, 0.3);
  ((p * q + r) * arange(12, kFloat32).reshape({3, 4})).sum().backward();
  expect_values(p.grad(), oracle_grad("broadcast", 0));
  expect_values(q.grad(), oracle_grad("broadcast", 1));
  expect_values(r.grad(), oracle_grad("broadcast", 2));
}

// ---- week02.mul_backward -------------------------------------------------------------------------
TEST(week02_mul_backward, EachFactorGetsGradTimesTheOther) {
  Tensor g = tensor(std::vector<float>{1, 2});
  auto r = autograd::mul_backward(g, tensor(std::vector<float>{3, 4}), tensor(std::vector<float>{5, 6}));
  expect_values(r[0], {{2}, "float32", {5, 12}});
  expect_values(r[1], {{2}, "float32", {3, 8}});
}

TEST(week02_mul_backward, UnsavedFactorSkipsTheGradientThatNeedsIt) {
  auto r = autograd::mul_backward(ones({2}), Tensor(), tensor(std::vector<float>{5, 6}));
  expect_values(r[0], {{2}, "float32", {5, 6}});
  EXPECT_FALSE(r[1].defined());
}

TEST(week02_mul_backward, ThroughTheEngine) {
  Tensor a = tensor(std::vector<float>{1, 2, 3}).requires_grad_();
  Tensor b = tensor(std::vector<float>{4, 5, 6}).requires_grad_();
  (a * b).sum().backward();
  expect_values(a.grad(), {{3}, "float32", {4, 5, 6}});
  expect_values(b.grad(), {{3}, "float32", {1, 2, 3}});
}

// ---- week02.mm_backward ------------------------------------------------------------------------------
TEST(week02_mm_backward, GradientsOfBothMatrices) {
  Tensor a = arange(6, kFloat32).reshape({2, 3});
  Tensor b = arange(12, kFloat32).reshape({3, 4});
  Tensor g = ones({2, 4});
  auto r = autograd::mm_backward(g, a, b);
  expect_values(r[0], {{2, 3}, "float32", {6, 22, 38, 6, 22, 38}});
  expect_values(r[1], {{3, 4}, "float32", {3, 3, 3, 3, 5, 5, 5, 5, 7, 7, 7, 7}});
}

TEST(week02_mm_backward, OneGradientAtATimeFromAStridedGrad) {
  // The engine asks only for the gradients it needs, and for a column-major operand it asks on
  // the transposed product, whose grad is a transposed view.
  Tensor a = arange(6, kFloat32).reshape({2, 3});
  Tensor b = arange(12, kFloat32).reshape({3, 4});
  Tensor g = (arange(8, kFloat32).reshape({4, 2}) - 3).t();  // (2, 4), strides (1, 2)
  auto only_mat1 = autograd::mm_backward(g, Tensor(), b);
  EXPECT_FALSE(only_mat1[1].defined());
  expect_values(only_mat1[0], {{2, 3}, "float32", {10, 10, 10, 16, 32, 48}});
  auto only_mat2 = autograd::mm_backward(g, a, Tensor());
  EXPECT_FALSE(only_mat2[0].defined());
  expect_values(only_mat2[1], {{3, 4}, "float32", {-6, 0, 6, 12, -11, -1, 9, 19, -16, -2, 12, 26}});
}

TEST(week02_mm_backward, LinearWeightGradientKeepsTheOutInLayout) {
  // y = x W^T with W stored (out, in) = (2, 3), as nn.Linear stores it.
  Tensor x = arange(12, kFloat32).reshape({4, 3});
  Tensor w = (arange(6, kFloat32).reshape({2, 3}) / 10).requires_grad_();
  x.mm(w.t()).sum().backward();
  // dL/dW = grad^T x = column sums of x, for each output row
  expect_values(w.grad(), {{2, 3}, "float32", {18, 22, 26, 18, 22, 26}});
}

TEST(week02_mm_backward, MlpGradientsMatchPyTorch) {
  Tensor xin = oracle_ramp({4, 3}, 3.0, 2.0).detach();
  Tensor w1 = oracle_ramp({5, 3}, 11.0, 0.7), b1 = oracle_ramp({5}, 13.0, 0.2);
  Tensor w2 = oracle_ramp({2, 5}, 9.0, 0.5), b2 = oracle_ramp({2}, 4.0, 0.1);
  Tensor target = oracle_ramp({4, 2}, 5.0, 0.9).detach();
  Tensor out = tanh(xin.mm(w1.t()) + b1).mm(w2.t()) + b2;
  Tensor loss = pow(out - target, 2).mean();
  loss.backward();
  EXPECT_NEAR(loss.item<double>(), oracle_number("mlp", "loss"), 1e-6);
  expect_values(w1.grad(), oracle_grad("mlp", 0));
  expect_values(b1.grad(), oracle_grad("mlp", 1));
  expect_values(w2.grad(), oracle_grad("mlp", 2));
  expect_values(b2.grad(), oracle_grad("mlp", 3));
}
