// Task week03.forward_hooks: an ActivationRecorder built on module forward hooks.
// The models here are written out by hand (no Sequential, no Linear), so that these
// tests need no other week-3 task than week03.named_parameters (for named_modules()).
#include <kindling/nn.hpp>

#include "testing.hpp"

namespace kindling::testing {
namespace {

using nn::Module;

// x * w, with w a parameter: its output has a graph when w requires grad.
struct Scale : Module {
  explicit Scale(float value) : Module("Scale") { w = register_parameter("w", full({1}, value)); }
  Tensor forward(const Tensor& x) override { return x * w; }
  Tensor w;
};

// Block: tanh(scale(x)).
struct Block : Module {
  Block() : Module("Block") {
    scale = register_module("scale", std::make_shared<Scale>(2.0f));
    act = register_module("act", std::make_shared<nn::Tanh>());
  }
  Tensor forward(const Tensor& x) override { return (*act)((*scale)(x)); }
  std::shared_ptr<Scale> scale;
  std::shared_ptr<nn::Tanh> act;
};

// Net: block(relu(first(x))) + first(x): `first` runs twice per forward pass.
struct Net : Module {
  Net() : Module("Net") {
    first = register_module("first", std::make_shared<Scale>(0.5f));
    relu = register_module("relu", std::make_shared<nn::ReLU>());
    block = register_module("block", std::make_shared<Block>());
  }
  Tensor forward(const Tensor& x) override { return (*block)((*relu)((*first)(x))) + (*first)(x); }
  std::shared_ptr<Scale> first;
  std::shared_ptr<nn::ReLU> relu;
  std::shared_ptr<Block> block;
};

Tensor input() { return tensor({-2.0f, -0.5f, 1.0f, 3.0f}); }

TEST(week03_forward_hooks, HooksEverySubmoduleInNamedModulesOrder) {
  Net net;
  nn::ActivationRecorder recorder(net);
  EXPECT_EQ(recorder.names(), (std::vector<std::string>{"first", "relu", "block", "block.scale", "block.act"}));
  const Tensor x = input();
  net(x);
  const Tensor first = x * 0.5f;
  const Tensor relu = first.relu();
  const Tensor scaled = relu * 2.0f;
  EXPECT_TRUE(allclose(recorder.outputs("relu").at(0), relu));
  EXPECT_TRUE(allclose(recorder.outputs("block.scale").at(0), scaled));
  EXPECT_TRUE(allclose(recorder.outputs("block.act").at(0), tanh(scaled)));
  EXPECT_TRUE(allclose(recorder.outputs("block").at(0), tanh(scaled)));
  EXPECT_EQ(recorder.outputs("block").size(), 1u);
}

TEST(week03_forward_hooks, OneEntryPerCallInCallOrder) {
  Net net;
  nn::ActivationRecorder recorder(net);
  net(input());
  ASSERT_EQ(recorder.outputs("first").size(), 2u);  // first runs twice per forward pass
  net(input() * 2);
  const auto& first = recorder.outputs("first");
  ASSERT_EQ(first.size(), 4u);
  EXPECT_TRUE(allclose(first[0], input() * 0.5f));
  EXPECT_TRUE(allclose(first[2], input()));
  EXPECT_EQ(recorder.outputs("relu").size(), 2u);
  recorder.clear();
  EXPECT_TRUE(recorder.outputs("first").empty());
  net(input());
  EXPECT_EQ(recorder.outputs("first").size(), 2u);  // the hooks stay after clear()
}

TEST(week03_forward_hooks, RecordsDetachedOutputsAndChangesNothing) {
  Net net;
  const Tensor plain = net(input());
  Tensor seen;  // what the block actually returned, seen by a hook of our own
  auto mine = net.block->register_forward_hook([&](Module&, const Tensor&, const Tensor& out) -> std::optional<Tensor> {
    seen = out;
    return std::nullopt;
  });
  nn::ActivationRecorder recorder(net, {"block"});
  const Tensor y = net(input());
  EXPECT_TRUE(equal(y.detach(), plain.detach()));  // the model's output is unchanged
  ASSERT_TRUE(y.requires_grad());
  const Tensor& recorded = recorder.outputs("block").at(0);
  ASSERT_TRUE(seen.defined());
  ASSERT_NE(seen.grad_fn(), nullptr);
  EXPECT_EQ(recorded.data_ptr(), seen.data_ptr());  // the same data: detach(), not a copy
  EXPECT_EQ(recorded.grad_fn(), nullptr);           // without the graph
  EXPECT_FALSE(recorded.requires_grad());
  y.sum().backward();  // recording does not get in the way of backward
  EXPECT_TRUE(net.first->w.grad().defined());
  mine.remove();
}

TEST(week03_forward_hooks, AHookedModulesOutputStillCarriesItsGraph) {
  Net net;
  nn::ActivationRecorder recorder(net, {"block"});
  Tensor seen;  // what the block returns after the recorder's hook, seen by a hook registered after it
  auto mine = net.block->register_forward_hook([&](Module&, const Tensor&, const Tensor& out) -> std::optional<Tensor> {
    seen = out;
    return std::nullopt;
  });
  const Tensor y = net(input());
  ASSERT_TRUE(seen.defined());
  EXPECT_NE(seen.grad_fn(), nullptr) << "the recorder's hook must return std::nullopt: returning the detached "
                                        "output replaces the module's output and cuts it from the graph";
  y.sum().backward();
  EXPECT_TRUE(net.block->scale->w.grad().defined())
      << "a recorded module's parameters must still get gradients: the hook must not replace its output";
  mine.remove();
}

TEST(week03_forward_hooks, ChosenNamesInTheGivenOrder) {
  Net net;
  nn::ActivationRecorder recorder(net, {"block.act", "first"});
  EXPECT_EQ(recorder.names(), (std::vector<std::string>{"block.act", "first"}));
  EXPECT_TRUE(recorder.outputs("first").empty());  // hooked, not called yet
  net(input());
  EXPECT_EQ(recorder.outputs("first").size(), 2u);
  EXPECT_EQ(recorder.outputs("block.act").size(), 1u);
  expect_error<ValueError>([&] { (void)recorder.outputs("relu"); }, "ActivationRecorder: 'relu' is not recorded");
}

TEST(week03_forward_hooks, AnUnknownNameIsRefusedBeforeAnyHookIsRegistered) {
  Net net;
  expect_error<ValueError>(
      [&] {
        nn::ActivationRecorder bad(net, {"first", "block.fc9"});
      },
      "ActivationRecorder: the model has no submodule named 'block.fc9'");
  // Any hook left behind would point at a recorder that no longer exists.
  int calls = 0;
  auto counter = net.first->register_forward_hook([&](Module&, const Tensor&, const Tensor&) -> std::optional<Tensor> {
    ++calls;
    return std::nullopt;
  });
  nn::ActivationRecorder good(net, {"first"});
  net(input());
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(good.outputs("first").size(), 2u);
  counter.remove();
}

TEST(week03_forward_hooks, RemoveStopsRecordingAndLeavesOtherHooksAlone) {
  Net net;
  int calls = 0;
  auto counter = net.relu->register_forward_hook([&](Module&, const Tensor&, const Tensor&) -> std::optional<Tensor> {
    ++calls;
    return std::nullopt;
  });
  {
    nn::ActivationRecorder recorder(net);
    net(input());
    recorder.remove();
    net(input());
    EXPECT_EQ(recorder.outputs("relu").size(), 1u);  // kept, and nothing new
    EXPECT_EQ(recorder.outputs("first").size(), 2u);
    recorder.remove();  // a second remove does nothing
    EXPECT_EQ(calls, 2);
  }
  { nn::ActivationRecorder recorder(net, {"relu"}); }  // destroyed: its hooks go with it
  net(input());
  EXPECT_EQ(calls, 3);
  counter.remove();
}

}  // namespace
}  // namespace kindling::testing
