// Week 5's optimizers, schedules and gradient clipping against PyTorch 1.13
// (tools/oracle/week05.py): 100-step trajectories, 100-step rate sequences, norms.

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>
#include <kindling/kindling.hpp>
#include <kindling/training.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;
using namespace kindling::optim;
using namespace kindling::optim::lr_scheduler;

namespace {

// The gradient the oracle set before step t for parameter k: float(sin(0.1 t + 0.3 i + 0.5 k)).
Tensor oracle_gradient(const Tensor& p, int t, int k) {
  std::vector<float> g(static_cast<std::size_t>(p.numel()));
  for (std::size_t i = 0; i < g.size(); ++i)
    g[i] = static_cast<float>(std::sin(0.1 * t + 0.3 * static_cast<double>(i) + 0.5 * k));
  return tensor(g).reshape(p.sizes());
}

Options options_from(const nlohmann::json& o) {
  Options out;
  for (const auto& [key, value] : o.items()) {
    if (key == "betas") {
      out.set("beta1", value.at(0).get<double>()).set("beta2", value.at(1).get<double>());
    } else if (value.is_boolean()) {
      out.set(key, value.get<bool>() ? 1 : 0);
    } else {
      out.set(key, value.get<double>());
    }
  }
  return out;
}

// Replays every "optim" case of `kind` (SGD, Adam or AdamW): 100 steps with the
// oracle's gradients, comparing the parameters every 10 steps.
void check_trajectories(const std::string& kind) {
  int n = 0;
  for (const auto& c : oracle_json("optim")) {
    if (c.at("optimizer").get<std::string>() != kind) continue;
    ++n;
    SCOPED_TRACE(c.at("name").get<std::string>());
    std::vector<Tensor> params;
    for (const auto& v : c.at("init")) params.push_back(tensor_from_json(v).requires_grad_());
    std::vector<ParamGroup> groups;
    for (const auto& g : c.at("groups")) {
      ParamGroup group;
      for (const auto& i : g.at("params")) group.params.push_back(params.at(i.get<std::size_t>()));
      group.options = options_from(g.at("options"));
      groups.push_back(group);
    }
    std::unique_ptr<Optimizer> opt;
    if (kind == "SGD") opt = std::make_unique<SGD>(groups, SGD::Config{});
    if (kind == "Adam") opt = std::make_unique<Adam>(groups, Adam::Config{});
    if (kind == "AdamW") opt = std::make_unique<AdamW>(groups);
    if (kind == "RMSprop") opt = std::make_unique<RMSprop>(groups, RMSprop::Config{});
    if (kind == "Adagrad") opt = std::make_unique<Adagrad>(groups, Adagrad::Config{});
    const int steps = c.at("steps").get<int>();
    for (int t = 1; t <= steps; ++t) {
      for (std::size_t k = 0; k < params.size(); ++k)
        params[k].mutable_grad() = oracle_gradient(params[k], t, static_cast<int>(k));
      opt->step();
      const auto& traj = c.at("trajectory");
      if (!traj.contains(std::to_string(t))) continue;
      SCOPED_TRACE("after step " + std::to_string(t));
      for (std::size_t k = 0; k < params.size(); ++k)
        expect_values(params[k].detach(), values_from_json(traj.at(std::to_string(t)).at(k)), 1e-5, 1e-6);
      if (::testing::Test::HasFailure()) return;  // one diverged step says it all
    }
  }
  EXPECT_GT(n, 0);
}

std::vector<double> oracle_lrs(const std::string& name) {
  for (const auto& c : oracle_json("schedulers"))
    if (c.at("name") == name) return c.at("lrs").get<std::vector<double>>();
  ADD_FAILURE() << "no scheduler case " << name;
  return {};
}

// An optimizer that only counts its steps: the schedule tests must not depend on
// the week05.sgd task.
struct CountingOptimizer : Optimizer {
  explicit CountingOptimizer(const Tensor& p) : Optimizer(Options().set("lr", 0.1)) { add_param_group({{p}, {}}); }
  void update() override {}
};

// Steps `make`'s schedule 100 times (optimizer.step() first) and compares every rate.
template <class Make>
void check_schedule(const std::string& name, Make make) {
  SCOPED_TRACE(name);
  const std::vector<double> want = oracle_lrs(name);
  ASSERT_EQ(want.size(), 101u);
  const Tensor p = zeros({1}).requires_grad_();
  CountingOptimizer opt(p);
  auto sched = make(opt);
  EXPECT_NEAR(opt.param_groups()[0].options["lr"], want[0], 1e-12 + 1e-9 * std::abs(want[0])) << "epoch 0";
  for (std::size_t s = 1; s < want.size(); ++s) {
    opt.step();
    sched->step();
    const double got = sched->get_last_lr()[0];
    ASSERT_NEAR(got, want[s], 1e-12 + 1e-9 * std::abs(want[s])) << "after step " << s;
    EXPECT_EQ(opt.param_groups()[0].options["lr"], got);
  }
}

}  // namespace

