// Task week03.linear_layout. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints are in this week's README.md.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/linear.hpp>

namespace kindling::nn {

Linear::Linear(std::int64_t in, std::int64_t out, bool has_bias)
    : Module("Linear"), in_features(in), out_features(out) {
  KINDLING_CHECK_AS(ValueError, in >= 0 && out >= 0, "Linear features must be non-negative, got in_features=", in,
                    ", out_features=", out);
  // BEGIN TASK week03.linear_layout (replace the stub below with your code)
  KINDLING_TODO("week03.linear_layout");
  // END TASK
  reset_parameters();
}

}  // namespace kindling::nn

namespace kindling::nn {

Tensor Linear::forward(const Tensor& input) {
  // BEGIN TASK week03.linear_layout (replace the stub below with your code)
  KINDLING_TODO("week03.linear_layout");
  // END TASK
}

}  // namespace kindling::nn
