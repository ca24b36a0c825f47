// Tasks week02.dynamic_graph and week02.running_loss: a graph built by C++ control flow,
// and a running loss that keeps no graph alive (measured with Storage::allocated_bytes()).
#include <cmath>

#include <kindling/autograd.hpp>
#include <kindling/dynamic_graph.hpp>
#include <kindling/running_loss.hpp>

#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

namespace {
// The names along y's graph, following each node's first edge (the oracle walks next_functions[0]).
std::vector<std::string> chain_of(const Tensor& y) {
  std::vector<std::string> names;
  std::shared_ptr<autograd::Node> fn = y.grad_fn();
  while (fn) {
    names.push_back(fn->name());
    fn = fn->next_edges().empty() ? nullptr : fn->next_edges()[0].fn;
  }
  return names;
}

// The tutorial's inputs, rebuilt from oracle case `name`; checks y, the count, the chain and x.grad.
void expect_tutorial_case(const std::string& name, std::vector<float> xv, double limit, std::vector<float> v) {
  Tensor x = tensor(xv).requires_grad_();
  const autograd::DoublingResult r = autograd::double_until_norm(x, limit);
  EXPECT_EQ(r.doublings, static_cast<int>(oracle_number(name, "doublings"))) << name;
  expect_values(r.y.detach(), oracle_values(name, "y"));
  EXPECT_EQ(chain_of(r.y), oracle_strings(name, "chain")) << name;
  r.y.backward(tensor(v));
  expect_values(x.grad(), oracle_values(name, "grad"));
}
}  // namespace

// ---- week02.dynamic_graph ------------------------------------------------------------------------
TEST(week02_dynamic_graph, MatchesTheTutorialLoop) {
  expect_tutorial_case("dynamic_graph_small", {0.3f, -1.2f, 0.05f}, 1000.0, {0.1f, 1.0f, 0.0001f});
}

TEST(week02_dynamic_graph, TheDataDecidesTheDepthOnEveryCall) {
  // The same function, a bigger input: fewer doublings, a shorter graph.
  expect_tutorial_case("dynamic_graph_large", {30.0f, -120.0f, 5.0f}, 1000.0, {0.1f, 1.0f, 0.0001f});
  expect_tutorial_case("dynamic_graph_small", {0.3f, -1.2f, 0.05f}, 1000.0, {0.1f, 1.0f, 0.0001f});
}

TEST(week02_dynamic_graph, TheFirstDoublingAlwaysHappens) {
  expect_tutorial_case("dynamic_graph_once", {3.0f, 4.0f}, 2.0, {1.0f, -1.0f});
  const autograd::DoublingResult r = autograd::double_until_norm(tensor({3.0f, 4.0f}), 0.0);
  EXPECT_EQ(r.doublings, 1);
}

TEST(week02_dynamic_graph, WorksForAnyShapeAndDtype) {
  Tensor x = oracle_ramp({2, 3}).detach().to(kFloat64).requires_grad_();
  const double norm = std::sqrt((x.detach() * x.detach()).sum().item<double>());
  const double limit = 5000.0;
  int expected = 1;
  while (norm * std::pow(2.0, expected) < limit) ++expected;
  const autograd::DoublingResult r = autograd::double_until_norm(x, limit);
  EXPECT_EQ(r.doublings, expected);
  EXPECT_EQ(r.y.dtype(), kFloat64);
  EXPECT_EQ(r.y.sizes().vec(), (Shape{2, 3}));
  EXPECT_TRUE(allclose(r.y.detach(), x.detach() * std::pow(2.0, expected)));
  r.y.sum().backward();
  EXPECT_TRUE(allclose(x.grad(), full({2, 3}, std::pow(2.0, expected), kFloat64)));
}

TEST(week02_dynamic_graph, NothingIsRecordedWithoutRequiresGrad) {
  const autograd::DoublingResult r = autograd::double_until_norm(tensor({0.5f, 0.5f}), 10.0);
  EXPECT_EQ(r.doublings, 4);  // norm 0.707 * 2^4 = 11.3
  EXPECT_FALSE(r.y.requires_grad());
  EXPECT_EQ(r.y.grad_fn(), nullptr);
  {
    NoGradGuard no_grad;  // and none under no_grad, even for a leaf that requires grad
    const autograd::DoublingResult g = autograd::double_until_norm(tensor({0.5f, 0.5f}).requires_grad_(), 10.0);
    EXPECT_EQ(g.y.grad_fn(), nullptr);
    EXPECT_EQ(g.doublings, 4);
  }
}