// ---- week05.sgd / week05.adam --------------------------------------------------------------------------------------
namespace {
// optimizer.state_dict() after 3 steps against PyTorch 1.13's (tools/oracle/week05.py): the state
// keyed by parameter index, only for parameters that had a gradient; each buffer by PyTorch's
// name, with its values; Adam's step; and param_groups with their options and their parameters as
// indices. The names and the step are the student's (the step stores them), the layout is the
// engine's. PyTorch's flags that choose its own implementation (foreach, capturable,
// differentiable, fused) have no counterpart in the kit and are not compared.
void check_state_dicts(const std::string& kind) {
  int n = 0;
  for (const auto& c : oracle_json("optimizer_state_dicts")) {
    if (c.at("optimizer").get<std::string>() != kind) continue;
    ++n;
    SCOPED_TRACE(c.at("name").get<std::string>());
    std::vector<Tensor> params;
    for (const auto& v : c.at("init")) params.push_back(tensor_from_json(v).requires_grad_());
    std::vector<ParamGroup> groups;
    for (const auto& g : c.at("groups")) {
      ParamGroup group;
      for (const auto& i : g.at("params")) group.params.push_back(params.at(i.get<std::size_t>()));
      group.options = options_from(g.at("options"));
      groups.push_back(group);
    }
    std::unique_ptr<Optimizer> opt;
    if (kind == "SGD") opt = std::make_unique<SGD>(groups, SGD::Config{});
    if (kind == "Adam") opt = std::make_unique<Adam>(groups, Adam::Config{});
    if (kind == "AdamW") opt = std::make_unique<AdamW>(groups);
    for (int t = 1; t <= c.at("steps").get<int>(); ++t) {
      for (std::size_t k = 0; k < 2; ++k)  // the third parameter never gets a gradient
        params[k].mutable_grad() = oracle_gradient(params[k], t, static_cast<int>(k));
      opt->step();
    }
    const OptimizerState sd = opt->state_dict();
    std::vector<std::int64_t> have, want;
    for (const auto& [index, st] : sd.state) have.push_back(index);
    for (const auto& [index, st] : c.at("state").items()) want.push_back(std::stoll(index));
    std::sort(want.begin(), want.end());
    ASSERT_EQ(have, want) << "the parameter indices in state: a parameter that never had a gradient has no state, "
                             "and the indices count through every group's parameters in order";
    for (const auto& [index, st] : c.at("state").items()) {
      SCOPED_TRACE("state[" + index + "]");
      const ParamState& mine = sd.state.at(std::stoll(index));
      std::vector<std::string> names, their_names;
      for (const auto& [name, t] : mine.buffers) names.push_back(name);
      for (const auto& [name, v] : st.at("buffers").items()) their_names.push_back(name);
      std::sort(their_names.begin(), their_names.end());
      ASSERT_EQ(names, their_names) << "the state's buffers, by PyTorch's names";
      for (const auto& [name, v] : st.at("buffers").items())
        expect_values(mine.buffers.at(name), values_from_json(v), 1e-5, 1e-7);
      if (st.contains("step")) {
        EXPECT_EQ(mine.step, st.at("step").get<double>()) << "Adam's step count";
      }
    }
    const auto& their_groups = c.at("param_groups");
    ASSERT_EQ(sd.param_groups.size(), their_groups.size());
    for (std::size_t g = 0; g < their_groups.size(); ++g) {
      SCOPED_TRACE("param_groups[" + std::to_string(g) + "]");
      const PackedGroup& mine = sd.param_groups[g];
      EXPECT_EQ(mine.params, their_groups[g].at("params").get<std::vector<std::int64_t>>());
      for (const auto& [key, value] : their_groups[g].items()) {
        if (key == "params" || key == "foreach" || key == "capturable" || key == "differentiable" || key == "fused")
          continue;
        if (key == "betas") {
          EXPECT_EQ(mine.options["beta1"], value.at(0).get<double>());
          EXPECT_EQ(mine.options["beta2"], value.at(1).get<double>());
        } else {
          ASSERT_TRUE(mine.options.has(key)) << "option " << key;
          EXPECT_EQ(mine.options[key], value.is_boolean() ? (value.get<bool>() ? 1.0 : 0.0) : value.get<double>())
              << "option " << key;
        }
      }
    }
  }
  EXPECT_GT(n, 0);
}
}  // namespace

