#pragma once
/// @file torch/functional.hpp
/// LibTorch's torch::nn::functional: Kindling's functional namespace, plus the functions LibTorch
/// has there and Kindling keeps elsewhere (relu, softmax, log_softmax) and the forms that take a
/// `*FuncOptions` builder (`F::binary_cross_entropy(x, t, BinaryCrossEntropyFuncOptions()
/// .reduction(torch::kSum))`). Part of <kindling/torch.hpp>.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <kindling/nn.hpp>
#include <kindling/torch/utils.hpp>
#include <kindling/training.hpp>

namespace torch::nn::functional {
using namespace ::kindling::nn::functional;  // NOLINT(google-build-using-namespace): conv2d, dropout, losses, ...
// Names overloaded below: Kindling's forms stay visible beside the options forms.
using ::kindling::nn::functional::binary_cross_entropy;
using ::kindling::nn::functional::cross_entropy;
using ::kindling::nn::functional::dropout;
using ::kindling::nn::functional::max_pool2d;
using ::kindling::nn::functional::mse_loss;
using ::kindling::nn::functional::nll_loss;

/// max(x, 0).
inline Tensor relu(const Tensor& x) { return ::kindling::relu(x); }
/// softmax along `dim`.
inline Tensor softmax(const Tensor& x, std::int64_t dim) { return ::kindling::softmax(x, dim); }
/// log-softmax along `dim`.
inline Tensor log_softmax(const Tensor& x, std::int64_t dim) { return ::kindling::log_softmax(x, dim); }

/// The options of softmax and log_softmax: the dimension.
class SoftmaxFuncOptions {
 public:
  /// Along `dim`.
  explicit SoftmaxFuncOptions(std::int64_t dim) : dim_(dim) {}
  std::int64_t dim() const { return dim_; }  ///< the dimension

 private:
  std::int64_t dim_;
};
using LogSoftmaxFuncOptions = SoftmaxFuncOptions;  ///< the same option
/// softmax with options.
inline Tensor softmax(const Tensor& x, const SoftmaxFuncOptions& o) { return ::kindling::softmax(x, o.dim()); }
/// log_softmax with options.
inline Tensor log_softmax(const Tensor& x, const SoftmaxFuncOptions& o) { return ::kindling::log_softmax(x, o.dim()); }

/// A loss's options: the reduction (torch::kMean, kSum or kNone) and, for the weighted
/// losses, a weight.
class LossFuncOptions {
 public:
  /// mean reduction, no weight.
  LossFuncOptions() = default;
  /// With `reduction`.
  LossFuncOptions(EnumToken reduction) : reduction_(reduction.name) {}  // NOLINT(google-explicit-constructor)
  LossFuncOptions& reduction(EnumToken r) {                             ///< the reduction
    reduction_ = std::string(r.name);
    return *this;
  }
  LossFuncOptions& weight(const Tensor& w) {  ///< a weight per element (or per class)
    weight_ = w;
    return *this;
  }
  LossFuncOptions& ignore_index(std::int64_t i) {  ///< a class index that counts for nothing
    ignore_index_ = i;
    return *this;
  }
  const std::string& reduction() const { return reduction_; }  ///< "mean", "sum" or "none"
  const Tensor& weight() const { return weight_; }             ///< the weight (undefined: none)
  std::int64_t ignore_index() const { return ignore_index_; }  ///< the ignored class

