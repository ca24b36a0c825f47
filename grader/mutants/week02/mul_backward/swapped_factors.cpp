// MUTANT: multiplies each input's gradient by the input itself instead of by the other factor
// Task week02.mul_backward. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week02.mul_backward`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/formulas.hpp>

namespace kindling::autograd {

/// Gradients of `out = self * other` (elementwise, broadcasting): returns
/// {grad for self, grad for other}, both still at the broadcast shape of `grad`
/// (the engine applies sum_to_size). A factor that is undefined was not saved
/// because the other input does not need a gradient: skip that product and leave
/// its result undefined. Example: the gradient for self needs `other`.
std::array<Tensor, 2> mul_backward(const Tensor& grad, const Tensor& self, const Tensor& other) {
  // BEGIN SOLUTION week02.mul_backward
  std::array<Tensor, 2> out;
  if (self.defined()) out[0] = grad * self;
  if (other.defined()) out[1] = grad * other;
  return out;
  // END SOLUTION
}

}  // namespace kindling::autograd
