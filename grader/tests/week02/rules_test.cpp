// Tasks week02.no_grad, week02.leaf_inplace, week02.saved_version.
#include <thread>

#include <kindling/autograd.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

namespace {
Tensor leaf(std::initializer_list<float> v) { return tensor(std::vector<float>(v)).requires_grad_(); }
}  // namespace

// ---- week02.no_grad -------------------------------------------------------------------------
TEST(week02_no_grad, ResultsUnderNoGradDoNotRequireGrad) {
  Tensor x = leaf({1, 2, 3});
  NoGradGuard guard;
  EXPECT_FALSE(GradMode::is_enabled());
  Tensor y = x * 2;
  EXPECT_FALSE(y.requires_grad());
  EXPECT_TRUE(y.is_leaf());
  expect_values(y, {{3}, "float32", {2, 4, 6}});
}

TEST(week02_no_grad, GuardRestoresTheModeItFound) {
  {
    NoGradGuard outer;
    {
      NoGradGuard inner;
      EXPECT_FALSE(GradMode::is_enabled());
    }
    EXPECT_FALSE(GradMode::is_enabled());
    {
      EnableGradGuard enable;
      EXPECT_TRUE(GradMode::is_enabled());
      EXPECT_TRUE((leaf({1}) * 2).requires_grad());
    }
    EXPECT_FALSE(GradMode::is_enabled());
  }
  EXPECT_TRUE(GradMode::is_enabled());
}

// torch: `with torch.enable_grad(): pass` then torch.is_grad_enabled() -> True
TEST(week02_no_grad, EnableGuardInsideEnabledModeLeavesRecordingOn) {
  ASSERT_TRUE(GradMode::is_enabled());
  { EnableGradGuard enable; }
  const bool still_on = GradMode::is_enabled();
  GradMode::set_enabled(true);  // whatever the guard did, the tests after this one record again
  EXPECT_TRUE(still_on) << "EnableGradGuard's destructor must restore the mode it found (here: on), not turn "
                           "recording off";
}

TEST(week02_no_grad, GradModeIsPerThread) {
  NoGradGuard guard;
  bool other_thread_enabled = false;
  std::thread([&] { other_thread_enabled = GradMode::is_enabled(); }).join();
  EXPECT_TRUE(other_thread_enabled);
  EXPECT_FALSE(GradMode::is_enabled());
}

TEST(week02_no_grad, InPlaceInitialisationOfALeafIsAllowedUnderNoGrad) {
  Tensor w = leaf({1, 2, 3});
  {
    NoGradGuard guard;
    w.mul_(0.5);
    w.add_(1);
  }
  expect_values(w, {{3}, "float32", {1.5, 2, 2.5}});
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());
}

// ---- week02.leaf_inplace --------------------------------------------------------------------------
TEST(week02_leaf_inplace, InPlaceOnALeafThatRequiresGradThrows) {
  Tensor x = leaf({1, 2, 3});
  expect_oracle_error([&] { x.add_(1); }, "leaf_inplace");
  expect_values(x, {{3}, "float32", {1, 2, 3}});  // nothing was written
}

TEST(week02_leaf_inplace, InPlaceOnAViewOfSuchALeafThrows) {
  Tensor x = leaf({1, 2, 3});
  expect_oracle_error([&] { x.slice(0, 0, 2).mul_(2); }, "view_of_leaf_inplace");
}

// A leaf that is itself a view: reshape() of a plain tensor, made to require grad afterwards.
// PyTorch names the view, whether or not its base requires grad.
TEST(week02_leaf_inplace, InPlaceOnALeafThatIsAViewGetsTheViewMessage) {
  Tensor t = tensor(std::vector<float>{1, 2, 3, 4}).reshape({2, 2});
  t.requires_grad_();
  ASSERT_TRUE(t.is_view());
  ASSERT_TRUE(t.is_leaf());
  expect_oracle_error([&] { t.add_(1); }, "leaf_view_inplace");
}