 private:
  std::string reduction_ = "mean";
  Tensor weight_;
  std::int64_t ignore_index_ = -100;
};
using BinaryCrossEntropyFuncOptions = LossFuncOptions;  ///< reduction, weight
using MSELossFuncOptions = LossFuncOptions;             ///< reduction
using NLLLossFuncOptions = LossFuncOptions;             ///< reduction, weight, ignore_index
using CrossEntropyFuncOptions = LossFuncOptions;        ///< reduction, weight, ignore_index

/// binary_cross_entropy with options.
inline Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const LossFuncOptions& o) {
  return ::kindling::nn::functional::binary_cross_entropy(input, target, o.weight(), o.reduction());
}
/// mse_loss with options.
inline Tensor mse_loss(const Tensor& input, const Tensor& target, const LossFuncOptions& o) {
  return ::kindling::nn::functional::mse_loss(input, target, o.reduction());
}
/// nll_loss with options.
inline Tensor nll_loss(const Tensor& input, const Tensor& target, const LossFuncOptions& o) {
  return ::kindling::nn::functional::nll_loss(input, target, o.weight(), o.ignore_index(), o.reduction());
}
/// cross_entropy with options.
inline Tensor cross_entropy(const Tensor& input, const Tensor& target, const LossFuncOptions& o) {
  ::kindling::nn::functional::CrossEntropyOptions k;
  k.weight = o.weight();
  k.ignore_index = o.ignore_index();
  k.reduction = o.reduction();
  return ::kindling::nn::functional::cross_entropy(input, target, k);
}

/// DropoutFuncOptions().p(0.2).training(false).
class DropoutFuncOptions {
 public:
  DropoutFuncOptions& p(double v) {  ///< the probability of a zero
    p_ = v;
    return *this;
  }
  DropoutFuncOptions& training(bool v) {  ///< dropping at all
    training_ = v;
    return *this;
  }
  double p() const { return p_; }              ///< the probability
  bool training() const { return training_; }  ///< the flag

 private:
  double p_ = 0.5;
  bool training_ = true;
};
/// dropout with options.
inline Tensor dropout(const Tensor& x, const DropoutFuncOptions& o) {
  return ::kindling::nn::functional::dropout(x, o.p(), o.training());
}

/// MaxPool2dFuncOptions(kernel).stride(s).padding(p) (also the options of the module).
class MaxPool2dFuncOptions {
 public:
  /// The window.
  MaxPool2dFuncOptions(::kindling::nn::Pair2 kernel) : kernel_(kernel) {}  // NOLINT(google-explicit-constructor)
  MaxPool2dFuncOptions& stride(::kindling::nn::Pair2 v) {                  ///< the step (default: the window)
    stride_ = v;
    return *this;
  }
  MaxPool2dFuncOptions& padding(::kindling::nn::Pair2 v) {  ///< implicit padding
    padding_ = v;
    return *this;
  }
  MaxPool2dFuncOptions& dilation(::kindling::nn::Pair2 v) {  ///< spacing of the window's taps
    dilation_ = v;
    return *this;
  }
  MaxPool2dFuncOptions& ceil_mode(bool v) {  ///< round the output size up
    ceil_mode_ = v;
    return *this;
  }
  ::kindling::nn::Pair2 kernel_size() const { return kernel_; }            ///< the window
  std::optional<::kindling::nn::Pair2> stride() const { return stride_; }  ///< the step
  ::kindling::nn::Pair2 padding() const { return padding_; }               ///< the padding
  ::kindling::nn::Pair2 dilation() const { return dilation_; }             ///< the dilation
  bool ceil_mode() const { return ceil_mode_; }                            ///< ceil mode

 private:
  ::kindling::nn::Pair2 kernel_;
  std::optional<::kindling::nn::Pair2> stride_;
  ::kindling::nn::Pair2 padding_ = 0;
  ::kindling::nn::Pair2 dilation_ = 1;
  bool ceil_mode_ = false;
};
using AvgPool2dFuncOptions = MaxPool2dFuncOptions;  ///< the same builder (dilation unused)
/// max_pool2d with options.
inline Tensor max_pool2d(const Tensor& x, const MaxPool2dFuncOptions& o) {
  return ::kindling::nn::functional::max_pool2d(x, o.kernel_size(), o.stride(), o.padding(), o.dilation(),
                                                o.ceil_mode());
}

}  // namespace torch::nn::functional
