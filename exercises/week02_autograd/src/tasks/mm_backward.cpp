// Task week02.mm_backward. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week02.mm_backward`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/formulas.hpp>

namespace kindling::autograd {

/// Gradients of `out = mat1.mm(mat2)` with mat1 (n, k), mat2 (k, m) and grad
/// (n, m): returns {grad for mat1 (n, k), grad for mat2 (k, m)}. As with
/// mul_backward, an undefined operand means the gradient that needs it is not
/// wanted (at least one operand is defined); `grad` may be a strided view.
/// For an operand stored column-major, such as nn.Linear's `W.t()`, the engine
/// calls this on the transposed product (out^T = mat2^T mat1^T, with grad^T), as
/// PyTorch does, so that the gradient comes out in that operand's layout: see the
/// section "Two formulas" of the week 2 lecture.
std::array<Tensor, 2> mm_backward(const Tensor& grad, const Tensor& mat1, const Tensor& mat2) {
  // BEGIN TASK week02.mm_backward (replace the stub below with your code)
  KINDLING_TODO("week02.mm_backward");
  // END TASK
}

}  // namespace kindling::autograd
