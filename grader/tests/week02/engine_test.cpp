// Tasks week02.engine_order, week02.backward_seed, week02.accumulate_grad, week02.hooks.
#include <set>

#include <kindling/autograd.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

namespace {
Tensor leaf(std::vector<float> v) { return tensor(v).requires_grad_(); }

// A node that records the order it ran in and passes its gradient through.
class Probe final : public autograd::Node {
 public:
  Probe(std::string name, std::vector<autograd::Edge> inputs, std::vector<std::string>* log)
      : name_(std::move(name)), log_(log) {
    next_edges_ = std::move(inputs);
    set_output({}, kFloat32);
  }
  std::string name() const override { return name_; }
  TensorList apply(const Tensor& grad) override {
    log_->push_back(name_);
    return TensorList(num_inputs(), grad);
  }

 private:
  std::string name_;
  std::vector<std::string>* log_;
};
}  // namespace

// ---- week02.engine_order ------------------------------------------------------------------------
TEST(week02_engine_order, DependenciesCountEdgesIntoEachNode) {
  std::vector<std::string> log;
  auto leaf_node = std::make_shared<Probe>("leaf", std::vector<autograd::Edge>{}, &log);
  auto left = std::make_shared<Probe>("left", std::vector<autograd::Edge>{{leaf_node}}, &log);
  auto right = std::make_shared<Probe>("right", std::vector<autograd::Edge>{{leaf_node}}, &log);
  auto root = std::make_shared<Probe>("root", std::vector<autograd::Edge>{{left}, {right}, {left}}, &log);
  const std::uint64_t pass = autograd::new_backward_pass();
  const auto reached = autograd::compute_dependencies({root.get()}, pass);
  ASSERT_EQ(reached.size(), 4u);  // each node once
  EXPECT_EQ(reached.front(), root.get());
  EXPECT_EQ(std::set<autograd::Node*>(reached.begin(), reached.end()).size(), 4u);
  EXPECT_EQ(root->engine.dependencies, 0);
  EXPECT_EQ(left->engine.dependencies, 2);
  EXPECT_EQ(right->engine.dependencies, 1);
  EXPECT_EQ(leaf_node->engine.dependencies, 2);
  for (autograd::Node* node : reached) {
    EXPECT_EQ(node->engine.pass, pass);
    EXPECT_FALSE(node->engine.gradient.defined());
  }
  EXPECT_TRUE(log.empty());  // counting runs nothing
}

TEST(week02_engine_order, ALaterPassCountsAfreshAndRootsComeFirstOnce) {
  std::vector<std::string> log;
  auto leaf_node = std::make_shared<Probe>("leaf", std::vector<autograd::Edge>{}, &log);
  auto mid = std::make_shared<Probe>("mid", std::vector<autograd::Edge>{{leaf_node}}, &log);
  auto top = std::make_shared<Probe>("top", std::vector<autograd::Edge>{{mid}, {leaf_node}}, &log);
  (void)autograd::compute_dependencies({top.get()}, autograd::new_backward_pass());
  leaf_node->engine.gradient = scalar_tensor(5.0);  // stale state from an interrupted pass
  // A second pass over the same nodes must not add to the first one's counts. Roots come
  // first in the order given, each once, even when one root also feeds another.
  const std::uint64_t pass = autograd::new_backward_pass();
  const auto reached = autograd::compute_dependencies({mid.get(), top.get(), mid.get()}, pass);
  ASSERT_EQ(reached.size(), 3u);
  EXPECT_EQ(reached[0], mid.get());
  EXPECT_EQ(reached[1], top.get());
  EXPECT_EQ(reached[2], leaf_node.get());
  EXPECT_EQ(top->engine.dependencies, 0);
  EXPECT_EQ(mid->engine.dependencies, 1);
  EXPECT_EQ(leaf_node->engine.dependencies, 2);
  EXPECT_FALSE(leaf_node->engine.gradient.defined());
}

TEST(week02_engine_order, RootsThatFeedEachOtherRunInDependencyOrder) {
  std::vector<std::string> log;
  auto leaf_node = std::make_shared<Probe>("leaf", std::vector<autograd::Edge>{}, &log);
  auto mid = std::make_shared<Probe>("mid", std::vector<autograd::Edge>{{leaf_node}}, &log);
  auto top = std::make_shared<Probe>("top", std::vector<autograd::Edge>{{mid}}, &log);
  // mid is listed first but top feeds it: top runs first, and mid runs once.
  autograd::execute_graph({{mid}, {top}}, {scalar_tensor(1.0), scalar_tensor(1.0)}, false);
  EXPECT_EQ(log, (std::vector<std::string>{"top", "mid", "leaf"}));
}