TEST(week05_sgd, TrajectoriesMatchPyTorchOver100Steps) { check_trajectories("SGD"); }
TEST(week05_sgd, StateDictHasPyTorchsLayoutAndValues) { check_state_dicts("SGD"); }

TEST(week05_sgd, SkipsParametersWithoutAGradientAndKeepsMomentumPerParameter) {
  const Tensor a = tensor({1.0f, 2.0f}).requires_grad_(), b = tensor({3.0f}).requires_grad_();
  SGD opt({a, b}, SGD::Config{.lr = 0.5, .momentum = 0.9});
  a.mutable_grad() = tensor({1.0f, -1.0f});
  opt.step();
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{0.5f, 2.5f}));
  EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{3.0f}));
  EXPECT_EQ(opt.state_size(), 1u);
  opt.step();  // buf = 0.9 * 1 + 1 = 1.9
  EXPECT_FLOAT_EQ(a.to_vector<float>()[0], 0.5f - 0.5f * 1.9f);
}

// p = torch.tensor([1.0], requires_grad=True); o = torch.optim.SGD([p], lr=0.1, weight_decay=0.1, maximize=True)
// p.grad = torch.tensor([0.5]); o.step(); p.item() -> 1.0399999618530273
TEST(week05_sgd, MaximizeNegatesTheGradientBeforeWeightDecayIsAdded) {
  const Tensor p = tensor({1.0f}).requires_grad_();
  SGD opt({p}, SGD::Config{.lr = 0.1, .weight_decay = 0.1, .maximize = true});
  p.mutable_grad() = tensor({0.5f});
  opt.step();
  EXPECT_NEAR(p.item<float>(), 1.04f, 1e-6)
      << "with maximize, d = -g + weight_decay * p (the decay still pulls p towards 0); negating after adding the "
         "decay gives d = -(g + weight_decay * p), and p = 1.06";
}

TEST(week05_adam, AdamTrajectoriesMatchPyTorchOver100Steps) { check_trajectories("Adam"); }
TEST(week05_adam, AdamWTrajectoriesMatchPyTorchOver100Steps) { check_trajectories("AdamW"); }
TEST(week05_adam, StateDictHasPyTorchsLayoutAndValues) {
  check_state_dicts("Adam");
  check_state_dicts("AdamW");
}