TEST(week02_leaf_inplace, EveryInPlaceOpChecks) {
  Tensor x = leaf({1, 2, 3});
  const std::string msg = "a leaf Variable that requires grad is being used in an in-place operation.";
  expect_error<Error>([&] { x.fill_(0); }, msg);
  expect_error<Error>([&] { x.zero_(); }, msg);
  expect_error<Error>([&] { x.copy_(ones({3})); }, msg);
  expect_error<Error>([&] { relu_(x); }, msg);
  expect_error<Error>([&] { masked_fill_(x, gt(x, 1), 0); }, msg);
}

TEST(week02_leaf_inplace, InPlaceOnANonLeafIsRecorded) {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * 2;
  y.add_(1);
  EXPECT_EQ(y.grad_fn()->name(), "AddBackward0");
  (y * y).sum().backward();
  expect_values(x.grad(), {{3}, "float32", {12, 20, 28}});  // d/dx (2x+1)^2 = 4(2x+1)
}

TEST(week02_leaf_inplace, LeafWithoutRequiresGradMayBeWritten) {
  Tensor x = tensor(std::vector<float>{1, 2});
  x.add_(1);
  expect_values(x, {{2}, "float32", {2, 3}});
}

// A view that does not require grad, of a plain leaf, written in place with an operand that does:
// torch: t = torch.tensor([1., 2., 3.]); w = torch.tensor([2., 2.], requires_grad=True);
// t[:2].mul_(w) -> allowed, t = [2., 4., 3.] (grad_fn CopySlices); t.sum().backward() -> w.grad = [1., 2.]
TEST(week02_leaf_inplace, InPlaceThroughAViewThatDoesNotRequireGradIsAllowed) {
  const Tensor t = tensor(std::vector<float>{1, 2, 3});
  const Tensor w = leaf({2, 2});
  const Tensor v = t.slice(0, 0, 2);
  ASSERT_TRUE(v.is_view());
  ASSERT_FALSE(v.requires_grad());
  ASSERT_NO_THROW(v.mul_(w)) << "only a view that requires grad (of a leaf) is refused; this view does not require "
                                "grad, so the write is allowed";
  expect_values(t, {{3}, "float32", {2, 4, 3}});
  t.sum().backward();
  expect_values(w.grad(), {{2}, "float32", {1, 2}});
}

// ---- week02.saved_version --------------------------------------------------------------------------
TEST(week02_saved_version, ModifiedOutputNamesItsNode) {
  Tensor y = sigmoid(oracle_ramp({3}));
  y.mul_(2);
  expect_oracle_error([&] { y.sum().backward(); }, "version_output");
}

// The same write, but the output's last handle is gone before backward. PyTorch still
// fails: the saved variable keeps the version counter, not a link to the tensor. A check
// that reads the version through a live handle passes this silently, with a wrong gradient.
TEST(week02_saved_version, ModifiedOutputWhoseLastHandleIsGoneStillFails) {
  const nlohmann::json& cases = oracle_json("version_output_dropped");
  ASSERT_EQ(cases.size(), 12u);
  for (auto it = cases.begin(); it != cases.end(); ++it) {
    const std::string key = it.key();  // "exp/mul_+add_": the op, then the writes in order
    SCOPED_TRACE("scenario " + key + " (tools/oracle/week02.py, version_output_dropped)");
    const std::string op = key.substr(0, key.find('/'));
    const Tensor x = oracle_ramp({3});
    Tensor z;
    {
      const Tensor y = op == "exp" ? exp(x) : op == "sigmoid" ? sigmoid(x) : op == "tanh" ? tanh(x) : relu(x);
      z = y.sum();
      for (std::size_t at = key.find('/'); at != std::string::npos; at = key.find('+', at + 1)) {
        if (key.compare(at + 1, 4, "add_") == 0)
          y.add_(1);
        else
          y.mul_(2);
      }
    }  // y's last handle dies here
    expect_error<Error>([&] { z.backward(); }, it.value().at("message").get<std::string>());
    EXPECT_FALSE(x.grad().defined()) << "backward wrote a gradient before failing";
  }
}

