#pragma once
/// @file torch/nn.hpp
/// LibTorch's torch::nn over Kindling's modules: module holders (`torch::nn::Linear fc{nullptr}`,
/// `fc->weight`, `fc(x)`, TORCH_MODULE), options builders and the functional namespace. Part of
/// <kindling/torch.hpp>.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <kindling/nn.hpp>
#include <kindling/torch/tensor.hpp>

namespace torch {

// ---- nn: module holders and options builders ----------------------------------------------------------------
namespace nn {
using namespace ::kindling::nn;  // NOLINT(google-build-using-namespace): functional, init, the Impl classes

/// A shared pointer to a module, used with `->` and called like a function (LibTorch's
/// ModuleHolder). `Holder h{nullptr}` holds nothing yet.
template <class Impl>
class ModuleHolder {
 public:
  using ContainedType = Impl;  ///< the module type (LibTorch's name)
  /// A default-constructed module.
  ModuleHolder() : impl_(std::make_shared<Impl>()) {}
  /// Holds nothing (assign a module later).
  ModuleHolder(std::nullptr_t) {}  // NOLINT(google-explicit-constructor)
  /// Holds `impl`.
  ModuleHolder(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}  // NOLINT(google-explicit-constructor)
  /// A module made from `args`.
  template <class First, class... Rest>
  requires(!std::is_same_v<std::remove_cvref_t<First>, ModuleHolder> &&
           !std::is_same_v<std::remove_cvref_t<First>, std::nullptr_t> &&
           !std::is_same_v<std::remove_cvref_t<First>, std::shared_ptr<Impl>>) explicit ModuleHolder(First&& first,
                                                                                                     Rest&&... rest)
      : impl_(std::make_shared<Impl>(std::forward<First>(first), std::forward<Rest>(rest)...)) {}
  /// The module.
  Impl* operator->() const { return impl_.get(); }
  /// The module.
  Impl& operator*() const { return *impl_; }
  /// The pointer.
  const std::shared_ptr<Impl>& ptr() const { return impl_; }
  /// The module.
  Impl* get() const { return impl_.get(); }
  /// True when it holds nothing.
  bool is_empty() const { return impl_ == nullptr; }
  /// True when it holds a module.
  explicit operator bool() const { return impl_ != nullptr; }
  /// The module as Kindling's containers take it (nn::Sequential of holders).
  operator std::shared_ptr<::kindling::nn::Module>() const { return impl_; }  // NOLINT(google-explicit-constructor)
  /// The module's forward.
  template <class... Args>
  auto operator()(Args&&... args) const {
    return impl_->forward(std::forward<Args>(args)...);
  }

 private:
  std::shared_ptr<Impl> impl_;
};

/// LibTorch's torch::nn::Module is Kindling's: register_module and replace_module take a holder
/// too, a module without a name prints as its class (`NetImpl(`), and every built-in `*Impl`
/// below derives from it, so a `torch::nn::Module&` binds to any of them.
using Module = ::kindling::nn::Module;

/// LinearOptions(in, out).bias(false).
class LinearOptions {
 public:
  /// in_features, out_features.
  LinearOptions(std::int64_t in, std::int64_t out) : in_(in), out_(out) {}
  /// With or without a bias.
  LinearOptions& bias(bool on) {
    bias_ = on;
    return *this;
  }
  std::int64_t in_features() const { return in_; }    ///< in_features
  std::int64_t out_features() const { return out_; }  ///< out_features
  bool bias() const { return bias_; }                 ///< the bias flag