// p = torch.tensor([1.0], requires_grad=True); o = torch.optim.Adam([p], lr=0.1, eps=1.0)
// p.grad = torch.tensor([1.0]); o.step(); p.item() -> 0.949999988079071
TEST(week05_adam, EpsIsAddedAfterDividingBySqrtOfTheBiasCorrection) {
  const Tensor p = tensor({1.0f}).requires_grad_();
  Adam opt({p}, Adam::Config{.lr = 0.1, .eps = 1.0});
  p.mutable_grad() = tensor({1.0f});
  opt.step();
  EXPECT_NEAR(p.item<float>(), 0.95f, 1e-6)
      << "denom = sqrt(v) / sqrt(1 - beta2^t) + eps: after the first step m / bc1 = 1 and sqrt(v) / sqrt(bc2) = 1, "
         "so p moves by lr / (1 + eps) = 0.05; (sqrt(v) + eps) / sqrt(bc2) makes eps about 32 times too large";
}

TEST(week05_adam, DecoupledDecayShrinksAParameterWithoutGradientSignal) {
  // A zero gradient: Adam's L2 term goes through the moments (a normalised step of
  // about lr), AdamW's decay only multiplies the weight by 1 - lr * wd.
  const Tensor a = tensor({2.0f}).requires_grad_(), w = tensor({2.0f}).requires_grad_();
  Adam adam({a}, Adam::Config{.lr = 0.1, .weight_decay = 0.1});
  AdamW adamw({w}, Adam::Config{.lr = 0.1, .weight_decay = 0.1});
  a.mutable_grad() = zeros({1});
  w.mutable_grad() = zeros({1});
  adam.step();
  adamw.step();
  EXPECT_NEAR(a.item<float>(), 2.0f - 0.1f, 1e-5);
  EXPECT_NEAR(w.item<float>(), 2.0f * (1 - 0.1f * 0.1f), 1e-6);
}

// A parameter of 200,003 elements is split across threads (detail::for_ranges, from
// 64K elements on); three steps with 1 and with 3 threads must give the same bits, or
// a range was skipped, done twice or cut in the wrong place.
template <class Make>
void expect_same_bits_on_any_thread_count(Make make) {
  struct RestoreThreads {
    int saved = get_num_threads();
    ~RestoreThreads() { set_num_threads(saved); }
  } restore;  // also when make() or step() throws
  std::vector<std::vector<float>> results;
  for (int threads : {1, 3}) {
    set_num_threads(threads);
    const std::int64_t n = 200003;
    const Tensor p = sin(arange(0, n, 1, kFloat32) * 1e-5).requires_grad_();
    auto opt = make(p);
    for (int t = 1; t <= 3; ++t) {
      p.mutable_grad() = cos(arange(0, n, 1, kFloat32) * (0.37 * t));
      opt->step();
    }
    results.push_back(p.detach().to_vector<float>());
  }
  ASSERT_EQ(results[0].size(), results[1].size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < results[0].size(); ++i) differ += results[0][i] != results[1][i];
  EXPECT_EQ(differ, 0u) << "elements that differ between 1 and 3 threads";
}

TEST(week05_sgd, LargeParametersGiveTheSameBitsOnAnyThreadCount) {
  expect_same_bits_on_any_thread_count([](const Tensor& p) {
    return std::make_unique<SGD>(std::vector<Tensor>{p},
                                 SGD::Config{.lr = 0.1, .momentum = 0.9, .weight_decay = 0.01, .nesterov = true});
  });
  expect_same_bits_on_any_thread_count(
      [](const Tensor& p) { return std::make_unique<SGD>(std::vector<Tensor>{p}, SGD::Config{.lr = 0.1}); });
}

TEST(week05_adam, LargeParametersGiveTheSameBitsOnAnyThreadCount) {
  expect_same_bits_on_any_thread_count([](const Tensor& p) {
    return std::make_unique<Adam>(std::vector<Tensor>{p},
                                  Adam::Config{.lr = 0.01, .weight_decay = 0.1, .amsgrad = true});
  });
  expect_same_bits_on_any_thread_count([](const Tensor& p) {
    return std::make_unique<AdamW>(std::vector<Tensor>{p}, Adam::Config{.lr = 0.01, .weight_decay = 0.1});
  });
}

