// The given engine (not graded): node names, composite gradients and error
// messages against PyTorch 1.13, and gradcheck over every differentiable op.
#include <map>
#include <sstream>

#include <kindling/autograd.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

TEST(EngineNames, EveryNodeIsNamedAsInPyTorch) {
  const Tensor x = oracle_ramp({2, 3});
  const Tensor w = oracle_ramp({4, 3}, 5.0, 1.0);
  const std::map<std::string, Tensor> made = {
      {"add", x + x},
      {"add_scalar", x + 1},
      {"sub", x - x},
      {"mul", x * x},
      {"mul_scalar", x * 2},
      {"div", x / 2},
      {"neg", -x},
      {"pow_scalar", pow(x, 2)},
      {"pow_tensor", pow(x, x)},
      {"exp", exp(x)},
      {"log", log(x)},
      {"sigmoid", sigmoid(x)},
      {"tanh", tanh(x)},
      {"relu", relu(x)},
      {"abs", abs(x)},
      {"sqrt", sqrt(x)},
      {"sum", x.sum()},
      {"sum_dim", x.sum({1})},
      {"mean", x.mean()},
      {"mean_dim", x.mean({0})},
      {"max", x.max()},
      {"max_dim", std::get<0>(max(x, 1))},
      {"softmax", softmax(x, 1)},
      {"log_softmax", log_softmax(x, 1)},
      {"logsumexp", logsumexp(x, {1})},
      {"mm", x.mm(w.t())},
      {"t", w.t()},
      {"transpose", x.transpose(0, 1)},
      {"view", x.view({6})},
      {"reshape", x.reshape({3, 2})},
      {"permute", x.permute({1, 0})},
      {"unsqueeze", x.unsqueeze(0)},
      {"squeeze", x.unsqueeze(0).squeeze()},
      {"squeeze_dim", x.unsqueeze(0).squeeze(0)},
      {"expand", x.slice(0, 0, 1).expand({4, 3})},
      {"select", x[1]},
      {"slice", x.slice(1, 1)},
      {"narrow", x.narrow(1, 0, 2)},
      {"addmm", addmm(w.select(1, 0), x, w.t())},
      {"cat", cat({x, x})},
      {"stack", stack({x, x})},
      {"index_select", index_select(x, 1, tensor(std::vector<std::int64_t>{2, 0}))},
      {"masked_fill", masked_fill(x, gt(x, 0), 0.0)},
      {"where", where(gt(x, 0), x, x * 2)},
      {"clone", x.clone()},
      {"clamp", clamp(x, -1, 1)},
      {"maximum", maximum(x, x)},
      {"matmul_vec", x.matmul(x[0])},
      {"dot", dot(x[0], x[1])},
      {"mv", mv(x, x[0])},
      {"bmm", bmm(x.unsqueeze(0), w.t().unsqueeze(0))},
      {"contiguous", x.t().contiguous()},
      {"prod", prod(x)},
      {"to_double", x.to(kFloat64)},
      {"rsub_scalar", 2.0 - x},
      {"sub_scalar", x - 2.0},
      {"reshape_copy", x.t().reshape({-1})},
      {"reshape_copy_after_matmul", x.matmul(w.t()).t().reshape({-1})},
      {"matmul_3d_2d", x.unsqueeze(0).matmul(w.t())},
      {"matmul_3d_1d", x.unsqueeze(0).matmul(x[0])},
      {"matmul_3d_3d", x.unsqueeze(0).matmul(w.t().unsqueeze(0))},
      {"matmul_broadcast", x.unsqueeze(0).expand({2, 2, 3}).matmul(w.t().unsqueeze(0))},
      {"full_slice", x.slice(0)},
      {"squeeze_negative_dim", x.unsqueeze(-1).squeeze(-1)}};
  for (const auto& [name, t] : made) {
    ASSERT_TRUE(t.grad_fn()) << name;
    EXPECT_EQ(t.grad_fn()->name(), oracle_string("node_names", name)) << name;
  }
  EXPECT_EQ(x.sum().grad_fn()->next_edges()[0].fn->name(), oracle_string("accumulate_grad_name", ""));
}

// detach_() refuses a view with PyTorch 1.13's whole message (its second sentence is about DDP).
TEST(EngineNames, DetachInPlaceRefusesAView) {
  Tensor v = (oracle_ramp({3}) * 1).slice(0, 0, 2);
  expect_oracle_error([&] { v.detach_(); }, "detach_view_inplace");
}

