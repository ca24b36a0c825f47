#pragma once
/// @file torch/optim.hpp
/// LibTorch's torch::optim over Kindling's optimizers: the options builders (`SGDOptions(0.01)
/// .momentum(0.5)`), optimizers built from a module's parameters, and the schedulers. Part of
/// <kindling/torch.hpp>.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <kindling/torch/nn.hpp>
#include <kindling/training.hpp>

// ---- optim ---------------------------------------------------------------------------------------------------
namespace torch::optim {
using namespace ::kindling::optim;  // NOLINT(google-build-using-namespace): Optimizer, the schedulers

/// The base of the options builders (LibTorch's OptimizerOptions). A builder that
/// param_groups() hands out is bound to its group: a setter writes through to the group the
/// optimizer reads (`static_cast<AdamOptions&>(opt.param_groups()[0].options()).lr(1e-4)`).
class OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  OptimizerOptions() = default;
  /// A copy that is not bound to any group (its setters change only itself).
  OptimizerOptions(const OptimizerOptions& other) : lr_(other.lr_) {}
  /// The values of `other`; this builder's binding stays as it was.
  OptimizerOptions& operator=(const OptimizerOptions& other) {
    lr_ = other.lr_;
    return *this;
  }
  /// The learning rate (the group's current one, when bound).
  double get_lr() const { return value("lr", lr_); }
  /// Sets the learning rate.
  void set_lr(double v) {
    lr_ = v;
    write("lr", v);
  }
  /// Binds this builder to a group's options (param_groups() does).
  void bind(::kindling::optim::Options* group) { bound_ = group; }

 protected:
  /// Writes option `name` through to the bound group, if any.
  void write(const char* name, double v) const {
    if (bound_ != nullptr) bound_->set(name, v);
  }
  /// Option `name` as the bound group has it now, else `fallback` (this builder's own value).
  double value(const char* name, double fallback) const {
    return bound_ != nullptr && bound_->has(name) ? (*bound_)[name] : fallback;
  }
  double lr_ = 1e-3;  ///< the learning rate

 private:
  ::kindling::optim::Options* bound_ = nullptr;
};

/// SGDOptions(lr).momentum(m).dampening(d).weight_decay(w).nesterov(b).
class SGDOptions : public OptimizerOptions {
 public:
  /// The learning rate.
  explicit SGDOptions(double lr) { lr_ = c_.lr = lr; }
  /// The learning rate.
  SGDOptions& lr(double v) {
    set_lr(c_.lr = v);
    return *this;
  }
  double lr() const { return value("lr", c_.lr); }  ///< the learning rate
  SGDOptions& momentum(double v) {                  ///< sets momentum
    c_.momentum = v;
    write("momentum", static_cast<double>(v));
    return *this;
  }
  double momentum() const { return value("momentum", c_.momentum); }  ///< momentum
  SGDOptions& dampening(double v) {                                   ///< sets dampening
    c_.dampening = v;
    write("dampening", static_cast<double>(v));
    return *this;
  }
  double dampening() const { return value("dampening", c_.dampening); }  ///< dampening
  SGDOptions& weight_decay(double v) {                                   ///< sets weight decay
    c_.weight_decay = v;
    write("weight_decay", static_cast<double>(v));
    return *this;
  }
  double weight_decay() const { return value("weight_decay", c_.weight_decay); }  ///< weight decay
  SGDOptions& nesterov(bool v) {                                                  ///< sets Nesterov momentum
    c_.nesterov = v;
    write("nesterov", static_cast<double>(v));
    return *this;
  }
  bool nesterov() const { return value("nesterov", c_.nesterov ? 1.0 : 0.0) != 0; }  ///< Nesterov momentum
  const ::kindling::optim::SGD::Config& config() const { return c_; }                ///< Kindling's config

 private:
  ::kindling::optim::SGD::Config c_;
};

