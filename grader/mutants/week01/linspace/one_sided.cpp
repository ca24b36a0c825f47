// MUTANT: counts every element up from start (start + step * i), so the last element can miss end
// Task week01.linspace. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.linspace`.

#include <cmath>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>

// Useful: empty(sizes, dtype), options.dtype_or(kDefaultDtype), is_floating_point(dtype),
// visit_dtype(dtype, [&](auto tag) { using T = typename decltype(tag)::type; ... }) to get
// the element type, data_ptr(), KINDLING_CHECK(cond, parts...).

namespace kindling {

/// `torch.linspace(start, end, steps, dtype=...)`: a new 1-d row-major tensor of
/// `steps` values evenly spaced from start to end, both included, in options'
/// dtype (float32 when none is given).
/// - steps < 0 throws kindling::Error "number of steps must be non-negative";
///   steps == 0 gives an empty tensor; steps == 1 gives [start].
/// - For an integer dtype, start and end are first truncated toward zero
///   (linspace(-3.4, 2.9, n) runs from -3 to 2), as PyTorch converts them to the
///   dtype before anything else.
/// - Otherwise, with step = (end - start) / (steps - 1) and half = steps / 2
///   (integer division), element i is start + step * i for i < half, and
///   end - step * (steps - 1 - i) for the rest: the first half counts up from
///   start and the second half down from end, so that both ends come out exact
///   (the last element is end itself, not start plus (steps - 1) rounded steps).
///   Compute in double and convert each value to the dtype (an integer dtype
///   truncates toward zero). PyTorch computes float32 in float32, so its last
///   bits may differ from yours; the tests allow for that, but not at the ends.
Tensor linspace(double start, double end, std::int64_t steps, TensorOptions options) {
  // BEGIN SOLUTION week01.linspace
  KINDLING_CHECK(steps >= 0, "number of steps must be non-negative");
  const ScalarType dtype = options.dtype_or(kDefaultDtype);
  Tensor t = empty({steps}, dtype);
  if (!is_floating_point(dtype)) {
    start = std::trunc(start);
    end = std::trunc(end);
  }
  const double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0.0;
  const std::int64_t half = steps / 2;
  (void)half;  // (mutant: unused)
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = static_cast<T*>(t.data_ptr());
    if (steps == 1)
      out[0] = static_cast<T>(start);  // half is 0: the formula below would give end
    else
      for (std::int64_t i = 0; i < steps; ++i) out[i] = static_cast<T>(start + step * static_cast<double>(i));
  });
  return t;
  // END SOLUTION
}

}  // namespace kindling
