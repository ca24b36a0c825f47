// The optimizers' common part: options, parameter groups, state, zero_grad and
// the constructors' argument checks (PyTorch 1.13's texts), and clip_grad_value_.

#include <set>

#include <kindling/accumulate_grad.hpp>
#include <kindling/module.hpp>
#include <kindling/no_grad.hpp>
#include <kindling/ops.hpp>
#include <kindling/optim.hpp>

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
  check_sgd(defaults_);
  for (auto& g : groups) {
    add_param_group(std::move(g));
    check_sgd(groups_.back().options);
  }
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
  check_adam(defaults_);
  for (auto& g : groups) {
    add_param_group(std::move(g));
    check_adam(groups_.back().options);
  }
}

AdamW::AdamW(std::vector<Tensor> params, Config config) : Adam(one_group(std::move(params)), config, true) {}

AdamW::AdamW(std::vector<ParamGroup> groups, Config config) : Adam(std::move(groups), config, true) {}

}  // namespace kindling::optim

namespace kindling::nn::utils {

void clip_grad_value_(const std::vector<Tensor>& params, double clip_value) {
  NoGradGuard no_grad;
  for (const auto& p : params)
    if (p.grad().defined()) clamp_(p.grad(), Scalar(-clip_value), Scalar(clip_value));
}

}  // namespace kindling::nn::utils
