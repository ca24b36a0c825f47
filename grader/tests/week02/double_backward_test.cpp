// The given engine (not graded): gradients of gradients (autograd::grad, backward with
// create_graph, gradgradcheck) and custom autograd functions, against PyTorch 1.13.
#include <functional>

#include <kindling/autograd.hpp>
#include <kindling/join.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

namespace {
// tools/oracle/week02.py's d(): ramp()'s values computed in float64, a leaf that requires grad.
Tensor d(const Shape& shape, double scale = 7.0, double shift = 1.5) {
  Tensor t = arange(numel_of(shape), kFloat64).reshape(shape) / scale - shift;
  t.requires_grad_();
  return t;
}
// tools/oracle/week02.py's dir64(): cos(0.7 i + k), float64.
Tensor dir64(IntArrayRef shape, double k = 0) {
  return cos(arange(numel_of(shape), kFloat64) * 0.7 + k).reshape(shape);
}

// The names of t's graph, depth first from t.grad_fn(), each node followed by its inputs' (the
// oracle's graph_names).
std::vector<std::string> graph_names(const Tensor& t) {
  std::vector<std::string> out;
  const std::function<void(const std::shared_ptr<autograd::Node>&)> walk = [&](const auto& fn) {
    if (!fn) return;
    out.push_back(fn->name());
    for (const autograd::Edge& e : fn->next_edges()) walk(e.fn);
  };
  walk(t.grad_fn());
  return out;
}

}  // namespace

TEST(EngineDoubleBackward, CubeTwice) {
  const Tensor x = tensor(std::vector<double>{1, 2, 3});
  x.requires_grad_();
  const Tensor g = autograd::grad({x.pow(3).sum()}, {x}, {}, std::nullopt, true).at(0);
  expect_values(g, oracle_values("double_pow3", "first"));
  ASSERT_TRUE(g.grad_fn());
  EXPECT_EQ(g.grad_fn()->name(), oracle_string("double_pow3", "first_name"));
  expect_values(autograd::grad({g.sum()}, {x}).at(0), oracle_values("double_pow3", "second"));
}

// A recorded gradient's graph has PyTorch's nodes: its formulas multiply by a C++ Scalar through
// mul.Scalar (MulBackward1), where Python's `x * 3` is mul.Tensor (MulBackward0).
TEST(EngineDoubleBackward, RecordedGradientsHavePyTorchsNodes) {
  for (const std::string name : {"pow3", "sqrt", "times3"}) {
    const Tensor x = tensor(std::vector<double>{1, 2, 3});
    x.requires_grad_();
    const Tensor y = name == "pow3" ? x.pow(3) : name == "sqrt" ? x.sqrt() : (x * 3).pow(2);
    const Tensor g = autograd::grad({y.sum()}, {x}, {}, std::nullopt, true).at(0);
    EXPECT_EQ(graph_names(g), oracle_json("double_graph_names")[name].get<std::vector<std::string>>()) << name;
  }
}

TEST(EngineDoubleBackward, BackwardWithCreateGraphLeavesAGradWithAHistory) {
  const Tensor x = tensor(std::vector<double>{1, 2, 3});
  x.requires_grad_();
  x.pow(3).sum().backward({}, std::nullopt, true);
  ASSERT_TRUE(x.grad().grad_fn());
  EXPECT_EQ("torch::autograd::" + x.grad().grad_fn()->name(), oracle_string("double_backward_grad", "first_name"));
  x.pow(3).sum().backward({}, std::nullopt, true);
  EXPECT_EQ(x.grad().grad_fn()->name(), oracle_string("double_backward_grad", "second_name"));
  expect_values(x.grad(), oracle_values("double_backward_grad", "grad"));
  expect_values(autograd::grad({x.grad().sum()}, {x}).at(0), oracle_values("double_backward_grad", "second"));
  x.mutable_grad() = Tensor();  // the .grad -> graph -> x cycle PyTorch warns about
}

