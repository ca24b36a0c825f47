// MUTANT: builds the stride-0 view from storage offset 0, so a sliced x tiles the wrong elements
// Task week01.repeat. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.repeat`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>
#include <kindling/join.hpp>

// Useful: check_sizes_nonnegative (shape.hpp), zeros/empty, as_strided (a view with
// any sizes and strides over x's storage, stride 0 allowed), clone (a row-major
// copy of any view), view. expand (week01.expand) is the free version of tiling.

namespace kindling {

/// `x.repeat(repeats)`: x tiled repeats[i] times along dimension i, in new memory.
/// `repeats` has at least x.dim() entries; when it has more, x first gains leading
/// dimensions of size 1 (x = {1, 2} with repeats {2, 1, 3} is tiled as a [1, 1, 2]
/// tensor). The result is a new row-major tensor of x's dtype (never a view of x:
/// writing into it leaves x alone), with sizes[i] = repeats[i] * (padded) x's
/// size i, whose element at index (i0, i1, ...) equals x's element at
/// (i0 % size0, i1 % size1, ...). A repeat of 0, or an empty x, gives an empty
/// result of that shape. Errors (kindling::Error), word for word (PyTorch 1.13):
/// - fewer repeats than dims: "Number of dimensions of repeat dims can not be
///   smaller than number of dimensions of tensor";
/// - a negative size in the result: check_sizes_nonnegative's message for the
///   result's sizes: zeros({2, 3}).repeat({2, -1}) says "Trying to create tensor
///   with negative dimension -3: [4, -3]".
/// Contrast expand: x.expand(...) reads one stored element at many indices through
/// stride 0, for free; repeat writes every copy out.
Tensor repeat(const Tensor& x, IntArrayRef repeats) {
  // BEGIN SOLUTION week01.repeat
  KINDLING_CHECK(static_cast<std::int64_t>(repeats.size()) >= x.dim(),
                 "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  // Pad x with leading size-1 dims, then view it as [r0, s0, r1, s1, ...] with stride 0 on
  // each repeat dim: one copy of that view is the tiled result.
  const std::size_t n = repeats.size();
  const std::size_t lead = n - static_cast<std::size_t>(x.dim());
  Shape sizes, strides, out_shape;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t s = i < lead ? 1 : x.sizes()[i - lead];
    const std::int64_t st = i < lead ? 0 : x.strides()[i - lead];
    sizes.insert(sizes.end(), {repeats[i], s});
    strides.insert(strides.end(), {0, st});
    out_shape.push_back(repeats[i] * s);
  }
  check_sizes_nonnegative(out_shape);
  if (numel_of(out_shape) == 0) return zeros(out_shape, x.dtype());
  return x.as_strided(sizes, strides, 0).clone().view(out_shape);
  // END SOLUTION
}

}  // namespace kindling
