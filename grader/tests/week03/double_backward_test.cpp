// The given engine (not graded): week 3's kernels (convolution, pooling, GELU) compute their
// gradients without recording a graph, so under create_graph their gradients refuse to be
// differentiated again, with PyTorch's words for a formula that is not implemented, instead of
// passing for constants (a silent zero where the second derivative is not zero).
#include <kindling/autograd.hpp>
#include <kindling/nn.hpp>

#include "testing.hpp"

using namespace kindling;

TEST(EngineDoubleBackward, ConvolutionRefusesToBeDifferentiatedTwice) {
  const Tensor x = randn({1, 1, 4, 4}, kFloat64), w = randn({2, 1, 3, 3}, kFloat64);
  x.requires_grad_();
  w.requires_grad_();
  const Tensor y = nn::functional::conv2d(x, w).pow(2).sum();
  const Tensor gx = autograd::grad({y}, {x}, {}, std::nullopt, true).at(0);
  ASSERT_TRUE(gx.requires_grad());
  kindling::testing::expect_error<Error>([&] { gx.sum().backward(); },
                                         "the derivative for 'ConvolutionBackward0' is not implemented.");
  // Without create_graph, the first derivative itself is unchanged.
  const Tensor plain = autograd::grad({nn::functional::conv2d(x, w).pow(2).sum()}, {x}).at(0);
  EXPECT_TRUE(allclose(plain, gx.detach()));
}
