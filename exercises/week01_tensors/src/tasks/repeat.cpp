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
  // BEGIN TASK week01.repeat (replace the stub below with your code)
  KINDLING_TODO("week01.repeat");
  // END TASK
}

}  // namespace kindling