// A reshape that has to copy is not a view (PyTorch's _unsafe_view of a fresh copy).
TEST(EngineNames, AReshapeThatCopiesIsNotAView) {
  Tensor x = oracle_ramp({2, 3});
  Tensor r = x.t().reshape({-1});
  EXPECT_FALSE(r.is_view());
  EXPECT_EQ(r.grad_fn()->name(), "UnsafeViewBackward0");
  (r * r).sum().backward();
  expect_values(x.grad(), {{2, 3}, "float32", (x.detach() * 2).to_vector<double>()});
}

TEST(EngineNames, RebindingMakesANewTensorInPlaceReusesTheOld) {
  Tensor a = oracle_ramp({3});
  Tensor b = a * 2;
  void* before = b.data_ptr();
  b = b + 1;  // x = x + 1: a new tensor, the name now points at it
  EXPECT_EQ(b.data_ptr() == before, oracle_bool("rebind_vs_inplace", "rebind_same_storage"));
  Tensor c = a * 2;
  before = c.data_ptr();
  c.add_(1);  // x += 1: the same storage, a new node in its history
  EXPECT_EQ(c.data_ptr() == before, oracle_bool("rebind_vs_inplace", "inplace_same_storage"));
  EXPECT_EQ(c.grad_fn()->name(), oracle_string("rebind_vs_inplace", "inplace_name"));
}

TEST(EngineOracle, CrossEntropyGradient) {
  Tensor logits = oracle_ramp({3, 4}, 2.0, 2.5);
  const std::vector<std::int64_t> labels{1, 3, 0};
  Tensor lp = log_softmax(logits, 1);
  TensorList picked;
  for (std::int64_t i = 0; i < 3; ++i) picked.push_back(index_select(lp[i], 0, tensor(std::vector{labels[i]})));
  Tensor ce = -stack(picked).mean();
  ce.backward();
  EXPECT_NEAR(ce.item<double>(), oracle_number("cross_entropy", "loss"), 1e-6);
  expect_values(logits.grad(), oracle_grad("cross_entropy", 0));
}

TEST(EngineOracle, InPlaceOnViewsOfANonLeaf) {
  Tensor u = oracle_ramp({2, 3});
  Tensor m = u * 2;
  m[0].mul_(3);
  m.select(1, 1).add_(m.select(1, 2));
  (m * m).sum().backward();
  expect_values(u.grad(), oracle_grad("inplace_view", 0));
  EXPECT_EQ(m.grad_fn()->name(), oracle_string("inplace_view", "base_name"));
  EXPECT_EQ(m[0].grad_fn()->name(), oracle_string("inplace_view", "view_name"));
  Tensor mm2 = u * 2;
  Tensor vv = mm2[0];
  vv.mul_(3);
  EXPECT_EQ(vv.grad_fn()->name(), oracle_string("inplace_view", "modified_view_name"));
}

TEST(EngineOracle, PrintingNamesCopySlicesAsPython) {
  Tensor p = tensor(std::vector<float>{1, 1, 1}).requires_grad_() * 1;
  p[0].mul_(2);
  std::ostringstream out;
  out << p;
  EXPECT_EQ(out.str(), oracle_json("print_copyslices").get<std::string>());
}

TEST(EngineOracle, InPlaceMulAndDivKeepTheOriginalValue) {
  Tensor a0 = oracle_ramp({3});
  Tensor a = a0 * 1;
  Tensor w2 = oracle_ramp({3}, 3.0);
  a.mul_(w2);
  a.div_(w2 + 2);
  a.sum().backward();
  expect_values(a0.grad(), oracle_grad("inplace_mul_div", 0));
  expect_values(w2.grad(), oracle_grad("inplace_mul_div", 1));
}

TEST(EngineOracle, ReductionsSoftmaxWhereCatStack) {
  Tensor t = oracle_ramp({2, 4}, 3.0);
  Tensor s1 =
      softmax(t, 1).select(1, 0).sum() + logsumexp(t, {1}).sum() * 0.5 + std::get<0>(max(t, 1)).sum() + t.max() * 2;
  Tensor s2 = where(gt(t, 0), t * t, -t).sum() + pow(masked_fill(t, lt(t, -0.5), 3.0), 3).sum();
  Tensor s3 = (cat({t, t * 2}, 1) * arange(16, kFloat32).reshape({2, 8})).sum() + prod(stack({t, exp(t)}), 0).sum();
  (s1 + s2 + s3).backward();
  expect_values(t.grad(), oracle_grad("reductions", 0), 1e-5, 1e-5);
}

