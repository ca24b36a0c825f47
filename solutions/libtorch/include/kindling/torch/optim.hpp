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

/// SGDOptions(lr).momentum(m).dampening(d).weight_decay(w).nesterov(b).
class SGDOptions {
 public:
  /// The learning rate.
  explicit SGDOptions(double lr) { c_.lr = lr; }
  SGDOptions& momentum(double v) {  ///< momentum
    c_.momentum = v;
    return *this;
  }
  SGDOptions& dampening(double v) {  ///< dampening
    c_.dampening = v;
    return *this;
  }
  SGDOptions& weight_decay(double v) {  ///< weight decay
    c_.weight_decay = v;
    return *this;
  }
  SGDOptions& nesterov(bool v) {  ///< Nesterov momentum
    c_.nesterov = v;
    return *this;
  }
  const ::kindling::optim::SGD::Config& config() const { return c_; }  ///< Kindling's config

 private:
  ::kindling::optim::SGD::Config c_;
};
/// torch::optim::SGD.
class SGD : public ::kindling::optim::SGD {
 public:
  /// With options.
  SGD(std::vector<Tensor> params, const SGDOptions& o) : ::kindling::optim::SGD(std::move(params), o.config()) {}
  /// With a learning rate.
  SGD(std::vector<Tensor> params, double lr) : SGD(std::move(params), SGDOptions(lr)) {}
};

/// AdamOptions(lr).betas({b1, b2}).eps(e).weight_decay(w).amsgrad(b).
class AdamOptions {
 public:
  /// The learning rate.
  explicit AdamOptions(double lr = 1e-3) { c_.lr = lr; }
  AdamOptions& betas(std::tuple<double, double> v) {  ///< betas (LibTorch's type: `{0.5, 0.999}` or make_tuple)
    c_.betas = {std::get<0>(v), std::get<1>(v)};
    return *this;
  }
  AdamOptions& eps(double v) {  ///< eps
    c_.eps = v;
    return *this;
  }
  AdamOptions& weight_decay(double v) {  ///< weight decay
    c_.weight_decay = v;
    return *this;
  }
  AdamOptions& amsgrad(bool v) {  ///< amsgrad
    c_.amsgrad = v;
    return *this;
  }
  const ::kindling::optim::Adam::Config& config() const { return c_; }  ///< Kindling's config

 private:
  ::kindling::optim::Adam::Config c_;
};
/// torch::optim::Adam.
class Adam : public ::kindling::optim::Adam {
 public:
  /// With options.
  Adam(std::vector<Tensor> params, const AdamOptions& o = AdamOptions())
      : ::kindling::optim::Adam(std::move(params), o.config()) {}
};

/// AdamWOptions(lr): AdamOptions with AdamW's default weight_decay, 1e-2.
class AdamWOptions : public AdamOptions {
 public:
  /// The learning rate.
  explicit AdamWOptions(double lr = 1e-3) : AdamOptions(lr) { weight_decay(1e-2); }
};
/// torch::optim::AdamW: Adam with decoupled weight decay.
class AdamW : public ::kindling::optim::AdamW {
 public:
  /// With options (AdamWOptions, or AdamOptions after a builder call returned that type).
  AdamW(std::vector<Tensor> params, const AdamOptions& o = AdamWOptions())
      : ::kindling::optim::AdamW(std::move(params), o.config()) {}
};

// LibTorch's schedulers live in torch::optim itself.
using ::kindling::optim::lr_scheduler::LRScheduler;
using ::kindling::optim::lr_scheduler::StepLR;
}  // namespace torch::optim