/// AdamOptions(lr).betas({b1, b2}).eps(e).weight_decay(w).amsgrad(b).
class AdamOptions : public OptimizerOptions {
 public:
  /// The learning rate.
  explicit AdamOptions(double lr = 1e-3) { lr_ = c_.lr = lr; }
  /// The learning rate.
  AdamOptions& lr(double v) {
    set_lr(c_.lr = v);
    return *this;
  }
  double lr() const { return value("lr", c_.lr); }    ///< the learning rate
  AdamOptions& betas(std::tuple<double, double> v) {  ///< betas (LibTorch's type: `{0.5, 0.999}` or make_tuple)
    c_.betas = {std::get<0>(v), std::get<1>(v)};
    write("beta1", c_.betas.first);
    write("beta2", c_.betas.second);
    return *this;
  }
  AdamOptions& eps(double v) {  ///< sets eps
    c_.eps = v;
    write("eps", static_cast<double>(v));
    return *this;
  }
  double eps() const { return value("eps", c_.eps); }  ///< eps
  AdamOptions& weight_decay(double v) {                ///< sets weight decay
    c_.weight_decay = v;
    write("weight_decay", static_cast<double>(v));
    return *this;
  }
  double weight_decay() const { return value("weight_decay", c_.weight_decay); }  ///< weight decay
  AdamOptions& amsgrad(bool v) {                                                  ///< sets amsgrad
    c_.amsgrad = v;
    write("amsgrad", static_cast<double>(v));
    return *this;
  }
  bool amsgrad() const { return value("amsgrad", c_.amsgrad ? 1.0 : 0.0) != 0; }  ///< amsgrad
  const ::kindling::optim::Adam::Config& config() const { return c_; }            ///< Kindling's config

 private:
  ::kindling::optim::Adam::Config c_;
};
/// AdamWOptions(lr): AdamOptions with AdamW's default weight_decay, 1e-2.
class AdamWOptions : public AdamOptions {
 public:
  /// The learning rate.
  explicit AdamWOptions(double lr = 1e-3) : AdamOptions(lr) { weight_decay(1e-2); }
};

/// RMSpropOptions(lr).alpha(a).eps(e).weight_decay(w).momentum(m).centered(b).
class RMSpropOptions : public OptimizerOptions {
 public:
  /// The learning rate.
  explicit RMSpropOptions(double lr = 1e-2) { lr_ = c_.lr = lr; }
  /// The learning rate.
  RMSpropOptions& lr(double v) {
    set_lr(c_.lr = v);
    return *this;
  }
  double lr() const { return value("lr", c_.lr); }  ///< the learning rate
  RMSpropOptions& alpha(double v) {                 ///< sets decay of the mean of squares
    c_.alpha = v;
    write("alpha", static_cast<double>(v));
    return *this;
  }
  double alpha() const { return value("alpha", c_.alpha); }  ///< decay of the mean of squares
  RMSpropOptions& eps(double v) {                            ///< sets eps
    c_.eps = v;
    write("eps", static_cast<double>(v));
    return *this;
  }
  double eps() const { return value("eps", c_.eps); }  ///< eps
  RMSpropOptions& weight_decay(double v) {             ///< sets weight decay
    c_.weight_decay = v;
    write("weight_decay", static_cast<double>(v));
    return *this;
  }
  double weight_decay() const { return value("weight_decay", c_.weight_decay); }  ///< weight decay
  RMSpropOptions& momentum(double v) {                                            ///< sets momentum
    c_.momentum = v;
    write("momentum", static_cast<double>(v));
    return *this;
  }
  double momentum() const { return value("momentum", c_.momentum); }  ///< momentum
  RMSpropOptions& centered(bool v) {                                  ///< sets centered
    c_.centered = v;
    write("centered", static_cast<double>(v));
    return *this;
  }
  bool centered() const { return value("centered", c_.centered ? 1.0 : 0.0) != 0; }  ///< centered
  const ::kindling::optim::RMSprop::Config& config() const { return c_; }            ///< Kindling's config

 private:
  ::kindling::optim::RMSprop::Config c_;
};

/// AdagradOptions(lr).lr_decay(d).weight_decay(w).initial_accumulator_value(v).eps(e).
class AdagradOptions : public OptimizerOptions {
 public:
  /// The learning rate.
  explicit AdagradOptions(double lr = 1e-2) { lr_ = c_.lr = lr; }
  /// The learning rate.
  AdagradOptions& lr(double v) {
    set_lr(c_.lr = v);
    return *this;
  }
  double lr() const { return value("lr", c_.lr); }  ///< the learning rate
  AdagradOptions& lr_decay(double v) {              ///< sets learning-rate decay
    c_.lr_decay = v;
    write("lr_decay", static_cast<double>(v));
    return *this;
  }
  double lr_decay() const { return value("lr_decay", c_.lr_decay); }  ///< learning-rate decay
  AdagradOptions& weight_decay(double v) {                            ///< sets weight decay
    c_.weight_decay = v;
    write("weight_decay", static_cast<double>(v));
    return *this;
  }
  double weight_decay() const { return value("weight_decay", c_.weight_decay); }  ///< weight decay
  AdagradOptions& initial_accumulator_value(double v) {                           ///< sets the sums' start
    c_.initial_accumulator_value = v;
    write("initial_accumulator_value", static_cast<double>(v));
    return *this;
  }
  double initial_accumulator_value() const {
    return value("initial_accumulator_value", c_.initial_accumulator_value);
  }                                ///< the sums' start
  AdagradOptions& eps(double v) {  ///< sets eps
    c_.eps = v;
    write("eps", static_cast<double>(v));
    return *this;
  }
  double eps() const { return value("eps", c_.eps); }                      ///< eps
  const ::kindling::optim::Adagrad::Config& config() const { return c_; }  ///< Kindling's config

