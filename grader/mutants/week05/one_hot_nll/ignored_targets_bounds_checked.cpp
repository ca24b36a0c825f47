// MUTANT: uses the raw targets for the bounds check and one_hot, so ignore_index -100 is reported out of bounds
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
/// than num_classes.".
Tensor one_hot(const Tensor& target, std::int64_t num_classes) {
  // BEGIN SOLUTION week05.one_hot_nll
  KINDLING_CHECK(target.scalar_type() == kInt64, "one_hot is only applicable to index tensor.");
  const std::vector<std::int64_t> t = target.contiguous().to_vector<std::int64_t>();
  if (num_classes == -1) {
    KINDLING_CHECK(!t.empty(), "Can not infer total number of classes from empty tensor.");
    num_classes = *std::max_element(t.begin(), t.end()) + 1;
  }
  if (!t.empty()) {  // the smallest value first, then the largest, as PyTorch checks them
    KINDLING_CHECK(*std::min_element(t.begin(), t.end()) >= 0, "Class values must be non-negative.");
    KINDLING_CHECK(*std::max_element(t.begin(), t.end()) < num_classes,
                   "Class values must be smaller than num_classes.");
  }
  Shape shape = target.sizes().vec();
  shape.push_back(num_classes);
  Tensor out = zeros(shape, TensorOptions().dtype(kInt64));
  std::int64_t* o = out.data_ptr<std::int64_t>();
  for (std::size_t i = 0; i < t.size(); ++i) o[static_cast<std::int64_t>(i) * num_classes + t[i]] = 1;
  return out;
  // END SOLUTION
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
  // BEGIN SOLUTION week05.one_hot_nll
  detail::check_reduction(reduction);
  KINDLING_CHECK(target.scalar_type() == kInt64, "expected scalar type Long but found ",
                 std::string(dtype_short_name(target.scalar_type())));
  const bool unbatched = input.dim() == 1;
  const Tensor x = unbatched ? input.unsqueeze(0) : input;
  const Tensor t = unbatched ? target.reshape({1}) : target;
  KINDLING_CHECK_AS(ValueError, t.dim() >= 1 && x.size(0) == t.size(0), "Expected input batch_size (", x.size(0),
                    ") to match target batch_size (", t.dim() >= 1 ? t.size(0) : 0, ").");
  detail::check_nll_shapes(input, target, weight);
  const std::int64_t n_classes = x.size(1);
  const Tensor kept = ne(t, Scalar(ignore_index));
  const Tensor safe = t;
  for (const std::int64_t v : safe.contiguous().to_vector<std::int64_t>())
    KINDLING_CHECK_AS(IndexError, v >= 0 && v < n_classes, "Target ", v, " is out of bounds.");
  const Tensor hot = one_hot(safe, n_classes).to(x.dtype()).movedim(-1, 1);
  const Tensor picked = sum(x * hot, {1});
  Tensor w = kept.to(x.dtype());
  if (weight.defined()) w = w * index_select(weight, 0, safe.flatten()).reshape(safe.sizes());
  Tensor loss = -(picked * w);
  if (reduction == "none") return unbatched ? loss.squeeze(0) : loss;
  if (reduction == "sum") return loss.sum();
  return loss.sum() / w.sum();
  // END SOLUTION
}

}  // namespace kindling::nn::functional