TEST(EngineDoubleBackward, HessianVectorProductOfATwoLayerNetwork) {
  const Tensor w1 = d({4, 3}), b1 = d({4}, 5.0), w2 = d({2, 4}, 3.0, 0.5), in = d({5, 3}, 4.0);
  const Tensor loss = (in.mm(w1.t()) + b1).tanh().mm(w2.t()).pow(2).mean();
  const TensorList grads = autograd::grad({loss}, {w1, b1, w2}, {}, std::nullopt, true);
  expect_values(grads.at(0), oracle_values("double_hvp", "grad_w1"), 1e-10, 1e-12);
  Tensor dot = zeros({}, kFloat64);
  for (std::size_t k = 0; k < grads.size(); ++k) dot = dot + (grads[k] * dir64(grads[k].sizes(), double(k))).sum();
  const TensorList hv = autograd::grad({dot}, {w1, b1, w2});
  expect_values(hv.at(0), oracle_values("double_hvp", "w1"), 1e-10, 1e-12);
  expect_values(hv.at(1), oracle_values("double_hvp", "b1"), 1e-10, 1e-12);
  expect_values(hv.at(2), oracle_values("double_hvp", "w2"), 1e-10, 1e-12);
  // grad() touched no .grad
  EXPECT_FALSE(w1.grad().defined());
}

TEST(EngineDoubleBackward, GradientPenalty) {
  const Tensor w = d({3, 4}, 6.0), pts = d({5, 4}, 9.0, 0.3);
  const Tensor critic = pts.mm(w.t()).tanh().sum();
  const Tensor gx = autograd::grad({critic}, {pts}, {}, std::nullopt, true).at(0);
  const Tensor penalty = ((gx * gx).sum({1}).sqrt() - 1).pow(2).mean();
  penalty.backward();
  expect_values(penalty, oracle_values("double_penalty", "penalty"), 1e-10, 1e-12);
  expect_values(w.grad(), oracle_values("double_penalty", "w_grad"), 1e-10, 1e-12);
}

TEST(EngineDoubleBackward, GradErrorsAreWordForWord) {
  const Tensor x = d({3});
  expect_oracle_error([&] { autograd::grad({(x * 2).sum()}, {x, d({2})}); }, "grad_unused");
  expect_oracle_error([&] { autograd::grad({(x * 2).sum()}, {ones({2})}); }, "grad_not_requiring");
  expect_oracle_error([&] { autograd::grad({(x * 2).sum(), (x * 3).sum()}, {x}, {tensor(1.0)}); }, "grad_count");
  const TensorList unused = autograd::grad({(x * 2).sum()}, {x, d({2})}, {}, std::nullopt, false, true);
  expect_values(unused.at(0), oracle_values("grad_allow_unused", "first"));
  EXPECT_EQ(!unused.at(1).defined(), oracle_bool("grad_allow_unused", "second_is_none"));
}

TEST(EngineDoubleBackward, GradRunsOnlyThePartOfTheGraphThatLeadsToTheInputs) {
  const Tensor x = d({3}), w = d({3}, 5.0);
  const Tensor y = (x * w).sum() + w.exp().sum();
  const Tensor gx = autograd::grad({y}, {x}).at(0);
  expect_values(gx, Values{{3}, "float64", w.detach().to_vector<double>()});
  EXPECT_FALSE(w.grad().defined());  // w's branch did not run into its accumulator
  EXPECT_FALSE(x.grad().defined());
}