// torch: x = torch.tensor([0.3, -1.2, 0.05], requires_grad=True); y = x * 2
// while y.norm() < 1000: y = y * 2  ->  y._version == 0 (each step makes a new tensor)
TEST(week02_dynamic_graph, EveryDoublingMakesANewTensorInsteadOfWritingInPlace) {
  const Tensor x = tensor({0.3f, -1.2f, 0.05f}).requires_grad_();
  const autograd::DoublingResult r = autograd::double_until_norm(x, 1000.0);
  ASSERT_GT(r.doublings, 1);
  EXPECT_EQ(r.y.version(), 0u) << "each doubling must be a new y * 2, not an in-place mul_ on y (which bumps y's "
                                  "version once per doubling)";
}

TEST(week02_dynamic_graph, AZeroInputWouldLoopForeverAndIsRefused) {
  expect_error<ValueError>([] { autograd::double_until_norm(zeros({3}).requires_grad_(), 1000.0); },
                           "double_until_norm: x has norm 0, so doubling never reaches the limit");
  // A limit of 0 is reached at once, even by zeros.
  EXPECT_EQ(autograd::double_until_norm(zeros({3}), 0.0).doublings, 1);
}

// ---- week02.running_loss -------------------------------------------------------------------------
TEST(week02_running_loss, TheMeanIsWeightedByTheCounts) {
  autograd::RunningLoss running;
  for (int k = 1; k <= 5; ++k) {
    Tensor w = oracle_ramp({4, 3});  // requires grad: each loss has a graph
    running.add(pow(w * static_cast<double>(k) - 0.5, 2.0).mean(), k + 1);
  }
  EXPECT_EQ(running.count(), static_cast<std::int64_t>(oracle_number("running_loss", "count")));
  EXPECT_NEAR(running.total(), oracle_number("running_loss", "total"), 1e-6 * oracle_number("running_loss", "total"));
  EXPECT_NEAR(running.mean(), oracle_number("running_loss", "mean"), 1e-6 * oracle_number("running_loss", "mean"));
}

TEST(week02_running_loss, HoldsNoGraphAliveMeasuredInBytes) {
  manual_seed(0);
  const Tensor w = randn({256, 784}).requires_grad_();
  const Tensor x = randn({64, 784});
  const std::size_t before = Storage::allocated_bytes();
  autograd::RunningLoss running;
  for (int step = 0; step < 20; ++step) running.add(x.mm(w.t()).relu().mean(), 64);
  EXPECT_EQ(Storage::allocated_bytes(), before) << "bytes still held after 20 steps";
  EXPECT_EQ(running.count(), 20 * 64);

  // What `total = total + loss` holds instead: every step's graph, with at least the 64 x 256
  // floats the ReLU saved for its backward (with the reference weeks: exactly those, 1,310,720
  // bytes, plus the 4 of the total itself).
  Tensor total = zeros({});
  for (int step = 0; step < 20; ++step) total = total + x.mm(w.t()).relu().mean();
  EXPECT_GE(Storage::allocated_bytes() - before, 20u * 64u * 256u * 4u + 4u);
  EXPECT_NEAR(total.item<double>(), running.total() / 64.0, 1e-4 * std::abs(total.item<double>()));
}

TEST(week02_running_loss, OnlyOneElementLossesAndPositiveCounts) {
  autograd::RunningLoss running;
  running.add(tensor({2.0}).view({1, 1}), 3);  // any shape, any floating dtype, with one element
  EXPECT_DOUBLE_EQ(running.total(), 6.0);
  expect_error<Error>(
      [&] {
        running.add(tensor({1.0f, 2.0f}).requires_grad_());
      },
      "a Tensor with 2 elements cannot be converted to Scalar");
  expect_error<ValueError>([&] { running.add(scalar_tensor(1.0), 0); },
                           "count should be a positive integer, but got count=0");
  expect_error<ValueError>([&] { running.add(scalar_tensor(1.0), -4); },
                           "count should be a positive integer, but got count=-4");
  EXPECT_DOUBLE_EQ(running.total(), 6.0);  // a refused add changes nothing
  EXPECT_EQ(running.count(), 3);
  EXPECT_DOUBLE_EQ(running.mean(), 2.0);
}

TEST(week02_running_loss, MeanOfNothingIsAnErrorAndResetForgets) {
  autograd::RunningLoss running;
  expect_error<ValueError>([&] { (void)running.mean(); }, "RunningLoss.mean(): no loss was added");
  running.add(scalar_tensor(4.0));
  running.add(scalar_tensor(1.0));
  EXPECT_DOUBLE_EQ(running.mean(), 2.5);
  running.reset();
  EXPECT_EQ(running.count(), 0);
  EXPECT_DOUBLE_EQ(running.total(), 0.0);
  expect_error<ValueError>([&] { (void)running.mean(); }, "RunningLoss.mean(): no loss was added");
}