TEST(EngineOracle, ExpandThenViews) {
  Tensor e = oracle_ramp({3});
  Tensor ee = e.expand({2, 3}).t().reshape({6});
  (ee * arange(6, kFloat32)).sum().backward();
  expect_values(e.grad(), oracle_grad("expand_view", 0));
}

TEST(EngineOracle, BatchedMatmul) {
  Tensor ma = oracle_ramp({2, 3, 4}, 10.0);
  Tensor mb = oracle_ramp({4, 2}, 3.0);
  pow(ma.matmul(mb), 2).sum().backward();
  expect_values(ma.grad(), oracle_grad("matmul_batched", 0), 1e-5, 1e-5);
  expect_values(mb.grad(), oracle_grad("matmul_batched", 1), 1e-5, 1e-5);
}

// mm and addmm give an operand stored column-major (the transpose of a contiguous matrix, as
// Linear's W.t() is) its gradient in that layout, as PyTorch's mm_mat1_backward and
// mm_mat2_backward do; any other layout gets a row-major gradient. Checked for every pair of
// layouts through the strides each operand's hook sees, and the values through the leaves.
TEST(EngineOracle, MmGradientsTakeAColumnMajorOperandsLayout) {
  // A (rows, cols) view of a new leaf, as tools/oracle/week02.py's operand() makes it.
  const auto operand = [](const std::string& layout, std::int64_t rows, std::int64_t cols, double scale,
                          double shift) -> std::pair<Tensor, Tensor> {
    if (layout == "row") {
      Tensor leaf = oracle_ramp({rows, cols}, scale, shift);
      return {leaf, leaf * 1};
    }
    if (layout == "col") {
      Tensor leaf = oracle_ramp({cols, rows}, scale, shift);
      return {leaf, (leaf * 1).t()};
    }
    Tensor leaf = oracle_ramp({cols, rows + 2}, scale, shift);
    return {leaf, (leaf * 1).slice(1, 0, rows).t()};
  };
  const auto strides = [](const Tensor& t) {
    return std::vector<std::int64_t>(t.strides().begin(), t.strides().end());
  };
  const nlohmann::json& cases = oracle_json("mm_gradient_layout");
  ASSERT_EQ(cases.size(), 18U);
  for (const nlohmann::json& c : cases) {
    const std::string op = c["op"], l1 = c["mat1"], l2 = c["mat2"];
    SCOPED_TRACE(op + " of a " + l1 + " mat1 and a " + l2 + " mat2");
    auto [leaf1, m1] = operand(l1, 3, 4, 5.0, 1.0);
    auto [leaf2, m2] = operand(l2, 4, 5, 3.0, 0.5);
    std::vector<std::int64_t> seen1, seen2;
    m1.register_hook([&](const Tensor& g) {
      seen1 = strides(g);
      return Tensor();
    });
    m2.register_hook([&](const Tensor& g) {
      seen2 = strides(g);
      return Tensor();
    });
    const Tensor y = op == "mm" ? m1.mm(m2) : addmm(oracle_ramp({5}, 2.0, 0.3), m1, m2, 0.5, 2.0);
    y.backward(oracle_gout({3, 5}));
    EXPECT_EQ(seen1, c["mat1_strides"].get<std::vector<std::int64_t>>());
    EXPECT_EQ(seen2, c["mat2_strides"].get<std::vector<std::int64_t>>());
    expect_values(leaf1.grad(), values_from_json(c["grads"][0]), 1e-5, 1e-5);
    expect_values(leaf2.grad(), values_from_json(c["grads"][1]), 1e-5, 1e-5);
  }
  // nn.Linear: the weight's hook sees a contiguous (out, in) gradient.
  Tensor w = oracle_ramp({4, 6}), b = oracle_ramp({4});
  std::vector<std::int64_t> seen;
  w.register_hook([&](const Tensor& g) {
    seen = strides(g);
    return Tensor();
  });
  const Tensor x = oracle_ramp({3, 6}).detach();
  addmm(b, x, w.t()).backward(oracle_gout({3, 4}));
  EXPECT_EQ(seen, oracle_json("linear_weight_gradient_strides").get<std::vector<std::int64_t>>());
  // Only W.t()'s gradient was wanted (x needs none): grad^T x, in W's (out, in) shape.
  const Tensor expected = oracle_gout({3, 4}).t().contiguous().mm(x);
  expect_values(w.grad(), {{4, 6}, "float32", expected.to_vector<double>()}, 1e-6, 1e-6);
}