TEST(EngineDoubleBackward, GradgradcheckPassesForEveryDifferentiableOp) {
  const auto check = [](const char* name, const std::function<Tensor(const TensorList&)>& f, TensorList in) {
    for (Tensor& t : in) t.requires_grad_();
    try {
      EXPECT_TRUE(autograd::gradgradcheck(f, in)) << name;
    } catch (const std::exception& e) {
      ADD_FAILURE() << name << ": " << e.what();
    }
  };
  const auto r = [](const Shape& s, double scale = 7.0, double shift = 1.5) { return d(s, scale, shift).detach(); };
  const auto pos = [&](const Shape& s) { return r(s, 7.0, -0.5); };  // positive
  check("exp", [](const TensorList& v) { return v[0].exp(); }, {r({2, 3})});
  check("log", [](const TensorList& v) { return v[0].log(); }, {pos({2, 3})});
  check("sqrt", [](const TensorList& v) { return v[0].sqrt(); }, {pos({2, 3})});
  check("rsqrt", [](const TensorList& v) { return rsqrt(v[0]); }, {pos({2, 3})});
  check("reciprocal", [](const TensorList& v) { return reciprocal(v[0]); }, {pos({2, 3})});
  check("tanh", [](const TensorList& v) { return v[0].tanh(); }, {r({2, 3})});
  check("sigmoid", [](const TensorList& v) { return v[0].sigmoid(); }, {r({2, 3})});
  check("sin cos", [](const TensorList& v) { return sin(v[0]) * cos(v[0]); }, {r({2, 3})});
  check("log1p", [](const TensorList& v) { return log1p(v[0]); }, {pos({2, 3})});
  check("pow scalar", [](const TensorList& v) { return v[0].pow(3); }, {r({2, 3})});
  check("pow tensor", [](const TensorList& v) { return pow(v[0], v[1]); }, {pos({2, 3}), r({2, 3}, 9.0)});
  check("mul div", [](const TensorList& v) { return v[0] * v[1] / (v[1] * v[1] + 1); }, {r({2, 3}), r({3}, 5.0)});
  check("sum mean", [](const TensorList& v) { return (v[0] * v[0]).sum({1}) + v[0].pow(2).mean(); }, {r({2, 3})});
  check("prod", [](const TensorList& v) { return v[0].prod(1); }, {pos({2, 3})});
  check("softmax", [](const TensorList& v) { return softmax(v[0], 1); }, {r({2, 3})});
  check("log_softmax", [](const TensorList& v) { return log_softmax(v[0], 0); }, {r({2, 3})});
  check("logsumexp", [](const TensorList& v) { return logsumexp(v[0], {1}); }, {r({2, 3})});
  check("mm", [](const TensorList& v) { return v[0].mm(v[1]).pow(2); }, {r({2, 3}), r({3, 2}, 5.0)});
  check("matmul batched", [](const TensorList& v) { return matmul(v[0], v[1]).pow(2); },
        {r({2, 2, 3}), r({3, 2}, 5.0)});
  check("addmm", [](const TensorList& v) { return addmm(v[0], v[1], v[2]).tanh(); },
        {r({2}), r({2, 3}, 5.0), r({3, 2}, 3.0)});
  check("slice select", [](const TensorList& v) { return v[0].slice(1, 1, 3).exp() * v[0].select(0, 1).sum(); },
        {r({2, 3})});
  check("transpose of a slice", [](const TensorList& v) { return v[0].t().slice(0, 0, 2, 1).pow(2); }, {r({3, 3})});
  check("expand", [](const TensorList& v) { return v[0].expand({3, 2}).pow(2) * v[1]; }, {r({1, 2}), r({3, 2}, 5.0)});
  check("index_select",
        [](const TensorList& v) {
          return index_select(v[0], 1, tensor(std::vector<std::int64_t>{2, 0, 2})).pow(2);
        },
        {r({2, 3})});
  check("max dim", [](const TensorList& v) { return std::get<0>(v[0].pow(2).max(1)); }, {r({2, 3}, 3.0, 0.9)});
  check("cat stack",
        [](const TensorList& v) {
          return stack({cat({v[0], v[1]}, 0).pow(2), cat({v[1], v[0]}, 0)}, 0);
        },
        {r({2}), r({3}, 5.0)});
  check("where clamp",
        [](const TensorList& v) { return where(gt(v[0], 0), v[0].pow(2), v[0].clamp(-0.5, 0.5) * v[0]); }, {r({2, 3})});
  check("abs maximum", [](const TensorList& v) { return maximum(v[0].abs() * v[0], v[1] * v[1]); },
        {r({2, 3}), r({2, 3}, 5.0, 0.77)});
}

