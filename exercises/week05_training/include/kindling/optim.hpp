#pragma once
/// @file optim.hpp
/// kindling::optim: optimizers with PyTorch's parameter groups, following
/// PyTorch 1.13's single-tensor update rules (foreach=False), and gradient
/// clipping (nn::utils).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <kindling/tensor.hpp>

namespace kindling::optim {

/// One optimizer option's value: every option of SGD, Adam and AdamW is a number,
/// a flag or a pair (betas).
struct Options {
  std::map<std::string, double> values;  ///< "lr" -> 0.1, "momentum" -> 0.9, "nesterov" -> 1, "beta1" -> 0.9, ...
  /// The option `name`; throws kindling::Error when the group has none.
  double operator[](const std::string& name) const;
  /// Sets `name`.
  Options& set(const std::string& name, double value) {
    values[name] = value;
    return *this;
  }
  /// True when the group has option `name`.
  bool has(const std::string& name) const { return values.count(name) > 0; }
};

/// A parameter group: its tensors and its own options (PyTorch's param_groups[i]).
struct ParamGroup {
  std::vector<Tensor> params;  ///< the tensors this group updates
  Options options;             ///< lr, momentum, ... (defaults filled in by the optimizer)
};

/// Per-parameter state (PyTorch's optimizer.state[p]): named tensors and the step count.
struct ParamState {
  std::map<std::string, Tensor> buffers;  ///< "momentum_buffer", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"
  double step = 0;                        ///< Adam's and AdamW's step counter
};

/// A parameter group as optimizer.state_dict() packs it: the options, and the
/// parameters as indices (counting through all groups in order).
struct PackedGroup {
  Options options;                   ///< lr, momentum, ... (and initial_lr once a schedule ran)
  std::vector<std::int64_t> params;  ///< the group's parameters, as indices
};

/// optimizer.state_dict() in PyTorch's layout: `state` keyed by parameter index
/// (only parameters that have state), `param_groups` with `params` as indices.
struct OptimizerState {
  std::map<std::int64_t, ParamState> state;  ///< by parameter index
  std::vector<PackedGroup> param_groups;     ///< in order
};

/// The base of every optimizer: groups, state, zero_grad and add_param_group.
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  /// One update of every parameter that has a gradient (update()), counted, as
  /// PyTorch counts optimizer steps for the schedulers' order warning.
  void step() {
    update();
    ++step_count_;
  }
  /// Clears every parameter's gradient: undefined when `set_to_none`, else zeroed in
  /// place (PyTorch 1.13's default is set_to_none=False).
  void zero_grad(bool set_to_none = false);
  /// Adds a group; its missing options take the optimizer's defaults. A tensor that is
  /// already in a group throws ValueError ("some parameters appear in more than one
  /// parameter group").
  void add_param_group(ParamGroup group);
  /// The groups, in order.
  std::vector<ParamGroup>& param_groups() { return groups_; }
  /// The groups, in order.
  const std::vector<ParamGroup>& param_groups() const { return groups_; }
  /// The state of `p` (created empty on first use).
  ParamState& state(const Tensor& p);
  /// PyTorch's optimizer.state_dict(): copies of every state buffer, keyed by
  /// parameter index, and each group's options with its parameters as indices.
  OptimizerState state_dict() const;
  /// PyTorch's optimizer.load_state_dict(): the groups take the saved options and
  /// the parameters the saved state, by index. Throws ValueError with PyTorch's
  /// texts when the group count ("loaded state dict has a different number of
  /// parameter groups") or a group's size ("loaded state dict contains a parameter
  /// group that doesn't match the size of optimizer's group") differ, and, where
  /// PyTorch would load and fail later, when a buffer's shape differs from its
  /// parameter's or an index names no parameter. Nothing changes when it throws.
  void load_state_dict(const OptimizerState& state);
  /// The number of parameters with state.
  std::size_t state_size() const { return state_.size(); }
  /// How many times step() has run (the schedulers warn when they step first).
  std::int64_t step_count() const { return step_count_; }

