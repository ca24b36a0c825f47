// Module's registries, state_dict, Sequential and Dropout.

#include <cmath>

#include "week03_support.hpp"

namespace kindling::testing {
namespace {

using nn::Module;

// A Linear-shaped module built only from Module's registry, so that these tests
// do not depend on the Linear task. `type` is what it prints as.
struct Affine : Module {
  Affine(std::int64_t in, std::int64_t out, bool has_bias = true, std::string type = "Linear")
      : Module(std::move(type)) {
    weight = register_parameter("weight", oracle_ramp({out, in}, 5.0, 1.0).detach());
    bias = register_parameter("bias", has_bias ? oracle_ramp({out}, 3.0, 0.5).detach() : Tensor());
  }
  Tensor forward(const Tensor& x) override {
    const Tensor y = mm(x, weight.t());
    return bias.defined() ? y + bias : y;
  }
  Tensor weight, bias;
};

// The oracle's Net: features = Sequential(conv-like, BatchNorm2d, ReLU, MaxPool2d),
// head = Sequential(Flatten, linear-like without bias).
struct Net : Module {
  Net() : Module("Net") {
    features =
        register_module("features", std::make_shared<nn::Sequential>(Affine(1, 4, true, "Conv2d"), nn::BatchNorm2d(4),
                                                                     nn::ReLU(), nn::MaxPool2d(2)));
    head = register_module("head", std::make_shared<nn::Sequential>(nn::Flatten(), Affine(64, 10, false)));
  }
  std::shared_ptr<nn::Sequential> features, head;
};

template <class Named>
std::vector<std::string> names(const Named& named) {
  std::vector<std::string> out;
  for (const auto& [name, value] : named) out.push_back(name);
  return out;
}

nn::Sequential oracle_mlp() { return nn::Sequential(Affine(4, 3), nn::ReLU(), Affine(3, 2)); }

// ---- week03.named_parameters -------------------------------------------------------------------------------------
TEST(week03_named_parameters, DottedNamesInPyTorchOrder) {
  Net net;
  EXPECT_EQ(names(net.named_parameters()), oracle_strings("registry", "parameters"));
}

TEST(week03_named_parameters, NamedModulesStartWithTheEmptyNameAndGoDepthFirst) {
  Net net;
  EXPECT_EQ(names(net.named_modules()), oracle_strings("registry", "modules"));
  EXPECT_EQ(net.named_modules()[0].second, &net);
}

TEST(week03_named_parameters, BuffersAndChildren) {
  Net net;
  EXPECT_EQ(names(net.named_buffers()), oracle_strings("registry", "buffers"));
  EXPECT_EQ(names(net.named_children()), oracle_strings("registry", "children"));
}

TEST(week03_named_parameters, ParametersAreTheModulesOwnTensors) {
  Net net;
  const auto params = net.named_parameters();
  const auto& conv = dynamic_cast<Affine&>((*net.features)[0]);
  EXPECT_EQ(&params[0].second.impl(), &conv.weight.impl());
  EXPECT_EQ(net.parameters().size(), params.size());
}

TEST(week03_named_parameters, SharedModuleAndParameterAppearOnce) {
  auto shared = std::make_shared<Affine>(2, 2);
  nn::Sequential tied(shared, nn::ReLU(), shared);
  EXPECT_EQ(names(tied.named_parameters()), oracle_strings("tied", "parameters"));
  EXPECT_EQ(names(tied.named_modules()), oracle_strings("tied", "modules"));
}

TEST(week03_named_parameters, NonRecursiveListsOnlyOwnParameters) {
  Net net;
  EXPECT_TRUE(net.named_parameters(false).empty());
  auto& conv = (*net.features)[0];
  EXPECT_EQ(names(conv.named_parameters(false)), (std::vector<std::string>{"weight", "bias"}));
}

TEST(week03_named_parameters, PrefixIsPrepended) {
  Net net;
  const auto named = net.features->named_modules("features");
  EXPECT_EQ(named[0].first, "features");
  EXPECT_EQ(named[1].first, "features.0");
}

// A layer that reuses the weight it is given: tied weights, like a decoder sharing its encoder's.
struct TiedAffine : Module {
  explicit TiedAffine(const Tensor& shared_weight) : Module("Linear") {
    weight = register_parameter("weight", shared_weight);
    bias = register_parameter("bias", zeros({2}));
  }
  Tensor weight, bias;
};

// m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2)); m[1].weight = m[0].weight
// [n for n, _ in m.named_parameters()] -> ['0.weight', '0.bias', '1.bias']
TEST(week03_named_parameters, AWeightTiedBetweenTwoLayersAppearsOnce) {
  auto encoder = std::make_shared<Affine>(2, 2);
  nn::Sequential net(encoder, std::make_shared<TiedAffine>(encoder->weight));
  EXPECT_EQ(names(net.named_parameters()), (std::vector<std::string>{"0.weight", "0.bias", "1.bias"}))
      << "a tensor registered in two different modules must be listed once, under its first name: skip a "
         "parameter whose tensor was already listed, not only a module already visited";
  EXPECT_EQ(net.parameters().size(), 3u) << "parameters() must not hand the optimizer a tied weight twice";
}

// ---- week03.state_dict
// ------------------------------------------------------------------------------------------------
TEST(week03_state_dict, KeysIncludeParametersThenBuffersPerModule) {
  Net net;
  EXPECT_EQ(net.state_dict().keys(), oracle_strings("registry", "state_dict"));
}

TEST(week03_state_dict, TiedModulesAppearUnderEveryName) {
  auto shared = std::make_shared<Affine>(2, 2);
  nn::Sequential tied(shared, nn::ReLU(), shared);
  EXPECT_EQ(tied.state_dict().keys(), oracle_strings("tied", "state_dict"));
}

TEST(week03_state_dict, ValuesAreDetachedAndShareStorage) {
  auto mlp = oracle_mlp();
  const auto sd = mlp.state_dict();
  const Tensor& w = sd.at("0.weight");
  EXPECT_FALSE(w.requires_grad());
  EXPECT_EQ(w.data_ptr(), dynamic_cast<Affine&>(mlp[0]).weight.data_ptr());
}

TEST(week03_state_dict, LoadCopiesIntoTheExistingTensors) {
  auto a = oracle_mlp();
  auto b = oracle_mlp();
  auto& wb = dynamic_cast<Affine&>(b[2]).weight;
  const void* storage = wb.data_ptr();
  {
    NoGradGuard g;
    dynamic_cast<Affine&>(a[2]).weight.fill_(0.5);
  }
  const auto result = b.load_state_dict(a.state_dict());
  EXPECT_TRUE(result.missing_keys.empty());
  EXPECT_TRUE(result.unexpected_keys.empty());
  EXPECT_EQ(wb.data_ptr(), storage);  // same tensor, new values
  EXPECT_TRUE(equal(wb.detach(), full({2, 3}, 0.5)));
  EXPECT_TRUE(wb.is_leaf());
  EXPECT_TRUE(wb.requires_grad());
  EXPECT_FALSE(wb.grad_fn());
}

TEST(week03_state_dict, LoadsBuffers) {
  nn::BatchNorm2d a(3), b(3);
  {
    NoGradGuard g;
    a.running_mean.fill_(2.0);
    a.num_batches_tracked.fill_(7);
  }
  b.load_state_dict(a.state_dict());
  EXPECT_TRUE(equal(b.running_mean, full({3}, 2.0)));
  EXPECT_EQ(b.num_batches_tracked.item<std::int64_t>(), 7);
}

TEST(week03_state_dict, MissingAndUnexpectedKeysInOneError) {
  auto mlp = oracle_mlp();
  nn::StateDict sd = mlp.state_dict();
  sd.erase("2.bias");
  sd.insert("2.scale", zeros({2}));
  sd.insert("extra", zeros({1}));
  // PyTorch's dict had "extra" before "2.scale"; the message lists the root's unexpected keys first.
  expect_oracle_error([&] { mlp.load_state_dict(sd); }, "load_missing_unexpected");
}

TEST(week03_state_dict, SizeMismatchNamesTheKeyAndBothShapes) {
  auto mlp = oracle_mlp();
  nn::StateDict sd = mlp.state_dict();
  sd.insert("0.weight", zeros({3, 5}));
  expect_oracle_error([&] { mlp.load_state_dict(sd); }, "load_size_mismatch");
  sd.erase("0.bias");
  expect_oracle_error([&] { mlp.load_state_dict(sd); }, "load_all_errors");
}

TEST(week03_state_dict, NonStrictReportsKeysButStillRejectsShapes) {
  auto mlp = oracle_mlp();
  nn::StateDict sd = mlp.state_dict();
  sd.erase("2.bias");
  sd.insert("extra", zeros({1}));
  sd.insert("2.scale", zeros({2}));
  const auto r = mlp.load_state_dict(sd, false);
  EXPECT_EQ(r.missing_keys, oracle_strings("load_non_strict", "missing"));
  EXPECT_EQ(r.unexpected_keys, oracle_strings("load_non_strict", "unexpected"));
  nn::StateDict bad = mlp.state_dict();
  bad.insert("0.weight", zeros({3, 5}));
  expect_oracle_error([&] { mlp.load_state_dict(bad, false); }, "load_non_strict_mismatch");
}

TEST(week03_state_dict, ErrorNamesTheModuleType) {
  Affine lin(2, 3);
  nn::StateDict sd;
  sd.insert("weight", zeros({3, 2}));
  expect_oracle_error([&] { lin.load_state_dict(sd); }, "load_linear_error");
}

TEST(week03_state_dict, RoundTripRestoresOutputs) {
  auto a = oracle_mlp();
  const Tensor x = oracle_ramp({5, 4}).detach();
  const Tensor before = a(x).detach();
  const auto saved = a.state_dict();
  nn::StateDict copy;
  for (const auto& [k, v] : saved) copy.insert(k, v.clone());
  for (const Tensor& p : a.parameters()) nn::init::zeros_(p);
  EXPECT_FALSE(allclose(a(x).detach(), before));
  a.load_state_dict(copy);
  EXPECT_TRUE(allclose(a(x).detach(), before));
}

// A module with a child and its own parameter and buffer, registered after the child.
struct Wrapper : Module {
  Wrapper() : Module("Wrapper") {
    inner = register_module("inner", std::make_shared<Affine>(2, 2));
    scale = register_parameter("scale", ones({2}));
    count = register_buffer("count", zeros({1}));
  }
  std::shared_ptr<Affine> inner;
  Tensor scale, count;
};

// class W(nn.Module): inner = nn.Linear(2, 2), then scale = nn.Parameter(torch.ones(2)), register_buffer('count', ...)
// list(W().state_dict().keys()) -> ['scale', 'count', 'inner.weight', 'inner.bias']
TEST(week03_state_dict, AModulesOwnEntriesComeBeforeItsChildrens) {
  Wrapper w;
  EXPECT_EQ(w.state_dict().keys(), (std::vector<std::string>{"scale", "count", "inner.weight", "inner.bias"}))
      << "each module saves its own parameters, then its own buffers, and only then its children's entries, "
         "whatever order they were registered in";
}

struct WithRunningStat : Module {
  WithRunningStat() : Module("WithRunningStat") {
    weight = register_parameter("weight", ones({2}));
    kept = register_buffer("kept", zeros({2}));
    scratch = register_buffer("scratch", zeros({2}), /*persistent=*/false);
  }
  Tensor weight, kept, scratch;
};

// m.register_buffer('scratch', torch.zeros(2), persistent=False) -> list(m.state_dict()) has no 'scratch'
TEST(week03_state_dict, ANonPersistentBufferIsLeftOut) {
  WithRunningStat m;
  EXPECT_EQ(m.state_dict().keys(), (std::vector<std::string>{"weight", "kept"}))
      << "a buffer registered with persistent = false belongs to the module but not to its state dict";
}

// ---- week03.sequential
// -----------------------------------------------------------------------------------------------
TEST(week03_sequential, AppliesModulesInOrder) {
  auto mlp = oracle_mlp();
  const Tensor x = oracle_ramp({2, 4}).detach();
  const Tensor expected = relu(x.mm(oracle_ramp({3, 4}, 5.0, 1.0).detach().t()) + oracle_ramp({3}, 3.0, 0.5).detach())
                              .mm(oracle_ramp({2, 3}, 5.0, 1.0).detach().t()) +
                          oracle_ramp({2}, 3.0, 0.5).detach();
  EXPECT_TRUE(allclose(mlp(x), expected, 1e-5, 1e-6));
}

TEST(week03_sequential, OrderMattersNotJustTheSet) {
  nn::Sequential relu_then_neg(nn::ReLU(), Affine(1, 1, false, "Neg"));
  dynamic_cast<Affine&>(relu_then_neg[1]).weight.detach().fill_(-1.0);
  const Tensor y = relu_then_neg(tensor({{-2.0f}, {3.0f}}));
  EXPECT_TRUE(equal(y.detach(), tensor({{0.0f}, {-3.0f}})));
}

TEST(week03_sequential, EmptySequentialReturnsItsInput) {
  nn::Sequential empty_seq;
  const Tensor x = oracle_ramp({3});
  EXPECT_TRUE(equal(empty_seq(x), x));
}

TEST(week03_sequential, RunsEachModulesHooks) {
  nn::Sequential seq{nn::ReLU(), nn::ReLU()};
  int calls = 0;
  seq[1].register_forward_hook([&](Module&, const Tensor&, const Tensor&) -> std::optional<Tensor> {
    ++calls;
    return std::nullopt;
  });
  seq(zeros({2}));
  EXPECT_EQ(calls, 1);
}

TEST(week03_sequential, GradientsFlowThroughEveryLayer) {
  auto mlp = oracle_mlp();
  mlp(oracle_ramp({2, 4}).detach()).sum().backward();
  for (const auto& [name, p] : mlp.named_parameters()) EXPECT_TRUE(p.grad().defined()) << name;
}

// ---- week03.dropout
// -------------------------------------------------------------------------------------------------------
TEST(week03_dropout, ProbabilityOutsideZeroOneIsAValueError) {
  // PyTorch's message for p = 1.5 came from nn.Dropout(1.5); F.dropout words it the same way.
  expect_oracle_error([] { nn::F::dropout(ones({3}), 1.5); }, "dropout_p_high");
  expect_oracle_error([] { nn::F::dropout(ones({3}), -0.1); }, "dropout_p_negative");
}

TEST(EngineModules, DropoutLayerChecksItsProbabilityWhenBuilt) {
  expect_oracle_error([] { nn::Dropout d(1.5); }, "dropout_p_high");
}

TEST(week03_dropout, EvalModeReturnsTheInputItself) {
  nn::Dropout d(0.5);
  d.eval();
  const Tensor x = oracle_ramp({100});
  const Tensor y = d(x);
  EXPECT_EQ(&y.impl(), &x.impl());
}

// Study note 003: "nn.functional.dropout은 평가 / 예측 모드를 신경 쓰지 않습니다" (the functional
// form does not care about eval mode). F.dropout's `training` defaults to true; only the module
// passes its own mode. A model that calls the function in its forward keeps dropping after eval().
TEST(week03_dropout, TheFunctionalFormIgnoresEvalUnlessToldTheMode) {
  struct FunctionalNet : Module {
    FunctionalNet() : Module("FunctionalNet") {}
    Tensor forward(const Tensor& x) override { return nn::F::dropout(x, 0.5); }  // the mistake
  };
  struct ModeAwareNet : Module {
    ModeAwareNet() : Module("ModeAwareNet") {}
    Tensor forward(const Tensor& x) override { return nn::F::dropout(x, 0.5, is_training()); }
  };
  manual_seed(13);
  const Tensor x = ones({2000});
  FunctionalNet functional_net;
  ModeAwareNet aware;
  functional_net.eval();
  aware.eval();
  const Tensor dropped = functional_net(x);
  const double zeros_seen = eq(dropped, 0).sum().item<double>();
  EXPECT_GT(zeros_seen, 800);  // about half of 2000 are still dropped in eval mode
  EXPECT_LT(zeros_seen, 1200);
  EXPECT_TRUE(equal(aware(x), x));
  EXPECT_EQ(&aware(x).impl(), &x.impl());  // not training: the input itself
}

TEST(week03_dropout, TrainingZeroesAboutPAndScalesSurvivors) {
  manual_seed(11);
  nn::Dropout d(0.3);
  const Tensor x = ones({200000});
  const Tensor y = d(x);
  const double zero_fraction = mean(eq(y, 0.0).to(kFloat32)).item<double>();
  // Binomial(200000, 0.3): standard deviation of the fraction is about 0.001.
  EXPECT_NEAR(zero_fraction, 0.3, 0.005);
  const Tensor kept = masked_select(y, ne(y, 0.0));
  EXPECT_TRUE(allclose(kept, full_like(kept, 1.0 / 0.7)));
  EXPECT_NEAR(mean(y).item<double>(), 1.0, 0.01);  // the expectation is unchanged
}

TEST(week03_dropout, GradientUsesTheSameMaskAndScale) {
  manual_seed(12);
  const Tensor x = oracle_ramp({1000});
  const Tensor y = nn::F::dropout(x, 0.25, true);
  y.sum().backward();
  const Tensor expected = ne(y.detach(), 0.0).to(kFloat32) * (1.0 / 0.75);
  EXPECT_TRUE(allclose(x.grad(), expected));
}

TEST(week03_dropout, ZeroAndOne) {
  const Tensor x = oracle_ramp({50});
  EXPECT_TRUE(equal(nn::F::dropout(x, 0.0, true), x));
  EXPECT_TRUE(equal(nn::F::dropout(x, 1.0, true).detach(), zeros({50})));
}

TEST(week03_dropout, SeededGeneratorsGiveTheSameMask) {
  Generator g1(5), g2(5);
  const Tensor x = ones({64});
  EXPECT_TRUE(equal(nn::F::dropout(x, 0.5, true, &g1), nn::F::dropout(x, 0.5, true, &g2)));
}

}  // namespace
}  // namespace kindling::testing
