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
  /// apply(), taking the gradient: when nothing else holds it, it becomes `.grad`
  /// without a copy (accumulate_grad's rule), as PyTorch's AccumulateGrad does.
  TensorList apply_moved(Tensor&& grad_output) override;
  /// The leaf.
  const Tensor& variable() const { return saved_[0].data(); }
  void release_variables() override {}  // the leaf is not a saved intermediate
};

/// Adds `new_grad` (same shape as `variable`) into `meta.grad`, as PyTorch's AccumulateGrad does.
/// (Task week02.accumulate_grad: the contract and the code are in src/tasks/accumulate_grad.cpp.)
void accumulate_grad(AutogradMeta& meta, Tensor new_grad);

/// Resets the gradients of `params`, as `optimizer.zero_grad()` does in PyTorch 1.13.
/// (Task week02.accumulate_grad: the contract and the code are in src/tasks/accumulate_grad.cpp.)
void zero_grad(const TensorList& params, bool set_to_none = false);

}  // namespace kindling::autograd