TEST(week02_saved_version, ModifiedInputNamesItsCurrentProducer) {
  Tensor a = oracle_ramp({2, 2}) * 1;
  Tensor b = a * a;
  a.add_(1);
  expect_oracle_error([&] { b.sum().backward(); }, "version_input");
}

// Written through a view: the input's producer is now the CopySlices node.
TEST(week02_saved_version, ModifiedThroughAViewNamesCopySlices) {
  Tensor a = oracle_ramp({2, 2}) * 1;
  Tensor b = a * a;
  a[0].mul_(2);
  expect_oracle_error([&] { b.sum().backward(); }, "version_input_through_view");
}

// Every handle to the saved input is gone before backward: the message names the producer
// it had when the last one died (a write through a row gives the base CopySlices, a view's
// history is rebuilt as AsStridedBackward0, a write through a detached alias records nothing).
TEST(week02_saved_version, ModifiedInputWhoseLastHandleIsGoneNamesItsLastProducer) {
  const nlohmann::json& cases = oracle_json("version_input_dropped");
  ASSERT_EQ(cases.size(), 11u);
  for (auto it = cases.begin(); it != cases.end(); ++it) {
    const std::string key = it.key();  // "base/add_+row": which tensor the product saved, then the writes
    SCOPED_TRACE("scenario " + key + " (tools/oracle/week02.py, version_input_dropped)");
    Tensor b;
    {
      Tensor a = oracle_ramp({2, 2}) * 1;
      Tensor x = key.starts_with("view/") ? a[0] : a;
      b = x * x;
      std::string writes = key.substr(key.find('/') + 1);
      for (std::size_t start = 0; start <= writes.size();) {
        std::size_t end = writes.find('+', start);
        if (end == std::string::npos) end = writes.size();
        const std::string w = writes.substr(start, end - start);
        if (w == "add_")
          a.add_(1);
        else if (w == "mul_")
          a.mul_(2);
        else if (w == "row")
          a[1].mul_(2);
        else if (w == "self")
          x.mul_(2);
        else
          a.detach().mul_(2);
        start = end + 1;
      }
    }  // a's and x's last handles die here
    expect_error<Error>([&] { b.sum().backward(); }, it.value().at("message").get<std::string>());
  }
}

TEST(week02_saved_version, ModifiedLeafHasNoProducer) {
  Tensor p = oracle_ramp({3});
  Tensor y = (p * p).sum();
  {
    NoGradGuard guard;
    p.mul_(2);
  }
  expect_oracle_error([&] { y.backward(); }, "version_leaf");
}

TEST(week02_saved_version, SecondBackwardThroughAFreedGraphThrows) {
  Tensor y = exp(oracle_ramp({3})).sum();
  y.backward();
  expect_oracle_error([&] { y.backward(); }, "second_backward");
}

TEST(week02_saved_version, RetainGraphAllowsASecondBackward) {
  Tensor x = oracle_ramp({3});
  Tensor y = exp(x).sum();
  y.backward({}, /*retain_graph=*/true);
  y.backward();
  expect_values(x.grad(), {{3}, "float32", (exp(x.detach()) * 2).to_vector<double>()});
}

// Given code: a node does not own its own output (that would be a cycle), so the graph goes
// with the last tensor that holds it.
TEST(EngineSavedVariable, ANodeDoesNotKeepItsOutputAlive) {
  std::weak_ptr<autograd::Node> node;
  std::weak_ptr<TensorImpl> output;
  {
    const Tensor y = exp(oracle_ramp({3}));
    node = y.grad_fn();
    output = y.impl_ptr();
  }
  EXPECT_TRUE(output.expired());
  EXPECT_TRUE(node.expired());
}