 private:
  std::int64_t in_, out_;
  bool bias_ = true;
};
/// The module a torch::nn::Linear holds.
class LinearImpl : public ::kindling::nn::Linear {
 public:
  /// in_features, out_features.
  LinearImpl(std::int64_t in, std::int64_t out) : ::kindling::nn::Linear(in, out) {}
  /// From options.
  explicit LinearImpl(const LinearOptions& o) : ::kindling::nn::Linear(o.in_features(), o.out_features(), o.bias()) {}
};

/// Conv2dOptions(in, out, kernel).stride(s).padding(p).dilation(d).groups(g).bias(b).
class Conv2dOptions {
 public:
  /// in_channels, out_channels, kernel_size.
  Conv2dOptions(std::int64_t in, std::int64_t out, Pair2 kernel) : in_(in), out_(out), kernel_(kernel) {}
  Conv2dOptions& stride(Pair2 v) {  ///< the stride
    o_.stride = v;
    return *this;
  }
  Conv2dOptions& padding(Pair2 v) {  ///< the padding
    o_.padding = v;
    return *this;
  }
  Conv2dOptions& dilation(Pair2 v) {  ///< the dilation
    o_.dilation = v;
    return *this;
  }
  Conv2dOptions& groups(std::int64_t v) {  ///< the groups
    o_.groups = v;
    return *this;
  }
  Conv2dOptions& bias(bool v) {  ///< the bias flag
    o_.bias = v;
    return *this;
  }
  std::int64_t in_channels() const { return in_; }                  ///< in_channels
  std::int64_t out_channels() const { return out_; }                ///< out_channels
  Pair2 kernel_size() const { return kernel_; }                     ///< kernel_size
  const ::kindling::nn::Conv2dOptions& rest() const { return o_; }  ///< Kindling's options

 private:
  std::int64_t in_, out_;
  Pair2 kernel_;
  ::kindling::nn::Conv2dOptions o_;
};
/// The module a torch::nn::Conv2d holds.
class Conv2dImpl : public ::kindling::nn::Conv2d {
 public:
  /// in, out, kernel.
  Conv2dImpl(std::int64_t in, std::int64_t out, Pair2 kernel) : ::kindling::nn::Conv2d(in, out, kernel) {}
  /// From options.
  explicit Conv2dImpl(const Conv2dOptions& o)
      : ::kindling::nn::Conv2d(o.in_channels(), o.out_channels(), o.kernel_size(), o.rest()) {}
};

/// ConvTranspose2dOptions(in, out, kernel).stride(s).padding(p).output_padding(o).dilation(d).bias(b).
class ConvTranspose2dOptions {
 public:
  /// in_channels, out_channels, kernel_size.
  ConvTranspose2dOptions(std::int64_t in, std::int64_t out, Pair2 kernel) : in_(in), out_(out), kernel_(kernel) {}
  ConvTranspose2dOptions& stride(Pair2 v) {  ///< the stride
    o_.stride = v;
    return *this;
  }
  ConvTranspose2dOptions& padding(Pair2 v) {  ///< the padding
    o_.padding = v;
    return *this;
  }
  ConvTranspose2dOptions& output_padding(Pair2 v) {  ///< the output padding
    o_.output_padding = v;
    return *this;
  }
  ConvTranspose2dOptions& dilation(Pair2 v) {  ///< the dilation
    o_.dilation = v;
    return *this;
  }
  ConvTranspose2dOptions& bias(bool v) {  ///< the bias flag
    o_.bias = v;
    return *this;
  }
  std::int64_t in_channels() const { return in_; }                           ///< in_channels
  std::int64_t out_channels() const { return out_; }                         ///< out_channels
  Pair2 kernel_size() const { return kernel_; }                              ///< kernel_size
  const ::kindling::nn::ConvTranspose2dOptions& rest() const { return o_; }  ///< Kindling's options

