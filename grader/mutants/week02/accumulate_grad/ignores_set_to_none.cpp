// MUTANT: zero_grad ignores set_to_none and always zeroes in place, so the gradient stays defined
// Task week02.accumulate_grad. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week02.accumulate_grad`.

#include <kindling/accumulate_grad.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::autograd {

/// Adds `new_grad` (same shape as `variable`) into `meta.grad`:
/// - no gradient yet: `meta.grad` becomes `new_grad` itself when it is contiguous
///   and nobody else holds it (`new_grad.impl_ptr().use_count() == 1` and its
///   storage is not shared with another tensor: nothing can change it behind the
///   leaf's back), otherwise a contiguous copy (`clone()`), never a view of
///   someone's data; either way without history (PyTorch keeps `new_grad.detach()`:
///   a hook may return a tensor that requires grad, and `.grad` must not);
/// - a gradient already: add in place (`meta.grad.add_(new_grad)`), so that
///   `.grad` keeps its identity across backward calls.
/// The engine calls this with grad mode off.
void accumulate_grad(AutogradMeta& meta, Tensor new_grad) {
  // BEGIN SOLUTION week02.accumulate_grad
  if (!meta.grad.defined()) {
    const bool unshared =
        new_grad.impl_ptr().use_count() == 1 && !new_grad.is_view() && new_grad.storage().use_count() == 1;
    if (!unshared || !new_grad.is_contiguous())
      meta.grad = new_grad.clone();
    else if (new_grad.requires_grad() || new_grad.grad_fn())
      meta.grad = new_grad.detach();
    else
      meta.grad = std::move(new_grad);
    return;
  }
  meta.grad.add_(new_grad);
  // END SOLUTION
}

}  // namespace kindling::autograd

namespace kindling::autograd {

/// Resets the gradients of `params`, as `optimizer.zero_grad()` does in PyTorch 1.13:
/// - `set_to_none`: the gradient becomes undefined (the next backward allocates);
/// - otherwise it is zeroed in place (`zero_()`, keeping its storage), after
///   cutting it from any graph (`detach_()`) if it has a grad_fn.
/// Tensors without a gradient are left alone.
void zero_grad(const TensorList& params, bool set_to_none) {
  // BEGIN SOLUTION week02.accumulate_grad
  (void)set_to_none;  // (mutant: ignored)
  for (const Tensor& p : params) {
    Tensor& g = p.mutable_grad();
    if (!g.defined()) continue;
    if (g.grad_fn()) g.detach_();
    g.zero_();
  }
  // END SOLUTION
}

}  // namespace kindling::autograd
