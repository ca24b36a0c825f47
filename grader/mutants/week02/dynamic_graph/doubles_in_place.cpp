// MUTANT: doubles y in place with mul_ instead of a new y * 2 per step: y's version counts the doublings
// Task week02.dynamic_graph. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week02.dynamic_graph`.

#include <cmath>

#include <kindling/dynamic_graph.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/no_grad.hpp>
#include <kindling/ops.hpp>

namespace kindling::autograd {

/// The autograd tutorial's dynamic graph, in C++ control flow:
/// @code
/// y = x * 2
/// while y.norm() < limit:
///     y = y * 2
/// @endcode
/// `x` is a floating tensor of any shape (it may require grad); the norm is the
/// Euclidean norm over all elements, sqrt(sum(y * y)).
/// - Returns {y, doublings}: y equals x * 2^doublings and doublings >= 1 (the first
///   doubling always happens).
/// - Every doubling is its own `y * 2` (a scalar multiplication), so when x
///   requires grad, y's graph is a chain of exactly `doublings` MulBackward0 nodes
///   ending at x's AccumulateGrad; backward through y gives x.grad = v * 2^doublings.
/// - The loop's test reads the norm as a plain number and records nothing: no
///   node other than the doublings may reach the graph.
/// - Throws kindling::ValueError with the message
///   `double_until_norm: x has norm 0, so doubling never reaches the limit` when x's
///   norm is 0 and doubling it once leaves it below `limit` (the loop would never end).
DoublingResult double_until_norm(const Tensor& x, double limit) {
  // BEGIN SOLUTION week02.dynamic_graph
  auto norm_of = [](const Tensor& t) {
    NoGradGuard no_grad;
    return sqrt((t * t).sum()).item<double>();
  };
  DoublingResult out{x * 2, 1};
  double norm = norm_of(out.y);
  if (norm < limit && norm == 0.0)
    throw ValueError("double_until_norm: x has norm 0, so doubling never reaches the limit");
  while (norm < limit) {
    out.y.mul_(2);
    ++out.doublings;
    norm = norm_of(out.y);
  }
  return out;
  // END SOLUTION
}

}  // namespace kindling::autograd
