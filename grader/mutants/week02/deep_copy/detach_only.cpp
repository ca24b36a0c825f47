// MUTANT: takes detach() for a deep copy: the result shares t's memory and version counter
// Task week02.deep_copy. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week02.deep_copy`.

#include <kindling/copies.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>
#include <kindling/ops.hpp>

// Useful: the operators + and += of Tensor, add_ (in place, returns the tensor it wrote),
// empty_like (week01.empty_like: new memory in t's layout), copy_ (a write: it counts in the
// version), detach(), clone() (note: Kindling's clone is row-major, PyTorch's keeps the
// layout), and Tensor::make(storage, sizes, strides, offset, dtype) (a tensor over existing
// memory with a version counter of its own).

namespace kindling::autograd {

/// `x = x + c`: returns a new tensor holding x + c (x's dtype after promotion with
/// a Python float, as PyTorch). x, its memory and its version are untouched, so
/// a view of x still shows the old values. With grad mode on and x requiring grad,
/// the result is recorded (not a leaf, grad_fn AddBackward0) and x may be a leaf:
/// nothing is written into it. Under NoGradGuard the result requires no grad: that
/// is what `p = p - lr * g` does to a parameter in an optimizer, which is why
/// optimizers write in place.
Tensor add_rebinding(const Tensor& x, double c) {
  // BEGIN SOLUTION week02.deep_copy
  return x + c;
  // END SOLUTION
}

/// `x += c`: adds c to every element of x in place and returns x itself (the same
/// tensor object: same storage, same data pointer), its version counter one higher,
/// so that every view of x sees the new values. Autograd's rules apply: with grad
/// mode on, a leaf that requires grad throws kindling::Error "a leaf Variable that
/// requires grad is being used in an in-place operation." and is left unchanged;
/// under NoGradGuard it is written and stays a leaf that requires grad. A non-leaf
/// is written and its history continues through the addition (grad_fn
/// AddBackward0), so backward still reaches the leaves.
const Tensor& add_in_place(const Tensor& x, double c) {
  // BEGIN SOLUTION week02.deep_copy
  return x.add_(c);
  // END SOLUTION
}

/// `t.clone().detach()`, the deep copy: a new tensor with t's sizes, dtype and
/// values in memory of its own (a write into either is not seen by the other),
/// with the strides PyTorch's clone gives (those of empty_like(t): t's layout,
/// kept), storage offset 0, version 0, no grad_fn, requires_grad false, a leaf.
/// Records nothing in any grad mode: t's graph is neither extended nor kept alive.
Tensor deep_copy(const Tensor& t) {
  // BEGIN SOLUTION week02.deep_copy
  return t.detach();
  // END SOLUTION
}

}  // namespace kindling::autograd
