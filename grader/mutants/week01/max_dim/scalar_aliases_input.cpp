// MUTANT: returns the 0-d input itself as the values instead of a copy, so writing into the result writes into x
// Task week01.max_dim. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.max_dim`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>

#include "internal.hpp"
#include "loop.hpp"

// Useful: wrap_dim, movedim(d, -1) and contiguous() to bring the reduced dim to the
// end so that each output element reads one contiguous row, empty(sizes, dtype),
// visit_dtype to get the element type, data_ptr<T>(), and unsqueeze for keepdim.

namespace kindling::detail {

/// The work behind `torch.max(x, dim, keepdim)` (is_max) and `torch.min(x, dim,
/// keepdim)`, and so also behind argmax/argmin with a dim (ops.hpp): returns
/// (values, indices). Along dimension `dim` (negative counts from the end; wrap_dim
/// throws PyTorch's IndexError for a dim out of range), each output element is the
/// largest (smallest) element of its row, and its index along `dim` as int64:
/// - ties go to the first index: max of [1, 3, 3] is 3 at index 1;
/// - NaN counts as larger (smaller) than everything: the first NaN of a row wins,
///   and its value is NaN;
/// - values keep x's dtype (bool compares false < true), indices are kInt64;
/// - the output has x's shape without `dim`, or with size 1 there when keepdim;
///   both are new contiguous tensors (the input is never aliased);
/// - a 0-d x (dim must be 0 or -1) gives a copy of x and index 0, both 0-d, with or
///   without keepdim;
/// - a dim of size 0 throws IndexError "max(): Expected reduction dim 1 to have
///   non-zero size." (`name` instead of max, the wrapped dim), even when another
///   dim is 0 too; a dim of size > 0 in an empty x gives empty outputs.
std::tuple<Tensor, Tensor> max_min_dim(const Tensor& x, std::int64_t dim, bool keepdim, bool is_max, const char* name) {
  // BEGIN SOLUTION week01.max_dim
  if (x.dim() == 0) {
    wrap_dim(dim, 0);
    return {x, zeros({}, kInt64)};
  }
  const std::int64_t d = wrap_dim(dim, x.dim());
  KINDLING_CHECK_AS(IndexError, x.sizes()[d] > 0, name, "(): Expected reduction dim ", d, " to have non-zero size.");
  const Tensor moved = x.movedim(d, -1).contiguous();
  const std::int64_t n = moved.sizes().back();
  const std::int64_t rows = moved.numel() / n;
  Shape out_shape(moved.sizes().begin(), moved.sizes().end() - 1);
  Tensor values = empty(out_shape, x.dtype());
  Tensor indices = empty(out_shape, kInt64);
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = moved.data_ptr<T>();
    T* vals = values.data_ptr<T>();
    std::int64_t* idx = indices.data_ptr<std::int64_t>();
    const int threads = detail::parallel_threads("max_dim", rows * n, rows);
    KINDLING_OMP_FOR(threads, rows)
    for (std::int64_t r = 0; r < rows; ++r) {
      const T* row = in + r * n;
      std::int64_t best = 0;
      for (std::int64_t i = 1; i < n; ++i) {
        if constexpr (std::is_floating_point_v<T>)
          if (row[best] != row[best]) break;  // the first NaN wins
        const bool better = is_max ? row[i] > row[best] : row[i] < row[best];
        bool nan = false;
        if constexpr (std::is_floating_point_v<T>) nan = row[i] != row[i];
        if (better || nan) best = i;
      }
      vals[r] = row[best];
      idx[r] = best;
    }
  });
  if (keepdim) return {values.unsqueeze(d), indices.unsqueeze(d)};
  return {values, indices};
  // END SOLUTION
}

}  // namespace kindling::detail
