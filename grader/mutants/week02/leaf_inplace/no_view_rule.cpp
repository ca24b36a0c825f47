// MUTANT: applies only the leaf rule: a view of a parameter has a grad_fn, so writing through it is allowed
// Task week02.leaf_inplace. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week02.leaf_inplace`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/inplace_check.hpp>

namespace kindling::autograd {

/// Called before every in-place write on a tensor that takes part in autograd,
/// while grad mode is on (the engine makes both checks before calling).
///
/// Throw kindling::Error, word for word:
/// - `self` is a leaf that requires grad:
///   "a leaf Variable that requires grad is being used in an in-place operation."
/// - `self` is a view (is_view()) that requires grad and whose base() is a leaf,
///   whether or not the base requires grad (PyTorch's condition: so
///   `tensor(data).reshape(shape).requires_grad_()`, a view of a plain tensor
///   that was made to require grad afterwards, gets this message too):
///   "a view of a leaf Variable that requires grad is being used in an in-place operation."
/// Anything else (a non-leaf, a leaf that does not require grad) is allowed.
void check_inplace(const Tensor& self) {
  // BEGIN SOLUTION week02.leaf_inplace
  KINDLING_CHECK(!(self.is_leaf() && self.requires_grad()),
                 "a leaf Variable that requires grad is being used in an in-place operation.");
  // END SOLUTION
}

}  // namespace kindling::autograd