 private:
  ::kindling::optim::Adagrad::Config c_;
};

/// A parameter group as LibTorch hands it out: its tensors and its options builder, bound to it.
class OptimizerParamGroup {
 public:
  /// Over Kindling's group, with a builder of the optimizer's options type.
  OptimizerParamGroup(::kindling::optim::ParamGroup& group, std::unique_ptr<OptimizerOptions> options)
      : group_(&group), options_(std::move(options)) {
    options_->bind(&group_->options);
  }
  std::vector<Tensor>& params() { return group_->params; }  ///< the group's tensors
  OptimizerOptions& options() { return *options_; }         ///< the group's options
  bool has_options() const { return options_ != nullptr; }  ///< always true here

 private:
  ::kindling::optim::ParamGroup* group_;
  std::unique_ptr<OptimizerOptions> options_;
};

/// A Kindling optimizer with LibTorch's constructor (tensors and an options builder) and
/// param_groups() of OptimizerParamGroup.
template <class Engine, class Opts>
class Wrapped : public Engine {
 public:
  /// With options.
  Wrapped(std::vector<Tensor> params, const Opts& o) : Engine(std::move(params), o.config()), defaults_(o) {}
  /// The groups, each with an options builder bound to it (valid until the next call).
  std::vector<OptimizerParamGroup>& param_groups() {
    view_.clear();
    for (auto& g : Engine::param_groups()) {
      auto o = std::make_unique<Opts>(defaults_);
      o->set_lr(g.options["lr"]);
      view_.emplace_back(g, std::move(o));
    }
    return view_;
  }
  /// The defaults the optimizer was built with.
  Opts& defaults() { return defaults_; }

 private:
  Opts defaults_;
  std::vector<OptimizerParamGroup> view_;
};

/// torch::optim::SGD.
class SGD : public Wrapped<::kindling::optim::SGD, SGDOptions> {
 public:
  /// With options.
  SGD(std::vector<Tensor> params, const SGDOptions& o) : Wrapped(std::move(params), o) {}
  /// With a learning rate.
  SGD(std::vector<Tensor> params, double lr) : SGD(std::move(params), SGDOptions(lr)) {}
};
/// torch::optim::Adam.
class Adam : public Wrapped<::kindling::optim::Adam, AdamOptions> {
 public:
  /// With options.
  Adam(std::vector<Tensor> params, const AdamOptions& o = AdamOptions()) : Wrapped(std::move(params), o) {}
};
/// torch::optim::AdamW: Adam with decoupled weight decay.
class AdamW : public Wrapped<::kindling::optim::AdamW, AdamOptions> {
 public:
  /// With options (AdamWOptions, or AdamOptions after a builder call returned that type).
  AdamW(std::vector<Tensor> params, const AdamOptions& o = AdamWOptions()) : Wrapped(std::move(params), o) {}
};
/// torch::optim::RMSprop.
class RMSprop : public Wrapped<::kindling::optim::RMSprop, RMSpropOptions> {
 public:
  /// With options.
  RMSprop(std::vector<Tensor> params, const RMSpropOptions& o = RMSpropOptions()) : Wrapped(std::move(params), o) {}
};
/// torch::optim::Adagrad.
class Adagrad : public Wrapped<::kindling::optim::Adagrad, AdagradOptions> {
 public:
  /// With options.
  Adagrad(std::vector<Tensor> params, const AdagradOptions& o = AdagradOptions()) : Wrapped(std::move(params), o) {}
};

// LibTorch's schedulers live in torch::optim itself.
using ::kindling::optim::lr_scheduler::LRScheduler;
using ::kindling::optim::lr_scheduler::StepLR;
}  // namespace torch::optim