// Given code: `x.add_(x * v)` gives x a node that leads back to the product, which saved
// x. A node that owned its saved inputs would then own itself, and neither x nor its graph
// would ever be freed (PyTorch 1.13 leaks exactly this): the graph must go with x's last handle.
TEST(EngineSavedVariable, AnInPlaceWriteIntoASavedInputLeavesNoCycle) {
  const Tensor v = oracle_ramp({3}).requires_grad_();
  std::weak_ptr<autograd::Node> add_node;
  std::weak_ptr<autograd::Node> mul_node;
  std::weak_ptr<TensorImpl> x_impl;
  {
    Tensor x = oracle_ramp({3}) * 2;
    Tensor product = x * v;
    mul_node = product.grad_fn();
    x.add_(product);
    add_node = x.grad_fn();
    x_impl = x.impl_ptr();
    ASSERT_FALSE(add_node.expired());
  }
  EXPECT_TRUE(x_impl.expired());
  EXPECT_TRUE(add_node.expired());
  EXPECT_TRUE(mul_node.expired());
}

// Given code: the saved input is held weakly, but while its version is unchanged its values
// and its history are still the formula's: the gradient, and the gradient of the gradient
// (create_graph), come out as if the input were alive. Here y = sum((2w)^2): dy/dw = 8w, and
// the derivative of sum(8w) is 8.
TEST(EngineSavedVariable, ASavedInputWhoseHandlesAreGoneStillCarriesItsHistory) {
  const Tensor w = leaf({1, -2, 3});
  Tensor y;
  std::weak_ptr<TensorImpl> x_impl;
  {
    const Tensor x = w * 2;
    x_impl = x.impl_ptr();
    y = (x * x).sum();
  }
  ASSERT_TRUE(x_impl.expired());
  const Tensor g = autograd::grad({y}, {w}, {}, std::nullopt, true).at(0);
  expect_values(g, {{3}, "float32", {8, -16, 24}});
  expect_values(autograd::grad({g.sum()}, {w}).at(0), {{3}, "float32", {8, 8, 8}});
}

// Given code: while a handle to a saved input lives, unpacking gives that tensor itself.
TEST(EngineSavedVariable, ASavedInputThatIsAliveIsUnpackedAsItself) {
  const Tensor w = leaf({1, 2});
  const Tensor x = w * 2;
  const Tensor y = x * x;
  ASSERT_EQ(y.grad_fn()->saved_variables().size(), 2u);
  EXPECT_EQ(&y.grad_fn()->saved_variables()[0].unpack(*y.grad_fn()).impl(), &x.impl());
}

// Given code: a node keeps the Scalar of `x * 2.5` as a value, not as a 0-d tensor (which
// costs four allocations per node). It must still be freed by backward like a saved tensor,
// and keep the dtype the op computed in: a float64 product's gradient is 0.1, not 0.1f.
TEST(EngineSavedVariable, AScalarOperandIsFreedByBackwardLikeASavedTensor) {
  Tensor x = leaf({1, 2, 3});
  Tensor y = (x * 2.5).sum();
  y.backward({}, /*retain_graph=*/true);
  y.backward();
  expect_values(x.grad(), {{3}, "float32", {5, 5, 5}});
  expect_oracle_error([&] { y.backward(); }, "second_backward");
}

TEST(EngineSavedVariable, AScalarOperandKeepsTheDtypeOfTheOp) {
  const Tensor x = ones({2}, kFloat64).requires_grad_();
  (x * 0.1).sum().backward();
  EXPECT_EQ(x.grad().dtype(), kFloat64);
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{0.1, 0.1}));
  const Tensor z = ones({2}).requires_grad_();
  (0.1 * z).sum().backward();
  EXPECT_EQ(z.grad().to_vector<float>(), (std::vector<float>{0.1F, 0.1F}));
}

