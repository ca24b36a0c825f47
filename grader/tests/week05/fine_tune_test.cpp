// Task week05.fine_tune: a frozen body that neither trains nor gets gradients, a new head in the old
// one's place that does, and the optimizer handed the head's tensors only.

#include <memory>
#include <string>
#include <vector>

#include <kindling/fine_tune.hpp>
#include <kindling/kindling.hpp>
#include <kindling/nn.hpp>
#include <kindling/training.hpp>

#include "testing.hpp"

namespace kindling::testing {
namespace {
nn::Sequential trained_net() {
  manual_seed(0);
  return nn::Sequential(nn::Linear(4, 8), nn::ReLU(), nn::Linear(8, 3));
}
}  // namespace

TEST(week05_fine_tune, OnlyTheNewHeadTrainsAndTheBodyGetsNoGradient) {
  nn::Sequential net = trained_net();
  const Tensor body_w = net.at<nn::Linear>(0).weight.clone(), body_b = net.at<nn::Linear>(0).bias.clone();
  auto head = std::make_shared<nn::Linear>(8, 5);
  const std::vector<Tensor> trainable = train::freeze_and_replace_head(net, "2", head);
  ASSERT_EQ(trainable.size(), 2U) << "the new head's weight and bias, nothing else";
  EXPECT_TRUE(trainable[0].is_same(head->weight));
  EXPECT_TRUE(trainable[1].is_same(head->bias));
  EXPECT_EQ(net.parameters().size(), 4U) << "the old head's parameters leave the model";
  EXPECT_TRUE(net.parameters()[2].is_same(head->weight)) << "the new head takes the old one's place";
  optim::SGD sgd(trainable, {.lr = 0.5});
  const Tensor head_before = head->weight.clone();
  manual_seed(1);
  const Tensor x = randn({16, 4}), y = randint(0, 5, {16});
  for (int step = 0; step < 3; ++step) {
    sgd.zero_grad();
    nn::functional::cross_entropy(net.forward(x), y).backward();
    sgd.step();
  }
  EXPECT_TRUE(equal(net.at<nn::Linear>(0).weight, body_w)) << "the frozen body changed";
  EXPECT_TRUE(equal(net.at<nn::Linear>(0).bias, body_b));
  EXPECT_FALSE(net.at<nn::Linear>(0).weight.requires_grad());
  EXPECT_FALSE(net.at<nn::Linear>(0).weight.grad().defined()) << "backward computed a gradient for a frozen tensor";
  EXPECT_FALSE(equal(head->weight, head_before)) << "the new head did not train";
  EXPECT_TRUE(head->weight.grad().defined());
}

TEST(week05_fine_tune, AHeadThatCameFrozenIsMadeTrainable) {
  nn::Sequential net = trained_net();
  auto head = std::make_shared<nn::Linear>(8, 2);
  for (const Tensor& p : head->parameters()) p.requires_grad_(false);
  const auto trainable = train::freeze_and_replace_head(net, "2", head);
  ASSERT_EQ(trainable.size(), 2U);
  for (const Tensor& p : trainable) EXPECT_TRUE(p.requires_grad());
  for (std::size_t i = 0; i < 2; ++i) EXPECT_FALSE(net.parameters()[i].requires_grad());
}

TEST(week05_fine_tune, ANamedHeadInACustomModelAndAHeadWithoutBias) {
  struct Classifier : nn::Module {
    Classifier() : Module("Classifier") {
      body = register_module("body", std::make_shared<nn::Linear>(6, 4));
      fc = register_module("fc", std::make_shared<nn::Linear>(4, 3));
    }
    Tensor forward(const Tensor& x) override { return (*fc)((*body)(x).relu()); }
    std::shared_ptr<nn::Linear> body, fc;
  };
  manual_seed(2);
  Classifier m;
  auto head = std::make_shared<nn::Linear>(4, 7, false);
  const auto trainable = train::freeze_and_replace_head(m, "fc", head);
  m.fc = head;  // the member must follow (the lecture's warning)
  ASSERT_EQ(trainable.size(), 1U);
  EXPECT_TRUE(trainable[0].is_same(head->weight));
  EXPECT_FALSE(m.body->weight.requires_grad());
  EXPECT_EQ(m.forward(randn({2, 6})).size(1), 7);
}

TEST(week05_fine_tune, AMissingHeadIsAKeyErrorAndFreezesNothing) {
  nn::Sequential net = trained_net();
  auto head = std::make_shared<nn::Linear>(8, 5);
  EXPECT_THROW(train::freeze_and_replace_head(net, "fc", head), IndexError);
  for (const Tensor& p : net.parameters()) EXPECT_TRUE(p.requires_grad()) << "a failed call froze the model";
  EXPECT_EQ(net.parameters().size(), 4U);
  EXPECT_EQ(train::freeze_and_replace_head(net, "2", head).size(), 2U);
}

}  // namespace kindling::testing
