// MUTANT: folds b's transpose but multiplies by a instead of a.t() for a 2-d a ((AB)^T = B^T A^T)
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
  // BEGIN SOLUTION week01.matmul
  const std::int64_t da = a.dim(), db = b.dim();
  KINDLING_CHECK(da > 0 && db > 0, "both arguments to matmul need to be at least 1D, but they are ", da, "D and ", db,
                 "D");
  if (da == 1 && db == 1) return dot(a, b);
  if (da == 2 && db == 1) return mv(a, b);
  if (da == 1 && db == 2) return mm(a.unsqueeze(0), b).squeeze(0);
  if (da == 2 && db == 2) return mm(a, b);
  if ((da >= 3 && db <= 2) || (db >= 3 && da <= 2)) {
    // Fold the batch of the larger operand into the rows of one matrix: one GEMM, not many.
    const bool transpose = db > da;
    const Tensor t1 = transpose ? b.transpose(-2, -1) : a;
    const Tensor t2 = !transpose ? b : a;
    Shape out_shape(t1.sizes().begin(), t1.sizes().end() - 1);
    const Tensor rows = t1.reshape({numel_of(out_shape), t1.sizes().back()});
    if (t2.dim() == 1) return mv(rows, t2)._unsafe_view(out_shape);
    out_shape.push_back(t2.sizes()[1]);
    const Tensor out = mm(rows, t2)._unsafe_view(out_shape);
    return transpose ? out.transpose(-2, -1).contiguous() : out;
  }
  // Both have batch dims: broadcast them and run one bmm.
  const std::int64_t n = a.sizes()[da - 2], k = a.sizes()[da - 1];
  const std::int64_t k2 = b.sizes()[db - 2], m = b.sizes()[db - 1];
  const Shape batch = broadcast_shapes(IntArrayRef(a.sizes().data(), static_cast<std::size_t>(da - 2)),
                                       IntArrayRef(b.sizes().data(), static_cast<std::size_t>(db - 2)));
  Shape ea = batch, eb = batch;
  ea.insert(ea.end(), {n, k});
  eb.insert(eb.end(), {k2, m});
  const std::int64_t count = numel_of(batch);
  const Tensor out = bmm(a.expand(ea).reshape({count, n, k}), b.expand(eb).reshape({count, k2, m}));
  Shape out_shape = batch;
  out_shape.insert(out_shape.end(), {n, m});
  return out._unsafe_view(out_shape);
  // END SOLUTION
}

}  // namespace kindling