TEST(week02_engine_order, NoNodeKeepsAGradientAfterBackwardEvenWhenAHookThrows) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2;
  Tensor z = y * 3;
  std::shared_ptr<autograd::Node> y_node = y.grad_fn(), z_node = z.grad_fn();
  z.sum().backward({}, /*retain_graph=*/true);
  EXPECT_FALSE(y_node->engine.gradient.defined());
  EXPECT_FALSE(z_node->engine.gradient.defined());
  z.register_hook([](const Tensor&) -> Tensor { throw Error("hook failed"); });
  Tensor w = y + z;  // w's node feeds both y's and z's; z's runs first, and its hook throws
  // while y's node still holds the gradient w's node sent it
  EXPECT_THROW(w.sum().backward(), Error);
  EXPECT_FALSE(y_node->engine.gradient.defined());
  EXPECT_FALSE(z_node->engine.gradient.defined());
}

TEST(week02_engine_order, ADiamondRunsEachNodeOnceAfterAllItsInputs) {
  std::vector<std::string> log;
  auto bottom = std::make_shared<Probe>("bottom", std::vector<autograd::Edge>{}, &log);
  auto left = std::make_shared<Probe>("left", std::vector<autograd::Edge>{{bottom}}, &log);
  auto right = std::make_shared<Probe>("right", std::vector<autograd::Edge>{{bottom}}, &log);
  auto top = std::make_shared<Probe>("top", std::vector<autograd::Edge>{{left}, {right}}, &log);
  autograd::execute_graph({{top}}, {scalar_tensor(1.0)}, false);
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log.front(), "top");
  EXPECT_EQ(log.back(), "bottom");
  // right was created after left: among ready nodes the later one runs first
  EXPECT_EQ(log[1], "right");
}

TEST(week02_engine_order, DiamondGradientsAddUp) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 3;
  Tensor z = (y * y + y).sum();  // dz/dx = 3 * (2y + 1)
  z.backward();
  expect_values(x.grad(), {{2}, "float32", {21, 39}});
}

TEST(week02_engine_order, ALongChainNeitherOverflowsNorTakesQuadraticTime) {
  Tensor x = leaf({1, 2});
  Tensor y = x;
  for (int i = 0; i < 100000; ++i) y = y * 1.0;
  y.sum().backward();
  expect_values(x.grad(), {{2}, "float32", {1, 1}});
}

TEST(week02_engine_order, GradientsReachOnlyTensorsThatRequireThem) {
  Tensor x = leaf({1, 2});
  Tensor c = tensor(std::vector<float>{5, 7});
  (x * c).sum().backward();
  expect_values(x.grad(), {{2}, "float32", {5, 7}});
  EXPECT_FALSE(c.grad().defined());
}

// ---- week02.backward_seed -------------------------------------------------------------------------
TEST(week02_backward_seed, ScalarOutputGetsAnImplicitOne) {
  Tensor x = leaf({1, 2, 3});
  (x * x).sum().backward();
  expect_values(x.grad(), {{3}, "float32", {2, 4, 6}});
}

TEST(week02_backward_seed, NonScalarOutputNeedsAGradient) {
  expect_oracle_error([] { (oracle_ramp({3}) * 2).backward(); }, "implicit_scalar");
}

TEST(week02_backward_seed, ExplicitGradientGivesTheVectorJacobianProduct) {
  Tensor v = oracle_ramp({3});
  Tensor y = v * v * tensor(std::vector<float>{1, 2, 3});
  y.backward(tensor(std::vector<float>{1, 0.5, -1}));
  expect_values(v.grad(), oracle_grad("vjp", 0));
}

TEST(week02_backward_seed, GradientOfTheWrongShapeThrows) {
  expect_oracle_error([] { (oracle_ramp({3}) * 2).backward(ones({2})); }, "gradient_shape_mismatch");
}

TEST(week02_backward_seed, OutputWithoutHistoryThrows) {
  expect_oracle_error([] { ones({3}).sum().backward(); }, "no_grad_fn");
}

