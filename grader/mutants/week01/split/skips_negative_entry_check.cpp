// MUTANT: checks only that split sizes add up, so [6, -1] on a dim of 5 fails later with narrow's error
// Task week01.split. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.split`.

#include <algorithm>
#include <vector>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/join.hpp>

// Useful: wrap_dim(dim, ndim) (shape.hpp: PyTorch's IndexError for a dim out of
// range), to_string(list) (shape.hpp: "[2, 2]"), KINDLING_CHECK(cond, parts...)
// (error.hpp: throws kindling::Error with the parts joined), and x.narrow(dim,
// start, length) (week01.slice: a view of `length` entries from `start`).

namespace kindling {

/// `x.split(split_size, dim)`: views of x of `split_size` entries each along
/// dimension `dim` (negative counts from the end), in order; the last view holds
/// what is left and may be shorter. Every piece is a view: same storage as x, x's
/// strides, and the storage offset of its first element (writing into a piece
/// writes into x). Along a dim of size 0 the result is one empty view (of size 0
/// there). Errors (kindling::Error unless said otherwise), word for word:
/// - x is 0-d: "split expects at least a 1-dimensional tensor";
/// - dim out of range: wrap_dim's IndexError;
/// - split_size < 0: "split expects split_size be non-negative, but got split_size=-1";
/// - split_size == 0 while the size along dim is not: "split_size can only be 0 if
///   dimension size is 0, but got dimension size of 5".
std::vector<Tensor> split(const Tensor& x, std::int64_t split_size, std::int64_t dim) {
  // BEGIN SOLUTION week01.split
  KINDLING_CHECK(x.dim() != 0, "split expects at least a 1-dimensional tensor");
  KINDLING_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size=", split_size);
  const std::int64_t d = wrap_dim(dim, x.dim());
  const std::int64_t size = x.sizes()[d];
  KINDLING_CHECK(split_size > 0 || size == 0,
                 "split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
  if (size == 0) return {x.narrow(d, 0, 0)};
  std::vector<Tensor> out;
  for (std::int64_t start = 0; start < size; start += split_size)
    out.push_back(x.narrow(d, start, std::min(split_size, size - start)));
  return out;
  // END SOLUTION
}

/// `x.split(split_sizes, dim)` (PyTorch's split_with_sizes): one view per entry of
/// `split_sizes`, of that many entries along `dim`, in order and back to back (an
/// entry of 0 gives an empty view). Views as above. Errors (kindling::Error), word
/// for word:
/// - x is 0-d: "split expects at least a 1-dimensional tensor";
/// - dim out of range: wrap_dim's IndexError;
/// - a negative entry: "split_with_sizes expects split_sizes have only non-negative
///   entries, but got split_sizes=[6, -1]";
/// - entries that do not add up to the size along dim (d: the wrapped dim):
///   "split_with_sizes expects split_sizes to sum exactly to 5 (input tensor's size
///   at dimension 1), but got split_sizes=[2, 2]".
std::vector<Tensor> split(const Tensor& x, const std::vector<std::int64_t>& split_sizes, std::int64_t dim) {
  // BEGIN SOLUTION week01.split
  KINDLING_CHECK(x.dim() != 0, "split expects at least a 1-dimensional tensor");
  const std::int64_t d = wrap_dim(dim, x.dim());
  std::int64_t total = 0;
  for (auto s : split_sizes) {
    total += s;
  }
  KINDLING_CHECK(total == x.sizes()[d], "split_with_sizes expects split_sizes to sum exactly to ", x.sizes()[d],
                 " (input tensor's size at dimension ", d, "), but got split_sizes=", to_string(split_sizes));
  std::vector<Tensor> out;
  std::int64_t start = 0;
  for (auto s : split_sizes) {
    out.push_back(x.narrow(d, start, s));
    start += s;
  }
  return out;
  // END SOLUTION
}

/// `x.chunk(chunks, dim)`: x cut along `dim` into views of one common length,
/// the smallest length with which `chunks` pieces cover the whole dim; the last
/// piece may be shorter, and there may be fewer than `chunks` pieces (a dim of 6
/// in 4 chunks gives 3 pieces of 2: PyTorch never makes a piece longer than
/// another just to reach the count). Along a dim of size 0 the result is `chunks`
/// empty views. Views as for split. Errors (kindling::Error), word for word:
/// - x is 0-d: "chunk expects at least a 1-dimensional tensor";
/// - chunks < 1: "chunk expects `chunks` to be greater than 0, got: 0";
/// - dim out of range: wrap_dim's IndexError.
std::vector<Tensor> chunk(const Tensor& x, std::int64_t chunks, std::int64_t dim) {
  // BEGIN SOLUTION week01.split
  KINDLING_CHECK(x.dim() > 0, "chunk expects at least a 1-dimensional tensor");
  KINDLING_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  const std::int64_t size = x.sizes()[wrap_dim(dim, x.dim())];
  if (size == 0) return split(x, std::vector<std::int64_t>(static_cast<std::size_t>(chunks), 0), dim);
  return split(x, (size + chunks - 1) / chunks, dim);  // ceil(size / chunks) entries per piece
  // END SOLUTION
}

}  // namespace kindling
