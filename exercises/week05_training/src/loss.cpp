// The losses other than the week's tasks, as PyTorch 1.13 computes them, built from
// differentiable operations so that autograd supplies their gradients.

#include <kindling/backward.hpp>  // autograd::torch_size_string
#include <kindling/factory.hpp>
#include <kindling/join.hpp>
#include <kindling/loss.hpp>
#include <kindling/no_grad.hpp>
#include <kindling/ops.hpp>

#include "loss_internal.hpp"
#include "nn_internal.hpp"

namespace kindling::nn::functional {

namespace detail {

void check_reduction(const std::string& reduction) {
  KINDLING_CHECK_AS(ValueError, reduction == "none" || reduction == "mean" || reduction == "sum", reduction,
                    " is not a valid value for reduction");
}

void check_nll_shapes(const Tensor& input, const Tensor& target, const Tensor& weight) {
  const std::int64_t d = input.dim();
  if (d <= 2) {  // nll_loss proper
    KINDLING_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
    const bool no_batch_dim = d == 1 && target.dim() == 0;
    KINDLING_CHECK(no_batch_dim || (target.dim() == 1 && input.size(0) == target.size(0)),
                   "size mismatch (got input: ", to_string(input.sizes()), ", target: ", to_string(target.sizes()),
                   ")");
    const std::int64_t classes = input.size(d - 1);
    KINDLING_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == classes),
                   "weight tensor should be defined either for all ", classes,
                   " classes or no classes but got weight tensor of shape: ", to_string(weight.sizes()));
    return;
  }
  if (d == 4) {  // nll_loss2d
    KINDLING_CHECK(
        target.dim() == 3,
        "only batches of spatial targets supported (3D tensors) but got targets of dimension: ", target.dim());
    KINDLING_CHECK(!weight.defined() || weight.numel() == input.size(1),
                   "weight tensor should be defined either for all or no classes");  // before the sizes, as nll_loss2d
    KINDLING_CHECK(
        target.size(0) == input.size(0) && target.size(1) == input.size(2) && target.size(2) == input.size(3),
        "size mismatch (got input: ", to_string(input.sizes()), " , target: ", to_string(target.sizes()));
    return;
  } else {  // 3-D and 5-D or more: the target must be the input's shape without its class dim
    Shape want = input.sizes().vec();
    want.erase(want.begin() + 1);
    KINDLING_CHECK(target.sizes().vec() == want, "Expected target size ", to_string(want), ", got ",
                   to_string(target.sizes()));
  }
  KINDLING_CHECK(!weight.defined() || weight.numel() == input.size(1),
                 "weight tensor should be defined either for all or no classes");
}

Tensor reduce(const Tensor& loss, const std::string& reduction) {
  check_reduction(reduction);
  if (reduction == "none") return loss;
  return reduction == "sum" ? loss.sum() : loss.mean();
}

}  // namespace detail

namespace {
void check_same_size(const Tensor& input, const Tensor& target) {
  KINDLING_CHECK_AS(ValueError, input.sizes().vec() == target.sizes().vec(), "Using a target size (",
                    autograd::torch_size_string(target.sizes()), ") that is different to the input size (",
                    autograd::torch_size_string(input.sizes()),
                    ") is deprecated. Please ensure they have the same size.");
}
}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  const Tensor d = input - target;
  return detail::reduce(d * d, reduction);
}