// ---- week02.accumulate_grad ----------------------------------------------------------------------
TEST(week02_accumulate_grad, GradientsAccumulateAcrossBackwardCalls) {
  Tensor a = oracle_ramp({3});
  (a * a).sum().backward();
  const Tensor first = a.grad();
  (a * 3).sum().backward();
  expect_values(a.grad(), oracle_grad("accumulate", 0));
  EXPECT_TRUE(a.grad().is_same(first));  // accumulated in place
}

TEST(week02_accumulate_grad, FirstGradientIsNotAnAliasOfTheCallersTensor) {
  Tensor x = leaf({1, 2});
  Tensor g = tensor(std::vector<float>{3, 4});
  (x + 0).backward(g);
  g.fill_(100);
  expect_values(x.grad(), {{2}, "float32", {3, 4}});
}

TEST(week02_accumulate_grad, ExpandedGradientIsStoredContiguous) {
  Tensor x = leaf({1, 2, 3});
  x.sum().backward();  // SumBackward gives an expanded (stride 0) gradient
  EXPECT_TRUE(x.grad().is_contiguous());
  expect_values(x.grad(), {{3}, "float32", {1, 1, 1}});
}

TEST(week02_accumulate_grad, ZeroGradZeroesInPlaceOrSetsToNone) {
  Tensor a = leaf({1, 2});
  Tensor b = leaf({3});
  (a.sum() * b.sum()).backward();
  const Tensor kept = a.grad();
  autograd::zero_grad({a, b});
  EXPECT_TRUE(a.grad().is_same(kept));
  expect_values(a.grad(), {{2}, "float32", {0, 0}});
  autograd::zero_grad({a, b}, /*set_to_none=*/true);
  EXPECT_FALSE(a.grad().defined());
  EXPECT_FALSE(b.grad().defined());
  (a * 2).sum().backward();
  expect_values(a.grad(), {{2}, "float32", {2, 2}});
}

// The engine hands each node the gradient it gathered (std::move into call_node): the
// node then holds the only handle, and a leaf's AccumulateGrad can keep it as .grad
// without a copy. An engine that keeps a copy of its own makes that a clone every time.
TEST(week02_engine_order, HandsEachNodeTheOnlyHandleToItsGradient) {
  class Doubler final : public autograd::Node {  // passes on a fresh tensor
   public:
    explicit Doubler(autograd::Edge next) {
      next_edges_.push_back(std::move(next));
      set_output({3}, kFloat32);
    }
    std::string name() const override { return "Doubler"; }
    TensorList apply(const Tensor& grad) override { return {grad * 2}; }
  };
  class Receiver final : public autograd::Node {  // records how many handles share its gradient
   public:
    explicit Receiver(long* handles) : handles_(handles) { set_output({3}, kFloat32); }
    std::string name() const override { return "Receiver"; }
    TensorList apply(const Tensor& grad) override {
      *handles_ = grad.impl_ptr().use_count();
      return {};
    }
    TensorList apply_moved(Tensor&& grad) override { return apply(grad); }

   private:
    long* handles_;
  };
  long handles = 0;
  auto receiver = std::make_shared<Receiver>(&handles);
  auto doubler = std::make_shared<Doubler>(autograd::Edge{receiver});
  autograd::execute_graph({{doubler}}, {ones({3})}, false);
  EXPECT_EQ(handles, 1) << "the engine still holds the gradient it passed to call_node";
}

