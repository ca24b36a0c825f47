// The engine's post-accumulate-grad hooks (Tensor::register_post_accumulate_grad_hook, PyTorch 2.1's
// API; DDP's hooks in week 7 hang on them): they run after backward has written a leaf's .grad,
// see the accumulated gradient, and are refused where PyTorch refuses them.

#include <string>
#include <vector>

#include <kindling/autograd.hpp>

#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

TEST(EnginePostAccumulateGradHook, RunsAfterGradIsWrittenAndSeesTheAccumulatedSum) {
  const Tensor w = tensor({1.0f, 2.0f}).requires_grad_();
  std::vector<std::vector<float>> seen;
  auto handle = w.register_post_accumulate_grad_hook([&](const Tensor& leaf) {
    EXPECT_TRUE(leaf.is_same(w)) << "the hook gets the leaf itself";
    seen.push_back({leaf.grad()[0].item<float>(), leaf.grad()[1].item<float>()});
  });
  (w * 3).sum().backward();
  (w * 4).sum().backward();
  ASSERT_EQ(seen.size(), 2U);
  EXPECT_EQ(seen[0], (std::vector<float>{3, 3}));
  EXPECT_EQ(seen[1], (std::vector<float>{7, 7})) << "the second backward's hook sees .grad after accumulation";
  handle.remove();
  (w * 5).sum().backward();
  EXPECT_EQ(seen.size(), 2U) << "a removed hook does not run";
}

TEST(EnginePostAccumulateGradHook, RunsAfterTheTensorHooksThatMayReplaceTheGradient) {
  const Tensor w = tensor({1.0f}).requires_grad_();
  std::string order;
  (void)w.register_hook([&](const Tensor& g) {
    order += "pre ";
    return g * 10;
  });
  (void)w.register_post_accumulate_grad_hook([&](const Tensor& leaf) {
    order += "post";
    EXPECT_EQ(leaf.grad().item<float>(), 20.0f);
  });
  (w * 2).sum().backward();
  EXPECT_EQ(order, "pre post");
}

TEST(EnginePostAccumulateGradHook, RefusedOnANonLeafAndOnATensorWithoutGrad) {
  const Tensor w = tensor({1.0f}).requires_grad_();
  expect_error<Error>([&] { (void)(w * 2).register_post_accumulate_grad_hook([](const Tensor&) {}); },
                      "post accumulate grad hooks cannot be registered on non-leaf tensors");
  expect_error<Error>([&] { (void)tensor({1.0f}).register_post_accumulate_grad_hook([](const Tensor&) {}); },
                      "cannot register a hook on a tensor that doesn't require gradient");
}

TEST(EnginePostAccumulateGradHook, AHookThatRemovesItselfLeavesTheOthersRunning) {
  const Tensor w = tensor({1.0f}).requires_grad_();
  int first = 0, second = 0;
  autograd::HookHandle h1;
  h1 = w.register_post_accumulate_grad_hook([&](const Tensor&) {
    ++first;
    h1.remove();
  });
  (void)w.register_post_accumulate_grad_hook([&](const Tensor&) { ++second; });
  w.sum().backward();
  w.sum().backward();
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 2);
}
