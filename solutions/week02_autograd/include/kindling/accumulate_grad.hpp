#pragma once
/// @file accumulate_grad.hpp
/// Where gradients end: AccumulateGrad adds into a leaf's `.grad`, and zero_grad
/// resets it.
///
/// Gradients *accumulate*: each backward adds to `.grad` rather than replacing
/// it. That is what lets several losses (or several micro-batches) contribute to
/// one update, and it is why a training loop must reset gradients every step.

#include <kindling/node.hpp>

namespace kindling::autograd {

/// The node at a leaf that requires grad. One per leaf while a graph uses it.
class AccumulateGrad final : public Node {
 public:
  /// An accumulator for `leaf`, which it keeps alive.
  explicit AccumulateGrad(const Tensor& leaf);
  std::string name() const override { return "torch::autograd::AccumulateGrad"; }
  /// Runs the leaf's hooks, then accumulate_grad(); returns no gradients.
  TensorList apply(const Tensor& grad_output) override;
  /// The leaf.
  const Tensor& variable() const { return saved_[0].data(); }
  void release_variables() override {}  // the leaf is not a saved intermediate
};

/// Adds `new_grad` (same shape as `variable`) into `meta.grad`:
/// - no gradient yet: `meta.grad` becomes `new_grad` itself when it is contiguous
///   and nobody else holds it (`new_grad.impl_ptr().use_count() == 1` and its
///   storage is not shared with another tensor: nothing can change it behind the
///   leaf's back), otherwise a contiguous copy (`clone()`), never a view of
///   someone's data;
/// - a gradient already: add in place (`meta.grad.add_(new_grad)`), so that
///   `.grad` keeps its identity across backward calls.
/// The engine calls this with grad mode off.
inline void accumulate_grad(AutogradMeta& meta, Tensor new_grad) {
  // BEGIN SOLUTION week02.accumulate_grad
  if (!meta.grad.defined()) {
    const bool unshared =
        new_grad.impl_ptr().use_count() == 1 && !new_grad.is_view() && new_grad.storage().use_count() == 1;
    meta.grad = unshared && new_grad.is_contiguous() ? std::move(new_grad) : new_grad.clone();
    return;
  }
  meta.grad.add_(new_grad);
  // END SOLUTION
}

/// Resets the gradients of `params`, as `optimizer.zero_grad()` does in PyTorch 1.13:
/// - `set_to_none`: the gradient becomes undefined (the next backward allocates);
/// - otherwise it is zeroed in place (`zero_()`, keeping its storage), after
///   cutting it from any graph (`detach_()`) if it has a grad_fn.
/// Tensors without a gradient are left alone.
inline void zero_grad(const TensorList& params, bool set_to_none = false) {
  // BEGIN SOLUTION week02.accumulate_grad
  for (const Tensor& p : params) {
    Tensor& g = p.mutable_grad();
    if (!g.defined()) continue;
    if (set_to_none) {
      g = Tensor();
      continue;
    }
    if (g.grad_fn()) g.detach_();
    g.zero_();
  }
  // END SOLUTION
}

}  // namespace kindling::autograd