 protected:
  /// An optimizer whose groups default to `defaults`.
  explicit Optimizer(Options defaults) : defaults_(std::move(defaults)) {}
  /// The update rule itself: each optimizer's own.
  virtual void update() = 0;
  /// The constructors' common part: checks the defaults with `check`, then adds each
  /// group (its missing options from the defaults) and checks it too.
  void add_checked_groups(std::vector<ParamGroup> groups, void (*check)(const Options&));
  Options defaults_;                         ///< the options a group gets when it sets none
  std::vector<ParamGroup> groups_;           ///< the parameter groups, in order
  std::map<const void*, ParamState> state_;  ///< keyed by the parameter's TensorImpl
  std::int64_t step_count_ = 0;              ///< step() calls so far
};

/// torch.optim.SGD. Options: lr (required), momentum (0), dampening (0),
/// weight_decay (0), nesterov (false), maximize (false).
class SGD : public Optimizer {
 public:
  /// Options of one group (and the defaults of later ones).
  struct Config {
    double lr = 0.01;         ///< learning rate
    double momentum = 0;      ///< momentum factor
    double dampening = 0;     ///< dampening of the momentum
    double weight_decay = 0;  ///< L2 penalty added to the gradient
    bool nesterov = false;    ///< Nesterov momentum (needs momentum > 0 and dampening 0)
    bool maximize = false;    ///< ascend instead of descend
    Options options() const;  ///< as Options
  };
  /// One group with `params`. Throws ValueError for a negative lr, momentum or
  /// weight_decay, and for nesterov without momentum or with dampening (PyTorch's texts).
  SGD(std::vector<Tensor> params, Config config);
  /// Several groups; each group's options override `config`'s.
  SGD(std::vector<ParamGroup> groups, Config config);

 protected:
  /// For each parameter p with gradient g (task week05.sgd):
  /// g = -g if maximize; g += weight_decay * p; with momentum, buf = g on the first
  /// step and buf = momentum * buf + (1 - dampening) * g after; g = g + momentum * buf
  /// (nesterov) or g = buf; then p -= lr * g.
  void update() override;
};

/// torch.optim.Adam and, with `decoupled_weight_decay`, torch.optim.AdamW.
/// Options: lr (1e-3), beta1 (0.9), beta2 (0.999), eps (1e-8), weight_decay
/// (0 for Adam, 1e-2 for AdamW), amsgrad (false), maximize (false).
class Adam : public Optimizer {
 public:
  /// Options of one group (and the defaults of later ones).
  struct Config {
    double lr = 1e-3;                             ///< learning rate
    std::pair<double, double> betas{0.9, 0.999};  ///< decay rates of the two moments
    double eps = 1e-8;                            ///< added to the denominator
    double weight_decay = 0;                      ///< L2 (Adam) or decoupled (AdamW) decay
    bool amsgrad = false;                         ///< keep the running maximum of the second moment
    bool maximize = false;                        ///< ascend instead of descend
    Options options() const;                      ///< as Options
  };
  /// One group with `params`; PyTorch's ValueErrors for bad lr, eps, betas, weight_decay.
  Adam(std::vector<Tensor> params, Config config);
  /// Several groups; each group's options override `config`'s.
  Adam(std::vector<ParamGroup> groups, Config config);

 protected:
  /// PyTorch 1.13's single-tensor Adam (or AdamW) update (task week05.adam).
  void update() override;
  /// For AdamW: weight decay multiplies the parameter by (1 - lr * weight_decay)
  /// instead of being added to the gradient.
  Adam(std::vector<ParamGroup> groups, Config config, bool decoupled);
  bool decoupled_ = false;  ///< AdamW: decay the weight, not the gradient
};

