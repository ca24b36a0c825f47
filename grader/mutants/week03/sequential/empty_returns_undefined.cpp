// MUTANT: starts from an undefined result and feeds x to the first child, so an empty Sequential returns no tensor
// Task week03.sequential. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.sequential`.

#include <kindling/container.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::nn {

/// Applies each module in order: x -> m0(x) -> m1(m0(x)) -> ...
Tensor Sequential::forward(const Tensor& x) {
  // BEGIN SOLUTION week03.sequential
  Tensor y;
  for (const auto& [name, m] : children_) y = (*m)(y.defined() ? y : x);  // operator() so that each module's hooks run
  return y;
  // END SOLUTION
}

}  // namespace kindling::nn