Tensor l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  return detail::reduce(abs(input - target), reduction);
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction, double beta) {
  const Tensor d = abs(input - target);
  KINDLING_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  if (beta == 0.0) return detail::reduce(d, reduction);
  return detail::reduce(where(lt(d, Scalar(beta)), d * d * (0.5 / beta), d - 0.5 * beta), reduction);
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction, double delta) {
  const Tensor d = abs(input - target);
  KINDLING_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  return detail::reduce(where(lt(d, Scalar(delta)), d * d * 0.5, (d - 0.5 * delta) * delta), reduction);
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            const std::string& reduction) {
  check_same_size(input, target);
  detail::check_reduction(reduction);
  KINDLING_CHECK(target.dtype() == input.dtype(), "Found dtype ", dtype_short_name(target.dtype()), " but expected ",
                 dtype_short_name(input.dtype()));
  {  // probabilities, not logits (a NaN is refused too)
    NoGradGuard no_grad;
    KINDLING_CHECK(ge(input, 0).all().item<bool>() && le(input, 1).all().item<bool>(),
                   "all elements of input should be between 0 and 1");
  }
  // One node, BinaryCrossEntropyBackward0, as in PyTorch: the value clamps each log at
  // -100 (so that a probability of exactly 0 or 1 gives a finite loss), and the gradient
  // is PyTorch's (x - t) / max(x (1 - x), 1e-12) times the weight, finite there too. A
  // composition of log and clamp would give 0/0 at 0 and 1.
  Tensor loss;
  {
    NoGradGuard no_grad;
    const Tensor log_x = clamp(log(input), Scalar(-100.0), std::nullopt);
    const Tensor log_1mx = clamp(log(1.0 - input), Scalar(-100.0), std::nullopt);
    loss = -(target * log_x + (1.0 - target) * log_1mx);
    if (weight.defined()) loss = loss * weight;
  }
  nn::detail::record_function(
      "BinaryCrossEntropyBackward0", loss, {input, target}, {input, target, weight},
      [](const Tensor& grad, const TensorList& saved, const std::vector<bool>& needs) -> TensorList {
        const Tensor &x = saved[0], &t = saved[1], &w = saved[2];
        TensorList grads(2);
        if (needs[0]) {
          Tensor g = grad * (x - t) / clamp(x * (1.0 - x), Scalar(1e-12), std::nullopt);
          grads[0] = w.defined() ? g * w : g;
        }
        if (needs[1]) {
          // d/dt of -(t log x + (1 - t) log(1 - x)) = log(1 - x) - log(x), with the same clamps.
          Tensor g =
              grad * (clamp(log(1.0 - x), Scalar(-100.0), std::nullopt) - clamp(log(x), Scalar(-100.0), std::nullopt));
          grads[1] = w.defined() ? g * w : g;
        }
        return grads;
      });
  return detail::reduce(loss, reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        const std::string& reduction, const Tensor& pos_weight) {
  KINDLING_CHECK_AS(ValueError, input.sizes().vec() == target.sizes().vec(), "Target size (",
                    autograd::torch_size_string(target.sizes()), ") must be the same as input size (",
                    autograd::torch_size_string(input.sizes()), ")");
  // Class labels as integers: PyTorch's in-place arithmetic on the target refuses them in these words.
  KINDLING_CHECK(!is_integral(target.dtype(), false), "result type ",
                 dtype_short_name(promote_types(input.dtype(), target.dtype())),
                 " can't be cast to the desired output type ", dtype_short_name(target.dtype()));
  // log(1 + e^-x) = max(-x, 0) + log(e^-max(-x,0) + e^(-x-max(-x,0))): no exp of a large positive number.
  const Tensor max_val = clamp(-input, Scalar(0.0), std::nullopt);
  Tensor loss;
  if (pos_weight.defined()) {
    const Tensor log_weight = (pos_weight - 1.0) * target + 1.0;
    loss = (1.0 - target) * input + log_weight * (log1p(exp(-abs(input))) + max_val);
  } else {
    loss = (1.0 - target) * input + max_val + log(exp(-max_val) + exp(-input - max_val));
  }
  if (weight.defined()) loss = loss * weight;
  return detail::reduce(loss, reduction);
}

}  // namespace kindling::nn::functional

namespace kindling::nn {

Loss::Loss(std::string type_name, std::string reduction_)
    : Module(std::move(type_name)), reduction(std::move(reduction_)) {
  functional::detail::check_reduction(reduction);
}

CrossEntropyLoss::CrossEntropyLoss(functional::CrossEntropyOptions options_)
    : Loss("CrossEntropyLoss", options_.reduction), options(std::move(options_)) {
  if (options.weight.defined()) register_buffer("weight", options.weight);
}

Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target) {
  functional::CrossEntropyOptions o = options;
  o.reduction = reduction;
  return functional::cross_entropy(input, target, o);
}

NLLLoss::NLLLoss(Tensor weight_, std::int64_t ignore_index_, std::string reduction_)
    : Loss("NLLLoss", std::move(reduction_)), weight(std::move(weight_)), ignore_index(ignore_index_) {
  if (weight.defined()) register_buffer("weight", weight);
}

Tensor NLLLoss::forward(const Tensor& input, const Tensor& target) {
  return functional::nll_loss(input, target, weight, ignore_index, reduction);
}

Tensor MSELoss::forward(const Tensor& input, const Tensor& target) {
  return functional::mse_loss(input, target, reduction);
}

Tensor L1Loss::forward(const Tensor& input, const Tensor& target) {
  return functional::l1_loss(input, target, reduction);
}

BCEWithLogitsLoss::BCEWithLogitsLoss(Tensor weight_, std::string reduction_, Tensor pos_weight_)
    : Loss("BCEWithLogitsLoss", std::move(reduction_)), weight(std::move(weight_)), pos_weight(std::move(pos_weight_)) {
  if (weight.defined()) register_buffer("weight", weight);
  if (pos_weight.defined()) register_buffer("pos_weight", pos_weight);
}

Tensor BCEWithLogitsLoss::forward(const Tensor& input, const Tensor& target) {
  return functional::binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight);
}

}  // namespace kindling::nn