TEST(EngineErrors, MessagesMatchPyTorch) {
  expect_oracle_error([] { ones({3}, kInt64).requires_grad_(); }, "int_requires_grad");
  expect_oracle_error([] { (oracle_ramp({3}) * 2).requires_grad_(false); }, "nonleaf_requires_grad_false");
  expect_oracle_error([] { ones({3}).retain_grad(); }, "retain_grad_without_grad");
}

TEST(EngineMemory, GraphIsFreedWithItsOutput) {
  Tensor x = oracle_ramp({3});
  std::weak_ptr<autograd::Node> node;
  {
    Tensor y = sigmoid(x * 2);
    node = y.grad_fn();
    y.sum().backward();
  }
  EXPECT_TRUE(node.expired());
  std::weak_ptr<TensorImpl> output;
  {
    Tensor y = exp(x);  // saves its own output: must not keep itself alive
    output = y.impl_ptr();
  }
  EXPECT_TRUE(output.expired());
}

TEST(EngineMemory, DetachSharesDataAndVersionButNotHistory) {
  Tensor x = oracle_ramp({3});
  Tensor y = x * 2;
  Tensor d = y.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_alias_of(y));
  d.add_(1);
  EXPECT_EQ(y.version(), 1u);
}

// ---- gradcheck over every differentiable op ----------------------------------------------------------
namespace {
Tensor dbl(const Shape& shape, double scale = 5.0, double shift = 0.9) {
  Tensor t = arange(numel_of(shape), kFloat64).reshape(shape) / scale - shift;
  t = t + sin(arange(numel_of(shape), kFloat64).reshape(shape)) * 0.1;  // break ties
  t.requires_grad_();
  return t;
}
void check(const std::string& what, const std::function<Tensor(const TensorList&)>& f, const TensorList& in) {
  SCOPED_TRACE(what);
  EXPECT_TRUE(autograd::gradcheck(f, in));
}
}  // namespace

TEST(EngineGradcheck, Elementwise) {
  Tensor a = dbl({2, 3}), b = dbl({3}, 4.0, -1.2), pos = (dbl({2, 3}) * 0 + 0).detach();
  Tensor p = (abs(dbl({2, 3}).detach()) + 0.5).requires_grad_();
  check("add", [](const TensorList& t) { return add(t[0], t[1], 2.5); }, {a, b});
  check("sub", [](const TensorList& t) { return sub(t[0], t[1], 0.5); }, {a, b});
  check("mul", [](const TensorList& t) { return t[0] * t[1]; }, {a, b});
  check("div", [](const TensorList& t) { return t[0] / t[1]; }, {a, b});
  check("pow", [](const TensorList& t) { return pow(t[0], t[1]); }, {p, b});
  check("pow_scalar", [](const TensorList& t) { return pow(t[0], 3); }, {a});
  check("maximum", [](const TensorList& t) { return maximum(t[0], t[1]); }, {a, b});
  check("minimum", [](const TensorList& t) { return minimum(t[0], t[1]); }, {a, b});
  for (auto& [name, fn] : std::vector<std::pair<std::string, Tensor (*)(const Tensor&)>>{{"neg", neg},
                                                                                         {"abs", abs},
                                                                                         {"exp", exp},
                                                                                         {"sin", sin},
                                                                                         {"cos", cos},
                                                                                         {"tanh", tanh},
                                                                                         {"sigmoid", sigmoid},
                                                                                         {"relu", relu},
                                                                                         {"square", square}})
    check(name, [fn](const TensorList& t) { return fn(t[0]); }, {a});
  for (auto& [name, fn] : std::vector<std::pair<std::string, Tensor (*)(const Tensor&)>>{
           {"log", log}, {"log1p", log1p}, {"sqrt", sqrt}, {"rsqrt", rsqrt}, {"reciprocal", reciprocal}})
    check(name, [fn](const TensorList& t) { return fn(t[0]); }, {p});
  check("clamp", [](const TensorList& t) { return clamp(t[0], -0.5, 0.5); }, {a});
  (void)pos;
}

TEST(EngineGradcheck, NonContiguousAndBroadcastInputs) {
  Tensor base = dbl({3, 4});
  Tensor at = base.detach().t().requires_grad_();  // a (4, 3) leaf with transposed strides
  ASSERT_FALSE(at.is_contiguous());
  Tensor row = dbl({1, 3}, 3.0);
  check("mul_transposed", [](const TensorList& t) { return t[0] * t[1] + exp(t[0]); }, {at, row});
  check("sum_dims", [](const TensorList& t) { return t[0].sum({0}, true) * t[1]; }, {at, row});
}