// ---- the optimizers' common part (given)
// ------------------------------------------------------------------------------
TEST(EngineOptimizers, RMSpropTrajectoriesMatchPyTorchOver100Steps) { check_trajectories("RMSprop"); }
TEST(EngineOptimizers, AdagradTrajectoriesMatchPyTorchOver100Steps) { check_trajectories("Adagrad"); }

TEST(EngineOptimizers, ArgumentErrorsAreThoseOfPyTorch) {
  const Tensor p = zeros({1}).requires_grad_();
  expect_error<ValueError>([&] { SGD({p}, SGD::Config{.lr = -0.1}); }, "Invalid learning rate: -0.1");
  expect_error<ValueError>([&] { SGD({p}, SGD::Config{.lr = 0.1, .nesterov = true}); },
                           "Nesterov momentum requires a momentum and zero dampening");
  expect_error<ValueError>(
      [&] {
        Adam({p}, Adam::Config{.betas = {1.0, 0.999}});
      },
      "Invalid beta parameter at index 0: 1.0");
  expect_error<ValueError>([&] { Adam({p}, Adam::Config{.eps = -1e-8}); }, "Invalid epsilon value: -1e-08");
  SGD opt({p}, SGD::Config{.lr = 0.1});
  expect_error<ValueError>(
      [&] {
        opt.add_param_group({{p}, {}});
      },
      "some parameters appear in more than one parameter group");
}

TEST(EngineOptimizers, GroupsTakeTheDefaultsTheyDoNotSet) {
  const Tensor a = zeros({1}).requires_grad_(), b = zeros({1}).requires_grad_();
  SGD opt({a}, SGD::Config{.lr = 0.1, .momentum = 0.9});
  opt.add_param_group({{b}, Options().set("lr", 0.01)});
  EXPECT_EQ(opt.param_groups()[1].options["lr"], 0.01);
  EXPECT_EQ(opt.param_groups()[1].options["momentum"], 0.9);
}

TEST(EngineOptimizers, ZeroGradKeepsTheTensorByDefaultAsPyTorch113) {
  const Tensor p = zeros({2}).requires_grad_();
  SGD opt({p}, SGD::Config{.lr = 0.1});
  p.mutable_grad() = tensor({1.0f, 2.0f});
  opt.zero_grad();
  ASSERT_TRUE(p.grad().defined());
  EXPECT_EQ(p.grad().to_vector<float>(), (std::vector<float>{0.0f, 0.0f}));
  opt.zero_grad(/*set_to_none=*/true);
  EXPECT_FALSE(p.grad().defined());
}

// ---- week05.cosine_schedule
// ------------------------------------------------------------------------------------------
TEST(week05_cosine_schedule, CosineAnnealingMatchesPyTorch) {
  check_schedule("cosine", [](Optimizer& o) { return std::make_unique<CosineAnnealingLR>(o, 50, 0.001); });
  check_schedule("cosine_no_min", [](Optimizer& o) { return std::make_unique<CosineAnnealingLR>(o, 100); });
}

TEST(week05_cosine_schedule, LinearWarmupMatchesPyTorch) {
  check_schedule("linear", [](Optimizer& o) { return std::make_unique<LinearLR>(o, 0.1, 1.0, 10); });
  check_schedule("linear_decay", [](Optimizer& o) { return std::make_unique<LinearLR>(o, 1.0, 0.0, 100); });
}

// o = torch.optim.SGD([p], lr=0.1); s = torch.optim.lr_scheduler.LinearLR(o, 0.5, 1.0, 4); o.step(); s.step(10)
// s.get_last_lr() -> [0.1] (the closed form stops at end_factor once the epoch passes total_iters)
TEST(week05_cosine_schedule, LinearClosedFormStopsAtTheEndFactorPastTotalIters) {
  const Tensor p = zeros({1}).requires_grad_();
  CountingOptimizer opt(p);
  LinearLR sched(opt, 0.5, 1.0, 4);
  opt.step();
  sched.step(10);
  EXPECT_NEAR(sched.get_last_lr()[0], 0.1, 1e-12)
      << "LinearLR's closed form for epoch 10 > total_iters 4 is base * end_factor: use min(total_iters, epoch), "
         "or the factor keeps growing past end_factor";
  sched.step(2);
  EXPECT_NEAR(sched.get_last_lr()[0], 0.075, 1e-12) << "epoch 2 of 4: base * (0.5 + 0.5 * 2 / 4)";
}