TEST(EngineSavedVariable, AScalarExponentMinusOneIsTakenInDouble) {
  const Tensor x = tensor(std::vector<double>{0.3, 1.7, 2.9}).requires_grad_();
  pow(x, 0.1).sum().backward();
  const auto expected = oracle_values("scalar_f64_pow_grad");
  const auto got = x.grad().to_vector<double>();
  ASSERT_EQ(got.size(), expected.values.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_DOUBLE_EQ(got[i], expected.values[i]) << i;
}

// Given code: a node keeps its output's shape inside itself up to 4 dims, and on the heap
// beyond; both must reach the formulas.
TEST(EngineSavedVariable, OutputShapesOfAnyRankReachTheFormulas) {
  for (const Shape& shape : {Shape{3}, Shape{2, 1, 3, 2}, Shape{2, 1, 3, 1, 2}, Shape{1, 2, 1, 2, 1, 3, 2}}) {
    const Tensor x = oracle_ramp(shape).requires_grad_();
    exp(x).sum().backward();
    EXPECT_EQ(x.grad().sizes().vec(), shape);
    EXPECT_EQ(x.grad().to_vector<float>(), exp(x.detach()).to_vector<float>());
  }
}

TEST(week02_saved_version, UnpackReturnsTheSavedTensorWhenUnchanged) {
  Tensor t = tensor(std::vector<float>{4, 5});
  autograd::SavedVariable saved(t, false);
  Tensor y = leaf({1}) * 1;  // any node will do for the name
  EXPECT_TRUE(saved.unpack(*y.grad_fn()).is_same(t));
  t.add_(1);
  expect_error<Error>([&] { saved.unpack(*y.grad_fn()); },
                      "one of the variables needed for gradient computation has been modified by an inplace "
                      "operation: [torch.FloatTensor [2]] is at version 1; expected version 0 instead. Hint: enable "
                      "anomaly detection to find the operation that failed to compute its gradient, with "
                      "torch.autograd.set_detect_anomaly(True).");
}

// The contract: with no counter (nothing saved, or released by backward), current_version() is
// saved_version().
TEST(week02_saved_version, CurrentVersionWithoutACounterIsTheSavedVersion) {
  autograd::SavedVariable nothing;
  EXPECT_EQ(nothing.current_version(), nothing.saved_version())
      << "a SavedVariable that saved nothing has no version counter: current_version() must return saved_version()";
  Tensor t = tensor(std::vector<float>{4, 5});
  t.add_(1);
  t.add_(1);
  autograd::SavedVariable released(t, false);
  released.release();
  EXPECT_EQ(released.current_version(), 2u)
      << "after release() the counter is gone: current_version() must return the version saved (2)";
}

// `x op 2.0` on a floating tensor runs without a wrapped 0-d tensor (the Scalar is input 1's
// value): values, gradients and node names as in PyTorch, for float64 and a transposed input.
TEST(EngineSavedVariable, FloatingTensorOpScalarMatchesPyTorch) {
  Tensor s64 = oracle_ramp({2, 3}).to(kFloat64).detach();
  s64.requires_grad_();
  const Tensor st = oracle_ramp({3, 2});
  const Tensor y64 = ((s64 + 0.1) * 3.3 - 1.7) / 0.7;
  const Tensor yt = ((st.t() + 0.1) * 3.3 - 1.7) / 0.7;
  (y64.sum() + yt.sum()).backward();
  expect_values(y64, oracle_values("scalar_ops", "y64"));
  expect_values(yt, oracle_values("scalar_ops", "yt"));
  expect_values(s64.grad(), oracle_grad("scalar_ops", 0));
  expect_values(st.grad(), oracle_grad("scalar_ops", 1));
  std::vector<std::string> names;
  for (auto fn = y64.grad_fn(); fn && fn->name() != "torch::autograd::AccumulateGrad"; fn = fn->next_edges()[0].fn)
    names.push_back(fn->name());
  const auto& expected = oracle_json("scalar_ops")["names"];
  ASSERT_EQ(names.size(), expected.size());
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(names[i], expected[i].get<std::string>());
}
