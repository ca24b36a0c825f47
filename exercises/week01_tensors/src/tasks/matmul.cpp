// Task week01.matmul. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.matmul`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/linalg.hpp>

// The products are given (linalg.hpp): dot(1-d, 1-d), mv(2-d, 1-d), mm(2-d, 2-d) and
// bmm(3-d, 3-d), each with PyTorch's error for mismatched sizes. Your job is to pick
// one and to reshape the operands for it: unsqueeze, squeeze, transpose, reshape,
// expand and broadcast_shapes. A result you reshape is a fresh tensor, so reshape it
// with _unsafe_view (not a view of a temporary: week 2 records UnsafeViewBackward0).

namespace kindling {

/// `torch.matmul(a, b)` (Python's `a @ b`), as PyTorch 1.13 computes it, chosen by
/// the ranks of a and b:
/// - both 1-d: dot(a, b), a 0-d result;
/// - 2-d and 1-d: mv(a, b);
/// - 1-d and 2-d: a as a 1 x k matrix: mm(a.unsqueeze(0), b), then that dim removed;
/// - both 2-d: mm(a, b);
/// - a has 3 or more dims and b 1 or 2 ("folding"): a's leading dims fold into the
///   rows of one matrix, a.reshape({-1, k}) where k = a's last size; then mv with a
///   1-d b, or mm with a 2-d b, and the result gets the shape a.sizes()[:-1] (plus
///   b's last size for a 2-d b);
/// - b has 3 or more dims and a 1 or 2: the same folding on the transposes, since
///   a @ b = (bᵀ @ aᵀ)ᵀ: fold bᵀ = b.transpose(-2, -1) as above and multiply it by
///   a.t() (2-d a) or a itself (1-d a). For a 1-d a the result is that product with
///   the shape bᵀ.sizes()[:-1]; for a 2-d a it is transposed back (its last two dims
///   swapped) and made contiguous;
/// - both with 3 or more dims: batched. The batch dims (all but the last two)
///   broadcast (broadcast_shapes); each operand is expanded to batch + its own last
///   two sizes and reshaped to 3-d, one bmm multiplies them, and the result gets the
///   shape batch + [n, m].
/// Errors come from the product that runs (their messages are PyTorch's, so that
/// picking the right one with the right shapes gives PyTorch's error), except one:
/// an operand with 0 dims throws kindling::Error "both arguments to matmul need to
/// be at least 1D, but they are 0D and 1D" (the two ranks).
Tensor matmul(const Tensor& a, const Tensor& b) {
  // BEGIN TASK week01.matmul (replace the stub below with your code)
  KINDLING_TODO("week01.matmul");
  // END TASK
}

}  // namespace kindling