// CosineAnnealingLR(SGD(lr=0.1), 10): step(3) -> [0.07938926261462366] (the closed form, in doubles)
TEST(week05_cosine_schedule, CosineClosedFormDividesInFloatingPoint) {
  const Tensor p = zeros({1}).requires_grad_();
  CountingOptimizer opt(p);
  CosineAnnealingLR sched(opt, 10);
  opt.step();
  sched.step(3);
  EXPECT_NEAR(sched.get_last_lr()[0], 0.07938926261462366, 1e-12)
      << "epoch 3 of T_max 10 is 3/10 of the way: an integer division 3 / 10 gives 0 and the base rate";
}

// After two steps of CosineAnnealingLR(SGD(lr=0.1), 10), param_groups[0]['lr'] = 0.05, then one more
// step: get_last_lr() -> [0.04388530503664742] (the recursive form follows the rate it finds)
TEST(week05_cosine_schedule, CosineStepFollowsARateChangedFromOutside) {
  const Tensor p = zeros({1}).requires_grad_();
  CountingOptimizer opt(p);
  CosineAnnealingLR sched(opt, 10);
  for (int i = 0; i < 2; ++i) {
    opt.step();
    sched.step();
  }
  opt.param_groups()[0].options.set("lr", 0.05);
  opt.step();
  sched.step();
  EXPECT_NEAR(sched.get_last_lr()[0], 0.04388530503664742, 1e-12)
      << "step() scales the current rate (PyTorch's recursive form), so a rate set by hand or by another schedule "
         "carries on; the closed form from the base rate would ignore it";
}

TEST(week05_cosine_schedule, WarmupThenCosineThroughSequentialLR) {
  check_schedule("warmup_cosine", [](Optimizer& o) {
    auto warm = std::make_shared<LinearLR>(o, 0.01, 1.0, 10);
    auto cosine = std::make_shared<CosineAnnealingLR>(o, 90, 0.0);
    return std::make_unique<SequentialLR>(o, std::vector<std::shared_ptr<LRScheduler>>{warm, cosine},
                                          std::vector<std::int64_t>{10});
  });
}

// ---- the other schedules (given)
// ----------------------------------------------------------------------------------------
TEST(EngineSchedulers, StepMultiStepAndExponentialMatchPyTorch) {
  check_schedule("step", [](Optimizer& o) { return std::make_unique<StepLR>(o, 30, 0.1); });
  check_schedule("multistep", [](Optimizer& o) {
    return std::make_unique<MultiStepLR>(o, std::vector<std::int64_t>{30, 80}, 0.1);
  });
  check_schedule("exponential", [](Optimizer& o) { return std::make_unique<ExponentialLR>(o, 0.95); });
}

