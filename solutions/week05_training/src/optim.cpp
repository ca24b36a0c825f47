// The optimizers' common part: options, parameter groups, state, zero_grad and
// the constructors' argument checks (PyTorch 1.13's texts), and clip_grad_value_.

#include <cmath>
#include <set>

#include <kindling/accumulate_grad.hpp>
#include <kindling/factory.hpp>
#include <kindling/module.hpp>
#include <kindling/no_grad.hpp>
#include <kindling/ops.hpp>
#include <kindling/optim.hpp>

#include "loop.hpp"  // max_threads, kParallelGrain, parallel_ranges
#include "optim_internal.hpp"

namespace kindling::optim {

using nn::detail::py_float_repr;

double Options::operator[](const std::string& name) const {
  const auto it = values.find(name);
  KINDLING_CHECK(it != values.end(), "the parameter group has no option '", name, "'");
  return it->second;
}

void Optimizer::zero_grad(bool set_to_none) {
  for (const auto& g : groups_) autograd::zero_grad(g.params, set_to_none);
}

void Optimizer::add_param_group(ParamGroup group) {
  std::set<const void*> seen;
  for (const auto& g : groups_)
    for (const auto& p : g.params) seen.insert(&p.impl());
  for (const auto& p : group.params) {
    KINDLING_CHECK_AS(ValueError, p.is_leaf(), "can't optimize a non-leaf Tensor");
    KINDLING_CHECK_AS(ValueError, seen.insert(&p.impl()).second,
                      "some parameters appear in more than one parameter group");
  }
  for (const auto& [name, value] : defaults_.values)
    if (!group.options.has(name)) group.options.set(name, value);
  groups_.push_back(std::move(group));
}

ParamState& Optimizer::state(const Tensor& p) { return state_[&p.impl()]; }

OptimizerState Optimizer::state_dict() const {
  OptimizerState out;
  std::int64_t index = 0;
  for (const auto& g : groups_) {
    PackedGroup packed{g.options, {}};
    for (const auto& p : g.params) {
      packed.params.push_back(index);
      if (const auto it = state_.find(&p.impl());
          it != state_.end() && (!it->second.buffers.empty() || it->second.step != 0)) {
        ParamState copy{{}, it->second.step};
        for (const auto& [name, buf] : it->second.buffers) copy.buffers.emplace(name, buf.clone());
        out.state.emplace(index, std::move(copy));
      }
      ++index;
    }
    out.param_groups.push_back(std::move(packed));
  }
  return out;
}

void Optimizer::load_state_dict(const OptimizerState& saved) {
  KINDLING_CHECK_AS(ValueError, saved.param_groups.size() == groups_.size(),
                    "loaded state dict has a different number of parameter groups");
  for (std::size_t i = 0; i < groups_.size(); ++i)
    KINDLING_CHECK_AS(ValueError, saved.param_groups[i].params.size() == groups_[i].params.size(),
                      "loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
  // Saved index -> this optimizer's parameter, pairing the groups' lists in order (as PyTorch's id_map).
  std::map<std::int64_t, const Tensor*> id_map;
  for (std::size_t i = 0; i < groups_.size(); ++i)
    for (std::size_t j = 0; j < groups_[i].params.size(); ++j)
      id_map[saved.param_groups[i].params[j]] = &groups_[i].params[j];
  std::map<const void*, ParamState> state;
  for (const auto& [index, st] : saved.state) {
    const auto it = id_map.find(index);
    KINDLING_CHECK_AS(ValueError, it != id_map.end(), "loaded state dict has state for parameter ", index,
                      ", which no parameter group lists");
    const Tensor& p = *it->second;
    ParamState copy{{}, st.step};
    for (const auto& [name, buf] : st.buffers) {
      KINDLING_CHECK_AS(ValueError, buf.sizes().vec() == p.sizes().vec(), "loaded state dict's '", name,
                        "' of parameter ", index, " has shape ", to_string(buf.sizes()), ", the parameter ",
                        to_string(p.sizes()));
      // As PyTorch: the state takes the parameter's dtype and device (a checkpoint saved from a GPU
      // loads on the CPU, and back).
      const Tensor cast = buf.to(p.scalar_type());
      copy.buffers.emplace(name, (p.device().is_cpu() ? cast.cpu() : cast.cuda()).contiguous().clone());
    }
    state.emplace(&p.impl(), std::move(copy));
  }
  for (std::size_t i = 0; i < groups_.size(); ++i) groups_[i].options = saved.param_groups[i].options;
  state_ = std::move(state);
}

void Optimizer::add_checked_groups(std::vector<ParamGroup> groups, void (*check)(const Options&)) {
  check(defaults_);
  for (auto& g : groups) {
    add_param_group(std::move(g));
    check(groups_.back().options);
  }
}

float* detail::state_buffer(ParamState& st, const Tensor& p, const std::string& name, double init) {
  auto it = st.buffers.find(name);
  if (it == st.buffers.end()) it = st.buffers.emplace(name, full_like(p, Scalar(init))).first;
  return floats(it->second);
}

void detail::for_ranges(std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& body) {
  namespace engine = kindling::detail;
  const std::int64_t pieces = engine::parallel_threads("optimizer.step", n);
  engine::parallel_ranges(n, pieces, body, /*align=*/16);  // 16 floats: one cache line
}

float* detail::floats(const Tensor& t) {
  KINDLING_CHECK(t.scalar_type() == kFloat32, "the optimizers update float32 tensors, not ",
                 std::string(dtype_name(t.scalar_type())));
  KINDLING_CHECK(t.is_contiguous(), "the optimizers update contiguous tensors");
  return t.data_ptr<float>();
}

// ---- SGD ------------------------------------------------------------------------------------------------
Options SGD::Config::options() const {
  Options o;
  o.set("lr", lr).set("momentum", momentum).set("dampening", dampening).set("weight_decay", weight_decay);
  o.set("nesterov", nesterov ? 1 : 0).set("maximize", maximize ? 1 : 0);
  return o;
}

namespace {
void check_sgd(const Options& o) {
  KINDLING_CHECK_AS(ValueError, o["lr"] >= 0.0, "Invalid learning rate: ", py_float_repr(o["lr"]));
  KINDLING_CHECK_AS(ValueError, o["momentum"] >= 0.0, "Invalid momentum value: ", py_float_repr(o["momentum"]));
  KINDLING_CHECK_AS(ValueError, o["weight_decay"] >= 0.0,
                    "Invalid weight_decay value: ", py_float_repr(o["weight_decay"]));
  KINDLING_CHECK_AS(ValueError, o["nesterov"] == 0 || (o["momentum"] > 0 && o["dampening"] == 0),
                    "Nesterov momentum requires a momentum and zero dampening");
}

std::vector<ParamGroup> one_group(std::vector<Tensor> params) {
  KINDLING_CHECK_AS(ValueError, !params.empty(), "optimizer got an empty parameter list");
  return {ParamGroup{std::move(params), {}}};
}
}  // namespace

SGD::SGD(std::vector<Tensor> params, Config config) : SGD(one_group(std::move(params)), config) {}

SGD::SGD(std::vector<ParamGroup> groups, Config config) : Optimizer(config.options()) {
  add_checked_groups(std::move(groups), check_sgd);
}

// ---- Adam and AdamW ----------------------------------------------------------------------------------------
Options Adam::Config::options() const {
  Options o;
  o.set("lr", lr).set("beta1", betas.first).set("beta2", betas.second).set("eps", eps);
  o.set("weight_decay", weight_decay).set("amsgrad", amsgrad ? 1 : 0).set("maximize", maximize ? 1 : 0);
  return o;
}

namespace {
void check_adam(const Options& o) {
  KINDLING_CHECK_AS(ValueError, o["lr"] >= 0.0, "Invalid learning rate: ", py_float_repr(o["lr"]));
  KINDLING_CHECK_AS(ValueError, o["eps"] >= 0.0, "Invalid epsilon value: ", py_float_repr(o["eps"]));
  KINDLING_CHECK_AS(ValueError, o["beta1"] >= 0.0 && o["beta1"] < 1.0,
                    "Invalid beta parameter at index 0: ", py_float_repr(o["beta1"]));
  KINDLING_CHECK_AS(ValueError, o["beta2"] >= 0.0 && o["beta2"] < 1.0,
                    "Invalid beta parameter at index 1: ", py_float_repr(o["beta2"]));
  KINDLING_CHECK_AS(ValueError, o["weight_decay"] >= 0.0,
                    "Invalid weight_decay value: ", py_float_repr(o["weight_decay"]));
}
}  // namespace

Adam::Adam(std::vector<Tensor> params, Config config) : Adam(one_group(std::move(params)), config, false) {}

Adam::Adam(std::vector<ParamGroup> groups, Config config) : Adam(std::move(groups), config, false) {}

Adam::Adam(std::vector<ParamGroup> groups, Config config, bool decoupled)
    : Optimizer(config.options()), decoupled_(decoupled) {
  add_checked_groups(std::move(groups), check_adam);
}

AdamW::AdamW(std::vector<Tensor> params, Config config) : Adam(one_group(std::move(params)), config, true) {}

AdamW::AdamW(std::vector<ParamGroup> groups, Config config) : Adam(std::move(groups), config, true) {}

// ---- RMSprop and Adagrad ------------------------------------------------------------------------------------------
Options RMSprop::Config::options() const {
  Options o;
  o.set("lr", lr).set("alpha", alpha).set("eps", eps).set("weight_decay", weight_decay).set("momentum", momentum);
  o.set("centered", centered ? 1 : 0).set("maximize", maximize ? 1 : 0);
  return o;
}

namespace {
void check_rmsprop(const Options& o) {
  KINDLING_CHECK_AS(ValueError, o["lr"] >= 0.0, "Invalid learning rate: ", py_float_repr(o["lr"]));
  KINDLING_CHECK_AS(ValueError, o["eps"] >= 0.0, "Invalid epsilon value: ", py_float_repr(o["eps"]));
  KINDLING_CHECK_AS(ValueError, o["momentum"] >= 0.0, "Invalid momentum value: ", py_float_repr(o["momentum"]));
  KINDLING_CHECK_AS(ValueError, o["weight_decay"] >= 0.0,
                    "Invalid weight_decay value: ", py_float_repr(o["weight_decay"]));
  KINDLING_CHECK_AS(ValueError, o["alpha"] >= 0.0, "Invalid alpha value: ", py_float_repr(o["alpha"]));
}

void check_adagrad(const Options& o) {
  KINDLING_CHECK_AS(ValueError, o["lr"] >= 0.0, "Invalid learning rate: ", py_float_repr(o["lr"]));
  KINDLING_CHECK_AS(ValueError, o["lr_decay"] >= 0.0, "Invalid lr_decay value: ", py_float_repr(o["lr_decay"]));
  KINDLING_CHECK_AS(ValueError, o["weight_decay"] >= 0.0,
                    "Invalid weight_decay value: ", py_float_repr(o["weight_decay"]));
  KINDLING_CHECK_AS(ValueError, o["initial_accumulator_value"] >= 0.0,
                    "Invalid initial_accumulator_value value: ", py_float_repr(o["initial_accumulator_value"]));
  KINDLING_CHECK_AS(ValueError, o["eps"] >= 0.0, "Invalid epsilon value: ", py_float_repr(o["eps"]));
}

}  // namespace

RMSprop::RMSprop(std::vector<Tensor> params, Config config) : RMSprop(one_group(std::move(params)), config) {}

RMSprop::RMSprop(std::vector<ParamGroup> groups, Config config) : Optimizer(config.options()) {
  add_checked_groups(std::move(groups), check_rmsprop);
}

void RMSprop::update() {
  for (auto& group : groups_) {
    const auto lr = static_cast<float>(group.options["lr"]);
    const double alpha = group.options["alpha"];
    const auto a = static_cast<float>(alpha), one_minus_a = static_cast<float>(1 - alpha);
    const auto eps = static_cast<float>(group.options["eps"]);
    const auto wd = static_cast<float>(group.options["weight_decay"]);
    const auto momentum = static_cast<float>(group.options["momentum"]);
    const bool centered = group.options["centered"] != 0, maximize = group.options["maximize"] != 0;
    for (const Tensor& p : group.params) {
      if (!p.grad().defined()) continue;
      float* w = detail::floats(p);
      const Tensor grad = p.grad().contiguous();
      const float* g = detail::floats(grad);
      ParamState& st = state(p);
      st.step += 1;
      float* sq = detail::state_buffer(st, p, "square_avg");
      float* buf = momentum > 0 ? detail::state_buffer(st, p, "momentum_buffer") : nullptr;
      float* avg_g = centered ? detail::state_buffer(st, p, "grad_avg") : nullptr;
      for (std::int64_t i = 0; i < p.numel(); ++i) {
        float gi = maximize ? -g[i] : g[i];
        if (wd != 0) gi = gi + wd * w[i];
        sq[i] = sq[i] * a + one_minus_a * gi * gi;
        float avg;
        if (avg_g) {
          avg_g[i] = avg_g[i] * a + one_minus_a * gi;
          avg = std::sqrt(sq[i] + -1.0f * avg_g[i] * avg_g[i]);
        } else {
          avg = std::sqrt(sq[i]);
        }
        avg = avg + eps;
        if (buf) {
          buf[i] = buf[i] * momentum + gi / avg;
          w[i] = w[i] + (-lr) * buf[i];
        } else {
          w[i] = w[i] + (-lr) * gi / avg;
        }
      }
    }
  }
}

Options Adagrad::Config::options() const {
  Options o;
  o.set("lr", lr).set("lr_decay", lr_decay).set("weight_decay", weight_decay);
  o.set("initial_accumulator_value", initial_accumulator_value).set("eps", eps).set("maximize", maximize ? 1 : 0);
  return o;
}

Adagrad::Adagrad(std::vector<Tensor> params, Config config) : Adagrad(one_group(std::move(params)), config) {}

Adagrad::Adagrad(std::vector<ParamGroup> groups, Config config) : Optimizer(config.options()) {
  add_checked_groups(std::move(groups), check_adagrad);
  // PyTorch creates Adagrad's state in the constructor, and fills the sum with the
  // constructor's initial_accumulator_value, not a group's own (1.13's behaviour, kept).
  for (auto& g : groups_)
    for (const Tensor& p : g.params) detail::state_buffer(state(p), p, "sum", defaults_["initial_accumulator_value"]);
}

void Adagrad::update() {
  for (auto& group : groups_) {
    const double lr = group.options["lr"], lr_decay = group.options["lr_decay"];
    const auto wd = static_cast<float>(group.options["weight_decay"]);
    const auto eps = static_cast<float>(group.options["eps"]);
    const bool maximize = group.options["maximize"] != 0;
    for (const Tensor& p : group.params) {
      if (!p.grad().defined()) continue;
      float* w = detail::floats(p);
      const Tensor grad = p.grad().contiguous();
      const float* g = detail::floats(grad);
      ParamState& st = state(p);
      st.step += 1;
      float* sum = detail::state_buffer(st, p, "sum", defaults_["initial_accumulator_value"]);
      const auto clr = static_cast<float>(lr / (1 + (st.step - 1) * lr_decay));
      for (std::int64_t i = 0; i < p.numel(); ++i) {
        float gi = maximize ? -g[i] : g[i];
        if (wd != 0) gi = gi + wd * w[i];
        sum[i] = sum[i] + 1.0f * gi * gi;
        const float std_i = std::sqrt(sum[i]) + eps;
        w[i] = w[i] + (-clr) * gi / std_i;
      }
    }
  }
}

}  // namespace kindling::optim

namespace kindling::nn::utils {

void clip_grad_value_(const std::vector<Tensor>& params, double clip_value) {
  NoGradGuard no_grad;
  for (const auto& p : params)
    if (p.grad().defined()) clamp_(p.grad(), Scalar(-clip_value), Scalar(clip_value));
}

}  // namespace kindling::nn::utils
