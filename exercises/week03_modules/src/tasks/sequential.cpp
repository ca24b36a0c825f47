// Task week03.sequential. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.sequential`.

#include <kindling/container.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::nn {

/// Applies each module in order: x -> m0(x) -> m1(m0(x)) -> ...
Tensor Sequential::forward(const Tensor& x) {
  // BEGIN TASK week03.sequential (replace the stub below with your code)
  KINDLING_TODO("week03.sequential");
  // END TASK
}

}  // namespace kindling::nn
