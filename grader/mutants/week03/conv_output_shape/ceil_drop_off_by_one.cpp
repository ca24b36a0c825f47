// MUTANT: drops the last ceil-mode window only when it starts past in + padding, not when it starts exactly there
// Task week03.conv_output_shape. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.conv_output_shape`.

#include <kindling/conv.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::nn {

/// The output length of a convolution or pooling along one spatial dim:
/// floor((in + 2 * padding - dilation * (kernel - 1) - 1) / stride) + 1.
/// With `ceil_mode` (pooling only), round up instead of down, except that the
/// last window must start inside the input or the left padding: if
/// (out - 1) * stride >= in + padding, it is dropped (out - 1).
/// The result may be 0 or negative; callers report that as an error.
std::int64_t conv_output_size(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t padding,
                              std::int64_t dilation, bool ceil_mode) {
  // BEGIN SOLUTION week03.conv_output_shape
  const std::int64_t span = in + 2 * padding - dilation * (kernel - 1) - 1;
  // Floor division that rounds toward -infinity, like Python's //.
  auto floor_div = [](std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); };
  std::int64_t out = (ceil_mode ? floor_div(span + stride - 1, stride) : floor_div(span, stride)) + 1;
  if (ceil_mode && (out - 1) * stride > in + padding) --out;
  return out;
  // END SOLUTION
}

}  // namespace kindling::nn