// ---- kit: the engine and accumulate_grad together (PyTorch's AccumulateGrad) --------------
// A leaf takes a gradient that nothing else holds as its .grad, without a copy, and copies
// one that a hook keeps; what it keeps never requires grad (oracle "leaf_adopts_gradient").
TEST(EngineAdoption, ALeafAdoptsAGradientNothingElseHolds) {
  const auto& expected = oracle_json("leaf_adopts_gradient");
  Tensor a = leaf({1, 2, 3});
  const void* seen = nullptr;
  a.register_hook([&](const Tensor& g) {
    seen = g.data_ptr();
    return Tensor();
  });
  (a * 2).sum().backward();
  EXPECT_EQ(a.grad().data_ptr() == seen, expected["unshared_adopted"].get<bool>());
  a.mutable_grad() = Tensor();
  Tensor kept;
  a.register_hook([&](const Tensor& g) {
    kept = g;
    return Tensor();
  });
  (a * 2).sum().backward();
  EXPECT_EQ(a.grad().data_ptr() == kept.data_ptr(), expected["kept_adopted"].get<bool>());
  expect_values(a.grad(), {{3}, "float32", {2, 2, 2}});

  Tensor h = oracle_ramp({3});
  h.register_hook([](const Tensor& g) { return ones_like(g).requires_grad_(); });
  (h * 2).sum().backward();
  EXPECT_EQ(h.grad().requires_grad(), expected["hook_result_grad_requires_grad"].get<bool>());
  EXPECT_FALSE(h.grad().grad_fn());
  expect_values(h.grad(), oracle_values("leaf_adopts_gradient", "hook_result_grad"));
  EXPECT_NO_THROW(autograd::zero_grad({h}));
}

// accumulate_grad on its own: adopt an unshared contiguous gradient, copy a shared one,
// and never keep history (PyTorch keeps new_grad.detach(); oracle "leaf_adopts_gradient").
TEST(week02_accumulate_grad, AdoptsOnlyWhatNobodyElseHoldsAndNeverHistory) {
  const auto& expected = oracle_json("leaf_adopts_gradient");
  AutogradMeta unshared;
  Tensor g = ones({3});
  const void* p = g.data_ptr();
  autograd::accumulate_grad(unshared, std::move(g));
  EXPECT_EQ(unshared.grad.data_ptr() == p, expected["unshared_adopted"].get<bool>());

  AutogradMeta shared;
  const Tensor held = ones({3});
  autograd::accumulate_grad(shared, held);
  EXPECT_EQ(shared.grad.data_ptr() == held.data_ptr(), expected["kept_adopted"].get<bool>());
  held.fill_(5);  // the holder's later write must not reach .grad
  expect_values(shared.grad, {{3}, "float32", {1, 1, 1}});

  NoGradGuard no_grad;  // as the engine calls it
  AutogradMeta with_history;
  Tensor r = ones({3});
  r.requires_grad_();
  autograd::accumulate_grad(with_history, std::move(r));  // the only handle: adopted, without its history
  EXPECT_EQ(with_history.grad.requires_grad(), expected["hook_result_grad_requires_grad"].get<bool>());
  AutogradMeta copied;
  const Tensor kept = ones({3}).requires_grad_();
  autograd::accumulate_grad(copied, kept);  // shared: copied, without history either
  EXPECT_EQ(copied.grad.requires_grad(), expected["hook_result_grad_requires_grad"].get<bool>());
}

// ---- week02.hooks ----------------------------------------------------------------------------------
TEST(week02_hooks, HookSeesAndReplacesTheGradient) {
  Tensor h = oracle_ramp({3});
  Tensor k = h * 3;
  k.retain_grad();
  Tensor seen;
  k.register_hook([&](const Tensor& g) {
    seen = g.clone();
    return g * 2;
  });
  (k * k).sum().backward();
  expect_values(h.grad(), oracle_grad("hooks", 0));
  expect_values(k.grad(), oracle_values("hooks", "retained"));
  expect_values(seen, {{3}, "float32", (k.detach() * 2).to_vector<double>()});
}

TEST(week02_hooks, RemovedHookIsNotCalled) {
  Tensor x = leaf({1, 2});
  int calls = 0;
  auto handle = x.register_hook([&](const Tensor&) {
    ++calls;
    return Tensor();
  });
  (x * 2).sum().backward();
  handle.remove();
  handle.remove();  // twice is harmless
  (x * 2).sum().backward();
  EXPECT_EQ(calls, 1);
  expect_values(x.grad(), {{2}, "float32", {4, 4}});
}

TEST(week02_hooks, HooksRunInRegistrationOrderOnLeaves) {
  Tensor x = leaf({1});
  x.register_hook([](const Tensor& g) { return g + 1; });
  x.register_hook([](const Tensor& g) { return g * 10; });
  (x * 2).sum().backward();
  expect_values(x.grad(), {{1}, "float32", {30}});
}

TEST(week02_hooks, HookOnATensorWithoutGradThrows) {
  expect_oracle_error([] { ones({3}).register_hook([](const Tensor& g) { return g; }); }, "hook_without_grad");
}