TEST(EngineDoubleBackward, GradgradcheckCatchesAWrongSecondDerivative) {
  // A custom function whose backward is right but not differentiable in the way it claims:
  // its backward reads the gradient's data, so the second derivative it records is wrong.
  struct Cube : autograd::Function<Cube> {
    static Tensor forward(autograd::AutogradContext* ctx, Tensor x) {
      ctx->save_for_backward({x});
      return x.pow(3);
    }
    static TensorList backward(autograd::AutogradContext* ctx, TensorList g) {
      const Tensor x = ctx->get_saved_variables()[0];
      return {g[0] * 3 * x.detach() * x.detach()};  // the detach loses d/dx of 3x²
    }
  };
  const Tensor x = d({3});
  EXPECT_TRUE(autograd::gradcheck([](const TensorList& v) { return Cube::apply(v[0]); }, {x}));
  try {
    autograd::gradgradcheck([](const TensorList& v) { return Cube::apply(v[0]); }, {x});
    ADD_FAILURE() << "gradgradcheck passed a backward that loses the second derivative";
  } catch (const Error& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with("second derivative mismatch for output 0 with respect to input 0"))
        << e.what();
  }
}

namespace {
// LibTorch's documented custom function, as its docs write it.
struct LinearFunction : autograd::Function<LinearFunction> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor input, Tensor weight, Tensor bias) {
    ctx->save_for_backward({input, weight, bias});
    return input.mm(weight.t()) + bias.unsqueeze(0).expand({input.size(0), weight.size(0)});
  }
  static TensorList backward(autograd::AutogradContext* ctx, TensorList grad_outputs) {
    const TensorList saved = ctx->get_saved_variables();
    const Tensor& input = saved[0];
    const Tensor& weight = saved[1];
    const Tensor& g = grad_outputs[0];
    return {g.mm(weight), g.t().mm(input), g.sum({0})};
  }
};

struct MulConstant : autograd::Function<MulConstant> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor x, double constant) {
    ctx->saved_data["constant"] = constant;
    return x * constant;
  }
  static TensorList backward(autograd::AutogradContext* ctx, TensorList grad_outputs) {
    return {grad_outputs[0] * ctx->saved_data["constant"].toDouble(), Tensor()};
  }
};
}  // namespace

TEST(EngineCustomFunction, LinearAndMulConstantAgreeWithPyTorch) {
  const Tensor in = d({4, 3}), wt = d({2, 3}, 5.0), bias = d({2}, 3.0);
  const Tensor out = LinearFunction::apply(in, wt, bias);
  ASSERT_TRUE(out.grad_fn());
  EXPECT_NE(out.grad_fn()->name().find("LinearFunction"), std::string::npos) << out.grad_fn()->name();
  out.backward(dir64({4, 2}));
  expect_values(out, oracle_values("custom_function", "linear_out"), 1e-12, 1e-12);
  expect_values(in.grad(), oracle_values("custom_function", "linear_grad_input"), 1e-12, 1e-12);
  expect_values(wt.grad(), oracle_values("custom_function", "linear_grad_weight"), 1e-12, 1e-12);
  expect_values(bias.grad(), oracle_values("custom_function", "linear_grad_bias"), 1e-12, 1e-12);
  const Tensor y = MulConstant::apply(in, 5.5);
  expect_values(y, oracle_values("custom_function", "mul_out"), 1e-12, 1e-12);
  const Tensor yg = autograd::grad({y.pow(2).sum()}, {in}, {}, std::nullopt, true).at(0);
  expect_values(yg, oracle_values("custom_function", "mul_grad"), 1e-12, 1e-12);
  expect_values(autograd::grad({yg.sum()}, {in}).at(0), oracle_values("custom_function", "mul_second"), 1e-12, 1e-12);
  EXPECT_TRUE(
      autograd::gradcheck([](const TensorList& v) { return LinearFunction::apply(v[0], v[1], v[2]); }, {in, wt, bias}));
  EXPECT_TRUE(autograd::gradgradcheck(
      [](const TensorList& v) { return LinearFunction::apply(v[0], v[1], v[2]).pow(2); }, {in, wt, bias}));
}

TEST(EngineCustomFunction, SavedTensorsAreVersionChecked) {
  expect_oracle_error(
      [] {
        const Tensor a = d({3});
        const Tensor b = a * 1;
        const Tensor out = LinearFunction::apply(b.view({1, 3}), d({2, 3}), d({2}));
        b.add_(1);
        out.sum().backward();
      },
      "custom_saved_modified");
}