TEST(EngineSchedulers, ReduceLROnPlateauMatchesPyTorch) {
  for (const auto& c : oracle_json("plateau")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    ReduceLROnPlateau::Config cfg;
    const auto& o = c.at("options");
    cfg.mode = o.value("mode", cfg.mode);
    cfg.factor = o.value("factor", cfg.factor);
    cfg.patience = o.value("patience", cfg.patience);
    cfg.threshold = o.value("threshold", cfg.threshold);
    cfg.threshold_mode = o.value("threshold_mode", cfg.threshold_mode);
    cfg.cooldown = o.value("cooldown", cfg.cooldown);
    cfg.min_lr = o.value("min_lr", cfg.min_lr);
    const Tensor p = zeros({1}).requires_grad_();
    CountingOptimizer opt(p);
    ReduceLROnPlateau sched(opt, cfg);
    const auto lrs = c.at("lrs").get<std::vector<double>>();
    const auto metrics = c.at("metrics").get<std::vector<double>>();
    ASSERT_EQ(lrs.size(), metrics.size() + 1);
    EXPECT_EQ(sched.get_last_lr()[0], lrs[0]);
    for (std::size_t t = 0; t < metrics.size(); ++t) {
      opt.step();
      sched.step(metrics[t]);
      ASSERT_NEAR(sched.get_last_lr()[0], lrs[t + 1], 1e-15 + 1e-12 * lrs[t + 1]) << "after epoch " << t;
    }
  }
  expect_error_json(
      [] {
        const Tensor p = zeros({1}).requires_grad_();
        CountingOptimizer opt(p);
        ReduceLROnPlateau sched(opt, ReduceLROnPlateau::Config{.factor = 1.0});
      },
      oracle_json("plateau_factor_error"));
}

TEST(EngineSchedulers, WarnsWhenTheScheduleStepsBeforeTheOptimizer) {
  std::vector<std::string> seen;
  auto previous = set_warning_handler([&](const std::string& w) { seen.push_back(w); });
  const Tensor p = zeros({1}).requires_grad_();
  SGD opt({p}, SGD::Config{.lr = 0.1});
  StepLR sched(opt, 10);
  sched.step();  // before any opt.step()
  set_warning_handler(previous);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], oracle_json("scheduler_warning").at("message").get<std::string>());
}

// ---- week05.clip_grad_norm
// ---------------------------------------------------------------------------------------------
TEST(week05_clip_grad_norm, TotalNormAndClippedGradientsMatchPyTorch) {
  for (const auto& c : oracle_json("clip_grad_norm")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    std::vector<Tensor> params;
    for (const auto& g : c.at("grads")) {
      if (g.is_null()) {
        params.push_back(zeros({2}).requires_grad_());
        continue;
      }
      const Tensor grad = tensor_from_json(g);
      params.push_back(zeros_like(grad).requires_grad_());
      params.back().mutable_grad() = grad;
    }
    const auto& nt = c.at("norm_type");
    const double norm_type = nt.is_string() ? INFINITY : nt.get<double>();
    const Tensor total = nn::utils::clip_grad_norm_(params, c.at("max_norm").get<double>(), norm_type);
    EXPECT_NEAR(total.item<float>(), c.at("total_norm").get<double>(), 1e-5 * c.at("total_norm").get<double>());
    for (std::size_t k = 0; k < params.size(); ++k) {
      if (c.at("clipped").at(k).is_null()) {
        EXPECT_FALSE(params[k].grad().defined());
        continue;
      }
      expect_values(params[k].grad(), values_from_json(c.at("clipped").at(k)), 1e-5, 1e-7);
    }
  }
}

// a.grad = [3, -1, 4], b.grad = [2, 5]; torch.nn.utils.clip_grad_norm_([a, b], 10.0, -math.inf) -> tensor(1.)
// (the grads are unchanged)
// a.grad = [inf, 1]; clip_grad_norm_([a], 1.0, error_if_nonfinite=True) raises, and a.grad is still [inf, 1]
TEST(week05_clip_grad_norm, ANonFiniteTotalThrowsBeforeAnyGradientIsScaled) {
  const Tensor a = zeros({2}).requires_grad_();
  a.mutable_grad() = tensor({INFINITY, 1.0f});
  EXPECT_THROW((void)nn::utils::clip_grad_norm_({a}, 1.0, 2.0, /*error_if_nonfinite=*/true), Error);
  EXPECT_EQ(a.grad().to_vector<float>()[1], 1.0f)
      << "the gradients were scaled before the error: check that the total is finite first";
}

