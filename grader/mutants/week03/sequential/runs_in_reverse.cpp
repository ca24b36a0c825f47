// MUTANT: applies the children last to first, reading m1(m0(x)) as composition written right to left
// Task week03.sequential. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.sequential`.

#include <kindling/container.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::nn {

/// Applies each module in order: x -> m0(x) -> m1(m0(x)) -> ...
Tensor Sequential::forward(const Tensor& x) {
  // BEGIN SOLUTION week03.sequential
  Tensor y = x;
  for (auto it = children_.rbegin(); it != children_.rend(); ++it)
    y = (*it->second)(y);  // operator() so that each module's hooks run
  return y;
  // END SOLUTION
}

}  // namespace kindling::nn