 private:
  std::int64_t in_, out_;
  Pair2 kernel_;
  ::kindling::nn::ConvTranspose2dOptions o_;
};
/// The module a torch::nn::ConvTranspose2d holds.
class ConvTranspose2dImpl : public ::kindling::nn::ConvTranspose2d {
 public:
  /// in, out, kernel.
  ConvTranspose2dImpl(std::int64_t in, std::int64_t out, Pair2 kernel)
      : ::kindling::nn::ConvTranspose2d(in, out, kernel) {}
  /// From options.
  explicit ConvTranspose2dImpl(const ConvTranspose2dOptions& o)
      : ::kindling::nn::ConvTranspose2d(o.in_channels(), o.out_channels(), o.kernel_size(), o.rest()) {}
};

/// The module a torch::nn::Dropout holds.
class DropoutImpl : public ::kindling::nn::Dropout {
 public:
  /// With probability p.
  explicit DropoutImpl(double prob = 0.5) : ::kindling::nn::Dropout(prob) {}
};
/// Dropout of whole channels (torch::nn::Dropout2d; LibTorch's FeatureDropout is its old name).
class Dropout2dImpl : public ::kindling::nn::Module {
 public:
  /// With probability p.
  explicit Dropout2dImpl(double prob = 0.5) : ::kindling::nn::Module("Dropout2d"), p(prob) {}
  /// torch::feature_dropout(x, p, is_training()).
  Tensor forward(const Tensor& x) override { return torch::feature_dropout(x, p, is_training()); }
  double p;  ///< the probability of dropping a channel
};
using FeatureDropoutImpl = Dropout2dImpl;  ///< LibTorch's old name

/// LeakyReLUOptions().negative_slope(s).
class LeakyReLUOptions {
 public:
  LeakyReLUOptions& negative_slope(double v) {  ///< the slope below 0
    slope_ = v;
    return *this;
  }
  double negative_slope() const { return slope_; }  ///< the slope below 0

 private:
  double slope_ = 0.01;
};
/// The module a torch::nn::LeakyReLU holds.
class LeakyReLUImpl : public ::kindling::nn::LeakyReLU {
 public:
  /// From options.
  explicit LeakyReLUImpl(const LeakyReLUOptions& o = {}) : ::kindling::nn::LeakyReLU(o.negative_slope()) {}
};
/// The module a torch::nn::Sigmoid holds.
class SigmoidImpl : public ::kindling::nn::Sigmoid {
 public:
  SigmoidImpl() = default;  ///< Sigmoid
};
/// The module a torch::nn::Tanh holds.
class TanhImpl : public ::kindling::nn::Tanh {
 public:
  TanhImpl() = default;  ///< Tanh
};
/// The module a torch::nn::Functional holds: a function as a module (for a Sequential), e.g.
/// `nn::Functional(torch::relu)` or a lambda.
class FunctionalImpl : public ::kindling::nn::Module {
 public:
  /// Wraps `fn`.
  explicit FunctionalImpl(std::function<Tensor(const Tensor&)> fn)
      : ::kindling::nn::Module("Functional"), fn_(std::move(fn)) {}
  /// Wraps a function of a tensor (an overload set such as torch::relu picks this one).
  explicit FunctionalImpl(Tensor (*fn)(const Tensor&)) : FunctionalImpl(std::function<Tensor(const Tensor&)>(fn)) {}
  /// fn(x).
  Tensor forward(const Tensor& x) override { return fn_(x); }

 private:
  std::function<Tensor(const Tensor&)> fn_;
};

/// One module of a Sequential as LibTorch's iteration yields it (an AnyModule): `m.forward<>(x)`.
class AnyModule {
 public:
  /// Over `module`.
  explicit AnyModule(std::shared_ptr<::kindling::nn::Module> module) : module_(std::move(module)) {}
  /// The module's forward (one tensor in, one out; `R` is LibTorch's return-type argument).
  template <class R = Tensor>
  R forward(const Tensor& x) const {
    return module_->forward(x);
  }
  /// The module.
  const std::shared_ptr<::kindling::nn::Module>& ptr() const { return module_; }

