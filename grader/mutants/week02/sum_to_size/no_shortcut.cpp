// MUTANT: never returns grad itself for matching shapes: it hands back grad.view(sizes), a new view
// Task week02.sum_to_size. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week02.sum_to_size`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/formulas.hpp>

namespace kindling::autograd {

/// Reduces a gradient computed at a broadcast shape back to the shape of the
/// input it belongs to: sum over the leading dimensions broadcasting added, and
/// over every dimension where `sizes` has 1 but `grad` does not (keeping it as 1).
/// `sum_to_size(grad [4, 2, 3], {2, 1})` sums dim 0 and dim 2 -> [2, 1].
/// Returns `grad` itself when the shapes already match. Throws kindling::Error
/// "size {[2, 1]} is not expandable to size {[4, 2, 3]}." when `sizes` could not
/// have been broadcast to grad's shape.
Tensor sum_to_size(const Tensor& grad, IntArrayRef sizes) {
  // BEGIN SOLUTION week02.sum_to_size
  const auto ndim = static_cast<std::int64_t>(sizes.size());
  const std::int64_t leading = grad.dim() - ndim;
  bool expandable = leading >= 0;
  Shape dims;
  for (std::int64_t d = 0; expandable && d < grad.dim(); ++d) {
    if (d < leading) {
      dims.push_back(d);
      continue;
    }
    const std::int64_t want = sizes[d - leading], have = grad.sizes()[d];
    if (want == 1 && have != 1)
      dims.push_back(d);
    else
      expandable = want == have;
  }
  KINDLING_CHECK(expandable, "size {", to_string(sizes), "} is not expandable to size {", to_string(grad.sizes()),
                 "}.");
  if (dims.empty()) return grad.view(sizes);
  return grad.sum(dims, /*keepdim=*/true).view(sizes);
  // END SOLUTION
}

}  // namespace kindling::autograd
