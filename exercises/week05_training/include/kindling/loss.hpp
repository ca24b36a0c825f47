#pragma once
/// @file loss.hpp
/// Loss functions, in functional form (nn::functional, alias F) and as modules,
/// with PyTorch 1.13's values, gradients, shapes and error texts.
/// `reduction` is "none", "mean" (the default) or "sum".

#include <cstdint>
#include <string>

#include <kindling/module.hpp>
#include <kindling/tensor.hpp>

namespace kindling::nn {

namespace functional {

/// Options of cross_entropy and CrossEntropyLoss (torch.nn.functional.cross_entropy).
struct CrossEntropyOptions {
  Tensor weight;                     ///< (C) rescaling of each class, or undefined
  std::int64_t ignore_index = -100;  ///< class-index targets equal to it count for nothing
  std::string reduction = "mean";    ///< "none", "mean" or "sum"
  double label_smoothing = 0.0;      ///< in [0, 1]: mix the target with the uniform distribution
};

/// The log-softmax of `x` along `dim`, computed as x - max - log(sum(exp(x - max))):
/// the max shift (log-sum-exp) keeps exp from overflowing, so logits of +-1e4 give
/// finite results. Differentiable. (Task week05.cross_entropy.)
Tensor stable_log_softmax(const Tensor& x, std::int64_t dim);

/// Cross-entropy of logits `input` against `target`: -log softmax(input)[target].
/// `input` is (N, C), (C) or (N, C, d1, ...). `target` holds class indices (int64,
/// shape (N), () or (N, d1, ...)) or class probabilities (float, input's shape).
/// With label_smoothing e, the target becomes (1 - e) target + e / C.
/// (Task week05.cross_entropy.)
Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyOptions& options = {});

/// Negative log-likelihood of log-probabilities `input` ((N, C), (C) or (N, C, d1, ...))
/// at class indices `target`: -w[t] input[t], with `mean` dividing by the sum of
/// the weights of the targets that are not ignored. (Task week05.one_hot_nll.)
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {}, std::int64_t ignore_index = -100,
                const std::string& reduction = "mean");

/// A one-hot int64 tensor of shape target.sizes() + (num_classes): 1 at each
/// target's class, 0 elsewhere. num_classes = -1 means max(target) + 1.
/// (Task week05.one_hot_nll.)
Tensor one_hot(const Tensor& target, std::int64_t num_classes = -1);

/// (input - target)^2.
Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
/// |input - target|.
Tensor l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
/// 0.5 d^2 / beta where d = |input - target| < beta, else d - 0.5 beta.
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
                      double beta = 1.0);
/// 0.5 d^2 where d = |input - target| < delta, else delta (d - 0.5 delta).
Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean", double delta = 1.0);
/// -w (t log x + (1 - t) log(1 - x)) for probabilities x, each log clamped to >= -100.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                            const std::string& reduction = "mean");
/// binary_cross_entropy(sigmoid(x), t) computed stably from the logits x, with
/// `pos_weight` (broadcast over the last dim) weighting the positive term.
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                        const std::string& reduction = "mean", const Tensor& pos_weight = {});

}  // namespace functional

/// A loss as a module: `loss(input, target)`. Its repr is PyTorch's (`CrossEntropyLoss()`).
class Loss : public Module {
 public:
  /// A loss module printed as `type_name`, with `reduction`.
  Loss(std::string type_name, std::string reduction);
  using Module::forward;
  /// The loss of `input` against `target`.
  virtual Tensor forward(const Tensor& input, const Tensor& target) = 0;
  /// forward(input, target).
  Tensor operator()(const Tensor& input, const Tensor& target) { return forward(input, target); }
  std::string reduction;  ///< "none", "mean" or "sum"
};

/// nn.CrossEntropyLoss.
class CrossEntropyLoss : public Loss {
 public:
  /// With the options of F::cross_entropy.
  explicit CrossEntropyLoss(functional::CrossEntropyOptions options = {});
  /// F::cross_entropy(input, target, options).
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  functional::CrossEntropyOptions options;  ///< weight, ignore_index, label_smoothing (reduction is Loss's)
};

/// nn.NLLLoss.
class NLLLoss : public Loss {
 public:
  /// With a class weight (or none), ignore_index and reduction.
  explicit NLLLoss(Tensor weight = {}, std::int64_t ignore_index = -100, std::string reduction = "mean");
  /// F::nll_loss.
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  Tensor weight;              ///< (C) or undefined
  std::int64_t ignore_index;  ///< the target value that counts for nothing
};

/// nn.MSELoss.
class MSELoss : public Loss {
 public:
  /// With `reduction`.
  explicit MSELoss(std::string reduction_ = "mean") : Loss("MSELoss", std::move(reduction_)) {}
  /// F::mse_loss.
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

/// nn.L1Loss.
class L1Loss : public Loss {
 public:
  /// With `reduction`.
  explicit L1Loss(std::string reduction_ = "mean") : Loss("L1Loss", std::move(reduction_)) {}
  /// F::l1_loss.
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

/// nn.BCEWithLogitsLoss.
class BCEWithLogitsLoss : public Loss {
 public:
  /// With an element weight, reduction and pos_weight (each may be undefined).
  explicit BCEWithLogitsLoss(Tensor weight = {}, std::string reduction = "mean", Tensor pos_weight = {});
  /// F::binary_cross_entropy_with_logits.
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  Tensor weight;      ///< or undefined
  Tensor pos_weight;  ///< or undefined
};

}  // namespace kindling::nn
