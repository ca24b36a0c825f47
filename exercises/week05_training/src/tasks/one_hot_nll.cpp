// Task week05.one_hot_nll. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week05.one_hot_nll`.

#include <algorithm>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>
#include <kindling/join.hpp>
#include <kindling/loss.hpp>
#include <kindling/ops.hpp>

#include "loss_internal.hpp"

namespace kindling::nn::functional {

/// one_hot(target, num_classes): int64, shape target.sizes() + (num_classes), with
/// out[..., target[...]] = 1 and 0 elsewhere (what PyTorch's
/// `zeros(...).scatter_(-1, target.unsqueeze(-1), 1)` writes). num_classes = -1
/// means max(target) + 1. Errors (kindling::Error), checked in this order:
/// a target that is not int64: "one_hot is only applicable to index tensor.";
/// an empty target with num_classes -1: "Can not infer total number of classes
/// from empty tensor."; then the smallest value negative: "Class values must be
/// non-negative."; then the largest >= num_classes: "Class values must be smaller
/// than num_classes.". The result is on target's device (a CUDA target gives a CUDA one-hot).
Tensor one_hot(const Tensor& target, std::int64_t num_classes) {
  // BEGIN TASK week05.one_hot_nll (replace the stub below with your code)
  KINDLING_TODO("week05.one_hot_nll");
  // END TASK
}

/// nll_loss(input, target, weight, ignore_index, reduction) for log-probabilities
/// `input` of shape (N, C), (C) (with a 0-d target) or (N, C, d1, ...) (with
/// target (N, d1, ...)). Each target position contributes -weight[t] * input[t]
/// (weight 1 without one; 0 where t == ignore_index). "none" keeps them in
/// target's shape, "sum" adds them, "mean" divides that sum by the sum of the
/// weights of the positions kept (NaN when none is kept, as 0/0).
/// Build it from differentiable operations so that autograd gives the gradient:
/// one_hot of the targets (ignored ones replaced by 0), moved to the class dim,
/// times input, summed over the class dim.
/// Errors, in PyTorch's words: a target that is not int64 (kindling::Error
/// "expected scalar type Long but found Float"); N differing from the target's
/// first size (ValueError "Expected input batch_size (3) to match target
/// batch_size (2)."), then a target or weight of the wrong shape (the checks
/// detail::check_nll_shapes makes: call it); a kept target outside [0, C)
/// (IndexError "Target 3 is out of bounds.").
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, std::int64_t ignore_index,
                const std::string& reduction) {
  // BEGIN TASK week05.one_hot_nll (replace the stub below with your code)
  KINDLING_TODO("week05.one_hot_nll");
  // END TASK
}

}  // namespace kindling::nn::functional