/// torch.optim.AdamW: Adam with decoupled weight decay (default 1e-2).
class AdamW : public Adam {
 public:
  /// AdamW's defaults: Adam's, with weight_decay 1e-2.
  static Config defaults() {
    Config c;
    c.weight_decay = 1e-2;
    return c;
  }
  /// One group with `params`.
  AdamW(std::vector<Tensor> params, Config config = defaults());
  /// Several groups.
  AdamW(std::vector<ParamGroup> groups, Config config = defaults());
};

/// torch.optim.RMSprop: divides by a running root mean square of the gradient.
/// Options: lr (1e-2), alpha (0.99), eps (1e-8), weight_decay (0), momentum (0),
/// centered (false), maximize (false).
class RMSprop : public Optimizer {
 public:
  /// Options of one group (and the defaults of later ones).
  struct Config {
    double lr = 1e-2;         ///< learning rate
    double alpha = 0.99;      ///< decay of the running mean of squares
    double eps = 1e-8;        ///< added to the root
    double weight_decay = 0;  ///< L2 penalty added to the gradient
    double momentum = 0;      ///< momentum of the normalised step
    bool centered = false;    ///< subtract the squared running mean of the gradient
    bool maximize = false;    ///< ascend instead of descend
    Options options() const;  ///< as Options
  };
  /// One group with `params`; PyTorch's ValueErrors for negative options.
  RMSprop(std::vector<Tensor> params, Config config);
  /// Several groups; each group's options override `config`'s.
  RMSprop(std::vector<ParamGroup> groups, Config config);

 protected:
  /// PyTorch 1.13's single-tensor RMSprop: v = alpha v + (1 - alpha) g^2; with
  /// centered, m = alpha m + (1 - alpha) g and the root is of v - m^2; then
  /// p -= lr g / (root + eps), through a momentum buffer when momentum > 0.
  void update() override;
};

/// torch.optim.Adagrad: divides by the root of the sum of all past squared gradients.
/// Options: lr (1e-2), lr_decay (0), weight_decay (0), initial_accumulator_value (0),
/// eps (1e-10), maximize (false). As in PyTorch 1.13, the sums start at the
/// constructor's initial_accumulator_value even when a group sets its own.
class Adagrad : public Optimizer {
 public:
  /// Options of one group (and the defaults of later ones).
  struct Config {
    double lr = 1e-2;                      ///< learning rate
    double lr_decay = 0;                   ///< lr / (1 + (step - 1) lr_decay)
    double weight_decay = 0;               ///< L2 penalty added to the gradient
    double initial_accumulator_value = 0;  ///< the sum's starting value
    double eps = 1e-10;                    ///< added to the root
    bool maximize = false;                 ///< ascend instead of descend
    Options options() const;               ///< as Options
  };
  /// One group with `params`; PyTorch's ValueErrors for negative options.
  Adagrad(std::vector<Tensor> params, Config config);
  /// Several groups; each group's options override `config`'s.
  Adagrad(std::vector<ParamGroup> groups, Config config);

 protected:
  /// PyTorch 1.13's single-tensor Adagrad: sum += g^2; p -= clr g / (sqrt(sum) + eps).
  void update() override;
};

}  // namespace kindling::optim

namespace kindling::nn::utils {

/// Scales the gradients of `params` in place so that their total norm (the
/// `norm_type`-norm of all gradients together; infinity for the max) is at most
/// `max_norm`, by max_norm / (total + 1e-6) when the total exceeds it. Returns the
/// total norm before clipping as a 0-d tensor. Parameters without a gradient are
/// skipped. With `error_if_nonfinite`, a NaN or infinite total throws PyTorch's
/// error. (Task week05.clip_grad_norm.)
Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
/// Clamps every gradient of `params` to [-clip_value, clip_value] in place.
void clip_grad_value_(const std::vector<Tensor>& params, double clip_value);

}  // namespace kindling::nn::utils