 private:
  std::shared_ptr<::kindling::nn::Module> module_;
};

/// The module a torch::nn::Sequential holds: Kindling's, built from holders or modules, and
/// iterable as LibTorch's (`for (auto m : *seq) x = m.forward<>(x);`).
class SequentialImpl : public ::kindling::nn::Sequential {
 public:
  using ::kindling::nn::Sequential::Sequential;
  /// Walks the modules in order, each as an AnyModule (LibTorch's iteration over a Sequential).
  class Iterator {
   public:
    using value_type = AnyModule;                                                ///< what it yields
    using difference_type = std::ptrdiff_t;                                      ///< a distance
    Iterator(const SequentialImpl* seq, std::size_t at) : seq_(seq), at_(at) {}  ///< at module `at`
    AnyModule operator*() const { return AnyModule(seq_->children().at(at_)); }  ///< the module
    Iterator& operator++() {                                                     ///< the next one
      ++at_;
      return *this;
    }
    Iterator operator++(int) {  ///< the next one, returning this
      Iterator before = *this;
      ++at_;
      return before;
    }
    bool operator==(const Iterator& other) const { return at_ == other.at_; }  ///< same place
    bool operator!=(const Iterator& other) const { return at_ != other.at_; }  ///< another place
    difference_type operator-(const Iterator& other) const {                   ///< the distance
      return static_cast<difference_type>(at_) - static_cast<difference_type>(other.at_);
    }

   private:
    const SequentialImpl* seq_;
    std::size_t at_;
  };
  Iterator begin() const { return {this, 0}; }     ///< the first module
  Iterator end() const { return {this, size()}; }  ///< past the last module
};

/// The module a torch::nn::ReLU holds.
class ReLUImpl : public ::kindling::nn::ReLU {
 public:
  ReLUImpl() = default;  ///< ReLU
};

/// The module a torch::nn::MSELoss holds.
class MSELossImpl : public ::kindling::nn::MSELoss {
 public:
  MSELossImpl() = default;  ///< mean reduction
};
/// The module a torch::nn::CrossEntropyLoss holds.
class CrossEntropyLossImpl : public ::kindling::nn::CrossEntropyLoss {
 public:
  CrossEntropyLossImpl() = default;  ///< mean reduction
};

}  // namespace nn
}  // namespace torch

namespace torch::nn {
/// A holder prints as its module.
template <class Impl>
std::ostream& operator<<(std::ostream& out, const ModuleHolder<Impl>& holder) {
  return out << static_cast<const ::kindling::nn::Module&>(*holder);
}
}  // namespace torch::nn

/// LibTorch's macro: `TORCH_MODULE(Net)` makes `Net` the holder of `NetImpl`.
#define TORCH_MODULE(Name)                                     \
  class Name : public ::torch::nn::ModuleHolder<Name##Impl> {  \
   public:                                                     \
    using ::torch::nn::ModuleHolder<Name##Impl>::ModuleHolder; \
  }

namespace torch::nn {
/// torch::nn::Linear: the holder of LinearImpl.
TORCH_MODULE(Linear);
/// torch::nn::Conv2d: the holder of Conv2dImpl.
TORCH_MODULE(Conv2d);
/// torch::nn::ConvTranspose2d: the holder of ConvTranspose2dImpl.
TORCH_MODULE(ConvTranspose2d);
/// torch::nn::Dropout: the holder of DropoutImpl.
TORCH_MODULE(Dropout);
/// torch::nn::Dropout2d: the holder of Dropout2dImpl.
TORCH_MODULE(Dropout2d);
/// torch::nn::FeatureDropout: the holder of FeatureDropoutImpl.
TORCH_MODULE(FeatureDropout);
/// torch::nn::LeakyReLU: the holder of LeakyReLUImpl.
TORCH_MODULE(LeakyReLU);
/// torch::nn::Sigmoid: the holder of SigmoidImpl.
TORCH_MODULE(Sigmoid);
/// torch::nn::Tanh: the holder of TanhImpl.
TORCH_MODULE(Tanh);
/// torch::nn::Functional: the holder of FunctionalImpl.
TORCH_MODULE(Functional);
/// torch::nn::Sequential: the holder of SequentialImpl.
TORCH_MODULE(Sequential);
/// torch::nn::ReLU: the holder of ReLUImpl.
TORCH_MODULE(ReLU);
/// torch::nn::MSELoss: the holder of MSELossImpl.
TORCH_MODULE(MSELoss);
/// torch::nn::CrossEntropyLoss: the holder of CrossEntropyLossImpl.
TORCH_MODULE(CrossEntropyLoss);
}  // namespace torch::nn