TEST(week05_clip_grad_norm, NegativeInfinityNormIsTheSmallestMagnitude) {
  const Tensor a = zeros({3}).requires_grad_(), b = zeros({2}).requires_grad_();
  a.mutable_grad() = tensor({3.0f, -1.0f, 4.0f});
  b.mutable_grad() = tensor({2.0f, 5.0f});
  const Tensor total = nn::utils::clip_grad_norm_({a, b}, 10.0, -INFINITY);
  EXPECT_EQ(total.item<float>(), 1.0f)
      << "norm_type -inf is min |g|: start the running minimum at +infinity (a start of 0 makes it always 0)";
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{3.0f, -1.0f, 4.0f}));
  EXPECT_EQ(b.grad().to_vector<float>(), (std::vector<float>{2.0f, 5.0f}));
}

// a.grad = [3, 0, 4], b.grad = [0, 5]; torch.nn.utils.clip_grad_norm_([a, b], 10.0, 0) -> tensor(2.)
// (per-gradient counts 2 and 1, then the count of non-zero norms; the grads are unchanged)
TEST(week05_clip_grad_norm, ZeroNormCountsTheNonZeros) {
  const Tensor a = zeros({3}).requires_grad_(), b = zeros({2}).requires_grad_();
  a.mutable_grad() = tensor({3.0f, 0.0f, 4.0f});
  b.mutable_grad() = tensor({0.0f, 5.0f});
  const Tensor total = nn::utils::clip_grad_norm_({a, b}, 10.0, 0.0);
  EXPECT_EQ(total.item<float>(), 2.0f) << "norm_type 0 counts the non-zero elements (no 1/q power: 1/0 is inf)";
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{3.0f, 0.0f, 4.0f}));
  EXPECT_EQ(b.grad().to_vector<float>(), (std::vector<float>{0.0f, 5.0f}));
}

TEST(week05_clip_grad_norm, NonFiniteNormIsAnErrorWhenAsked) {
  const Tensor p = zeros({2}).requires_grad_();
  p.mutable_grad() = tensor({1.0f, INFINITY});
  expect_error_json([&] { nn::utils::clip_grad_norm_({p}, 1.0, 2.0, /*error_if_nonfinite=*/true); },
                    oracle_json("clip_grad_norm_nonfinite"));
}

TEST(week05_clip_grad_norm, NoGradientsGiveZero) {
  const Tensor p = zeros({2}).requires_grad_();
  EXPECT_EQ(nn::utils::clip_grad_norm_({p}, 1.0).item<float>(), 0.0f);
}

TEST(EngineClip, ClipGradValueMatchesPyTorch) {
  const auto& c = oracle_json("clip_grad_value");
  std::vector<Tensor> params;
  for (const auto& g : c.at("grads")) {
    const Tensor grad = tensor_from_json(g);
    params.push_back(zeros_like(grad).requires_grad_());
    params.back().mutable_grad() = grad;
  }
  nn::utils::clip_grad_value_(params, c.at("clip_value").get<double>());
  for (std::size_t k = 0; k < params.size(); ++k)
    expect_values(params[k].grad(), values_from_json(c.at("clipped").at(k)));
}

TEST(EngineSchedulers, LinearLRArgumentErrorsAreThoseOfPyTorch) {
  const auto& errors = oracle_json("linear_errors");
  const Tensor p = zeros({1}).requires_grad_();
  SGD opt({p}, SGD::Config{.lr = 0.1});
  expect_error_json([&] { LinearLR s(opt, 1.5, 1.0, 5); }, errors.at("start"));
  expect_error_json([&] { LinearLR s(opt, 0.5, -0.5, 5); }, errors.at("end"));
  // PyTorch fails at the first step, Kindling at construction, in the same words (not a NaN rate).
  expect_error_json([&] { LinearLR s(opt, 0.0, 1.0, 5); }, errors.at("start_zero"));
}

TEST(EngineSchedulers, SequentialLRWithNoSchedulerGetsPyTorchsCountMessage) {
  const Tensor p = zeros({1}).requires_grad_();
  SGD opt({p}, SGD::Config{.lr = 0.1});
  expect_error_json([&] { SequentialLR s(opt, {}, {}); }, oracle_json("sequential_empty_error"));
}
