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
  // BEGIN TASK week05.cross_entropy (replace the stub below with your code)
  KINDLING_TODO("week05.cross_entropy");
  // END TASK
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
  // BEGIN TASK week05.cross_entropy (replace the stub below with your code)
  KINDLING_TODO("week05.cross_entropy");
  // END TASK
}

}  // namespace kindling::nn::functional
