// MUTANT: probability targets: "mean" divides by every element (rows x classes) instead of the number of rows
// Task week05.cross_entropy. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week05.cross_entropy`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/join.hpp>
#include <kindling/loss.hpp>
#include <kindling/ops.hpp>

#include "loss_internal.hpp"

namespace kindling::nn::functional {

/// log softmax(x) along `dim`, as x - m - log(sum(exp(x - m))) where m is the max
/// of x along `dim` (kept as a size-1 dim, and detached: the shift changes no
/// gradient). Build it from differentiable operations (max, exp, sum, log, -), so
/// that autograd gives its gradient. Without the shift, exp(1e4) overflows to
/// infinity and the result is NaN; with it, the largest term is exp(0) = 1.
Tensor stable_log_softmax(const Tensor& x, std::int64_t dim) {
  // BEGIN SOLUTION week05.cross_entropy
  const Tensor m = std::get<0>(max(x.detach(), dim, /*keepdim=*/true));
  const Tensor shifted = x - m;
  return shifted - log(sum(exp(shifted), {dim}, /*keepdim=*/true));
  // END SOLUTION
}

/// Cross-entropy of logits, as PyTorch 1.13 computes it. With C classes along the
/// class dim (dim 1, or dim 0 for an unbatched (C) input) and logp =
/// stable_log_softmax(input, class_dim):
/// - **class-index targets** (int64): the loss is nll_loss(logp, target, weight,
///   ignore_index, reduction). With label_smoothing e > 0 it is
///   (1 - e) * that + (e / C) * smooth, where smooth = -sum over classes of
///   logp * weight (the weight broadcast along the class dim, or 1), set to 0 where
///   the target is ignored, and then: summed ("sum"), kept ("none"), or for "mean"
///   divided by the sum of weight[target] over the targets kept (with a weight) or
///   averaged over the targets kept (without).
/// - **probability targets** (a target of input's very shape; it must be floating:
///   "Expected floating point type for target with class probabilities, got Long"):
///   with label smoothing the
///   target first becomes (1 - e) target + e / C; the loss is
///   -sum over classes of logp * target * weight; "mean" divides the total by the
///   number of rows (input.numel() / C).
/// Which kind a target is follows from its shape, as in PyTorch: input's shape means
/// probabilities, anything else class indices (whose errors nll_loss reports; a
/// weight of the wrong length is one of them, and must be reported before anything
/// else uses the weight: detail::check_nll_shapes says it in PyTorch's words).
Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyOptions& options) {
  // BEGIN SOLUTION week05.cross_entropy
  detail::check_reduction(options.reduction);
  const std::int64_t class_dim = input.dim() == 1 ? 0 : 1;
  const std::int64_t n_classes = input.size(class_dim);
  const double e = options.label_smoothing;
  KINDLING_CHECK(e >= 0.0 && e <= 1.0, "label_smoothing must be between 0.0 and 1.0. Got: ", e);
  if (target.sizes().vec() != input.sizes().vec() &&
      (input.dim() == 1 || (target.dim() >= 1 && input.size(0) == target.size(0))))
    detail::check_nll_shapes(input, target, options.weight);
  const Tensor logp = stable_log_softmax(input, class_dim);
  // The weight as a (C, 1, 1, ...) column that broadcasts along the class dim.
  Tensor w;
  if (options.weight.defined()) {
    Shape shape(static_cast<std::size_t>(input.dim()), 1);
    shape[static_cast<std::size_t>(class_dim)] = n_classes;
    w = options.weight.reshape(shape);
  }
  if (target.sizes().vec() == input.sizes().vec()) {
    KINDLING_CHECK(target.is_floating_point(), "Expected floating point type for target with class probabilities, got ",
                   std::string(dtype_short_name(target.scalar_type())));
    Tensor t = e > 0 ? target * (1.0 - e) + e / static_cast<double>(n_classes) : target;
    Tensor terms = logp * t;
    if (w.defined()) terms = terms * w;
    if (options.reduction == "none") return -sum(terms, {class_dim});
    if (options.reduction == "sum") return -terms.sum();
    return -terms.sum() / static_cast<double>(input.numel());
  }
  const Tensor nll = nll_loss(logp, target, options.weight, options.ignore_index, options.reduction);
  if (e <= 0) return nll;
  const Tensor kept = ne(target, Scalar(options.ignore_index));
  Tensor smooth = -sum(w.defined() ? logp * w : logp, {class_dim});
  smooth = smooth * kept.to(smooth.dtype());
  Tensor reduced;
  if (options.reduction == "none") {
    reduced = smooth;
  } else if (options.reduction == "sum") {
    reduced = smooth.sum();
  } else if (w.defined()) {
    const Tensor safe = where(kept, target, zeros_like(target));
    reduced =
        smooth.sum() / (index_select(options.weight, 0, safe.flatten()) * kept.flatten().to(smooth.dtype())).sum();
  } else {
    reduced = smooth.sum() / kept.to(smooth.dtype()).sum();
  }
  return nll * (1.0 - e) + reduced * (e / static_cast<double>(n_classes));
  // END SOLUTION
}

}  // namespace kindling::nn::functional
