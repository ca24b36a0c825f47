// MUTANT: compares round trip and x both in float64, which hides losses of int64 values past 2^53
// Task week01.lossy_casts. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.lossy_casts`.

#include <kindling/casts.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/ops.hpp>

// Useful: x.dtype(), x.to(dtype) (a cast: x itself when the dtype is already
// right, else a new row-major tensor), the comparisons of ops.hpp (eq, ne, ...,
// elementwise, giving bool tensors), sum() and item<T>().

namespace kindling {

/// `x.type_as(other)`, as PyTorch 1.13: when other has x's dtype, returns x
/// itself (the same tensor: same storage, same version counter, nothing copied:
/// a write through the result is a write into x); otherwise a new tensor with
/// x's values cast to other's dtype, sharing nothing with x. Only other's dtype
/// matters (not its shape, values or layout). Also what `x.float()`,
/// `x.double()` and `x.long()` do for their dtype.
Tensor type_as(const Tensor& x, const Tensor& other) {
  // BEGIN SOLUTION week01.lossy_casts
  return x.to(other.dtype());  // to() already returns x itself when the dtype matches
  // END SOLUTION
}

/// The number of elements of x whose value changes in a round trip to `dtype`
/// and back: x_i counts when `x.to(dtype).to(x.dtype())` holds a different value at
/// i. Casts follow PyTorch: a float to an integer truncates toward zero (-1.5 ->
/// -1); to uint8 a value wraps modulo 256 (-1 -> 255, 256 -> 0); to bool anything
/// nonzero is true (and true comes back as 1); float64 and int64 to float32 round
/// to the nearest float32 (2^24 + 1 -> 2^24; 1e39 -> inf). x may have any shape and
/// layout (0 for an empty x) and holds no NaN; floats cast to an integer dtype are
/// within its range.
std::int64_t count_lossy(const Tensor& x, ScalarType dtype) {
  // BEGIN SOLUTION week01.lossy_casts
  return ne(x.to(dtype).to(kFloat64), x.to(kFloat64)).sum().item<std::int64_t>();
  // END SOLUTION
}

}  // namespace kindling