TEST(EngineGradcheck, Reductions) {
  Tensor a = dbl({3, 4});
  check("sum", [](const TensorList& t) { return t[0].sum(); }, {a});
  check("sum_dim", [](const TensorList& t) { return t[0].sum({1}); }, {a});
  check("mean_dim_keep", [](const TensorList& t) { return t[0].mean({0}, true); }, {a});
  check("prod", [](const TensorList& t) { return prod(t[0]); }, {a});
  check("prod_dim", [](const TensorList& t) { return prod(t[0], 1); }, {a});
  check("max", [](const TensorList& t) { return t[0].max(); }, {a});
  check("min_dim", [](const TensorList& t) { return std::get<0>(min(t[0], 0)); }, {a});
  check("logsumexp", [](const TensorList& t) { return logsumexp(t[0], {1}); }, {a});
  check("softmax", [](const TensorList& t) { return softmax(t[0], 1); }, {a});
  check("log_softmax", [](const TensorList& t) { return log_softmax(t[0], 0); }, {a});
}

TEST(EngineGradcheck, MatrixProducts) {
  Tensor a = dbl({3, 4}), b = dbl({4, 2}, 3.0), v = dbl({4}, 2.0), c = dbl({2}, 3.0);
  Tensor ba = dbl({2, 3, 4}), bb = dbl({2, 4, 2});
  check("mm", [](const TensorList& t) { return t[0].mm(t[1]); }, {a, b});
  check("mv", [](const TensorList& t) { return mv(t[0], t[1]); }, {a, v});
  check("dot", [](const TensorList& t) { return dot(t[0], t[1]); }, {v, v.detach().clone().requires_grad_()});
  check("bmm", [](const TensorList& t) { return bmm(t[0], t[1]); }, {ba, bb});
  check("addmm", [](const TensorList& t) { return addmm(t[2], t[0], t[1], 0.5, 2.0); }, {a, b, c});
  check("matmul_broadcast", [](const TensorList& t) { return t[0].matmul(t[1]); }, {ba, b});
}

TEST(EngineGradcheck, ViewsJoinsAndIndexing) {
  Tensor a = dbl({3, 4}), b = dbl({3, 4}, 2.0);
  check("views",
        [](const TensorList& t) {
          return t[0].t().reshape({2, 6}).unsqueeze(1).squeeze().transpose(0, 1).narrow(0, 1, 4).select(1, 1);
        },
        {a});
  check("expand", [](const TensorList& t) { return t[0].slice(0, 0, 1).expand({5, 4}) * t[1].sum(); }, {a, b});
  check("permute_slice",
        [](const TensorList& t) {
          return t[0].unsqueeze(2).permute({2, 1, 0}).slice(1, 1, 4, 2);
        },
        {a});
  check("cat", [](const TensorList& t) { return cat({t[0], t[1] * 2}, 1); }, {a, b});
  check("stack", [](const TensorList& t) { return stack({t[0], t[1]}, 1); }, {a, b});
  check("index_select",
        [](const TensorList& t) {
          return index_select(t[0], 1, tensor(std::vector<std::int64_t>{3, 0, 3}));
        },
        {a});
  check("masked_fill", [](const TensorList& t) { return masked_fill(t[0], gt(t[1], 0), 2.0); }, {a, b});
  check("where", [](const TensorList& t) { return where(gt(t[0], 0), t[0], t[1]); }, {a, b});
  check("clone_to", [](const TensorList& t) { return t[0].clone().to(kFloat64); }, {a});
  check("inplace_on_view",
        [](const TensorList& t) {
          Tensor m = t[0] * 1;
          m.select(0, 1).mul_(t[1].select(0, 1));
          m.slice(1, 0, 2).add_(t[1].slice(1, 0, 2));
          return m;
        },
        {a, b});
}

TEST(EngineGradcheck, MismatchNamesInputAndElement) {
  // A deliberately wrong "gradient": a hook doubles x's gradient.
  Tensor x = dbl({2});
  x.register_hook([](const Tensor& g) { return g * 2; });
  expect_error<Error>([&] { autograd::gradcheck([](const TensorList& t) { return t[0] * 3; }, {x}); },
                      "Jacobian mismatch for output 0 with respect to input 0, element 0 (input index [0]) from "
                      "output element 0: numerical 3, analytical 6");
}