TEST(EngineCustomFunction, BackwardMustReturnOneGradientPerForwardArgument) {
  struct Short : autograd::Function<Short> {
    static Tensor forward(autograd::AutogradContext*, Tensor x, double c) { return x * c; }
    static TensorList backward(autograd::AutogradContext*, TensorList g) { return {g[0], g[0], g[0]}; }
  };
  struct NotATensor : autograd::Function<NotATensor> {
    static Tensor forward(autograd::AutogradContext*, Tensor x, double c) { return x * c; }
    static TensorList backward(autograd::AutogradContext*, TensorList g) { return {g[0], g[0]}; }
  };
  const Tensor x = d({3});
  // LibTorch's words after the node's name (its C++ type, demangled: here a local struct).
  const auto message_ends_with = [](const std::function<void()>& fn, const std::string& tail) {
    try {
      fn();
      ADD_FAILURE() << "did not throw; expected: ..." << tail;
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_TRUE(what.starts_with("function ") && what.ends_with(tail)) << what;
    }
  };
  message_ends_with([&] { Short::apply(x, 2.0).sum().backward(); },
                    " returned an incorrect number of gradients (expected 2, got 3)");
  message_ends_with([&] { NotATensor::apply(x, 2.0).sum().backward(); },
                    " returned a gradient different than None at position 2, but the corresponding forward input was "
                    "not a Variable");
}

// A backward may return a gradient of a larger shape that the input's expands to (it is summed
// back), and nothing else, as PyTorch's validate_outputs decides.
TEST(EngineCustomFunction, AGradientOfAnotherShapeIsSummedBackOrRefusedAsPyTorchDoes) {
  struct ShapedGrad : autograd::Function<ShapedGrad> {
    static Tensor forward(autograd::AutogradContext* ctx, Tensor x, std::vector<std::int64_t> shape) {
      ctx->saved_data["rank"] = static_cast<std::int64_t>(shape.size());
      for (std::size_t k = 0; k < shape.size(); ++k) ctx->saved_data["size" + std::to_string(k)] = shape[k];
      return x * 2;
    }
    static TensorList backward(autograd::AutogradContext* ctx, TensorList g) {
      Shape shape;
      for (std::int64_t k = 0; k < ctx->saved_data["rank"].toInt(); ++k)
        shape.push_back(ctx->saved_data["size" + std::to_string(k)].toInt());
      return {ones(shape, g[0].dtype()), Tensor()};
    }
  };
  for (const auto& c : oracle_json("custom_grad_shapes")) {
    const auto xs = c["x"].get<std::vector<std::int64_t>>(), gs = c["grad"].get<std::vector<std::int64_t>>();
    SCOPED_TRACE("x " + to_string(xs) + ", gradient " + to_string(gs));
    const Tensor x = zeros(xs, kFloat64).requires_grad_();
    if (c.contains("x_grad")) {
      ShapedGrad::apply(x, gs).sum().backward();
      expect_values(x.grad(), values_from_json(c["x_grad"]));
      continue;
    }
    try {
      ShapedGrad::apply(x, gs).sum().backward();
      ADD_FAILURE() << "did not throw";
    } catch (const Error& e) {
      EXPECT_TRUE(std::string(e.what()).ends_with(c["error_tail"].get<std::string>())) << e.what();
    }
  }
}

TEST(EngineCustomFunction, RecordsNothingWhenNoInputRequiresGradOrUnderNoGrad) {
  const Tensor plain = ones({2, 3}, kFloat64);
  EXPECT_FALSE(MulConstant::apply(plain, 2.0).requires_grad());
  const Tensor x = d({3});
  {
    NoGradGuard no_grad;
    EXPECT_FALSE(MulConstant::apply(x, 2.0).requires_grad());
  }
  struct Identity : autograd::Function<Identity> {
    static Tensor forward(autograd::AutogradContext*, Tensor x) { return x; }
    static TensorList backward(autograd::AutogradContext*, TensorList g) { return g; }
  };
  const Tensor y = Identity::apply(x);  // an input returned as it is: a new handle, the leaf stays a leaf
  EXPECT_TRUE(x.is_leaf());
  EXPECT_TRUE(y.grad_fn());
  y.sum().backward();
  expect_values(x.grad(), Values{{3}, "float64", {1, 1, 1}});
}
