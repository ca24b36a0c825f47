// MUTANT: always allocates in t's dtype, ignoring the dtype the options ask for
// Task week01.empty_like. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.empty_like`.

#include <algorithm>
#include <vector>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>

// empty(sizes, dtype) allocates a row-major tensor; Storage::allocate(nbytes) a
// buffer of uninitialised bytes; Tensor::make(storage, sizes, strides, offset,
// dtype) puts any geometry over a storage (check that every element fits).

namespace kindling {

/// `torch.empty_like(t)`: a new tensor with t's sizes, dtype and device
/// (options.dtype_ overrides the dtype, options.device_or(t.device()) is the device
/// to allocate on), a storage of its own (never shared with t), storage
/// offset 0, and elements left uninitialised (whatever the memory held: never read
/// them before writing). Its strides follow PyTorch 1.13's default
/// `memory_format=torch.preserve_format`, which keeps t's *layout*:
///
/// 1. If t is contiguous (kindling::is_contiguous, which holds for every tensor
///    with no elements) or non-overlapping and dense, the result has exactly t's
///    strides. Non-overlapping and dense: leave out the dims of size 0 or 1, sort the
///    others by stride, smallest first; then the first stride is 1 and each next
///    stride is the previous stride times the previous size (no gaps, no overlap:
///    a transpose or permute of a contiguous tensor qualifies).
/// 2. Otherwise (a step slice leaves gaps, expand gives stride 0, ...), the result
///    is dense with its dims in t's memory order (PyTorch's infer_dense_strides).
///    A 0-d t gets strides {}, a 1-d t gets {1}. Else order the dims:
///
///        perm = [n-1, n-2, ..., 0]
///        for i in 1 .. n-1:
///          moving = i
///          for prev in i-1 down to 0:
///            c = compare(perm[prev], perm[moving])
///            if c > 0: swap perm[prev] and perm[moving]; moving = prev
///            if c < 0: stop this i
///            (c == 0: go on to the next prev without swapping)
///
///    where compare(a, b) is 0 when stride a or stride b is 0, -1 when stride a <
///    stride b, 1 when stride a > stride b, and for equal strides 1 when size a >
///    size b, else 0. Then perm lists the dims innermost first: walk it keeping a
///    running product that starts at 1; each dim's stride is the product so far,
///    and the product is multiplied by that dim's size when the size is above 1.
///
/// Examples: t = zeros({2, 3}).t() (sizes [3, 2], strides [1, 3]) gives strides
/// [1, 3]; zeros({4, 6}).slice(1, 0, 6, 2) (strides [6, 2]) gives [3, 1];
/// zeros({3, 1}).expand({3, 4}) (strides [1, 0]) gives [4, 1].
Tensor empty_like(const Tensor& t, TensorOptions options) {
  // BEGIN SOLUTION week01.empty_like
  const ScalarType dtype = t.dtype();
  const IntArrayRef sizes = t.sizes(), strides = t.strides();
  const auto n = static_cast<std::size_t>(t.dim());
  auto dense = [&] {
    std::vector<std::size_t> dims;
    for (std::size_t d = 0; d < n; ++d)
      if (sizes[d] >= 2) dims.push_back(d);
    std::sort(dims.begin(), dims.end(), [&](std::size_t a, std::size_t b) { return strides[a] < strides[b]; });
    std::int64_t expected = 1;
    for (const std::size_t d : dims) {
      if (strides[d] != expected) return false;
      expected *= sizes[d];
    }
    return true;
  };
  Shape out_strides;
  if (t.is_contiguous() || dense()) {
    out_strides = strides.vec();
  } else {
    std::vector<std::size_t> perm(n);
    for (std::size_t i = 0; i < n; ++i) perm[i] = n - 1 - i;
    auto compare = [&](std::size_t a, std::size_t b) {
      if (strides[a] == 0 || strides[b] == 0) return 0;
      if (strides[a] != strides[b]) return strides[a] < strides[b] ? -1 : 1;
      return sizes[a] > sizes[b] ? 1 : 0;
    };
    for (std::size_t i = 1; i < n; ++i) {
      std::size_t moving = i;
      for (std::size_t prev = i; prev-- > 0;) {
        const int c = compare(perm[prev], perm[moving]);
        if (c > 0) {
          std::swap(perm[prev], perm[moving]);
          moving = prev;
        } else if (c < 0) {
          break;
        }
      }
    }
    out_strides.assign(n, 0);
    std::int64_t product = 1;
    for (const std::size_t d : perm) {
      out_strides[d] = product;
      if (sizes[d] > 1) product *= sizes[d];
    }
  }
  std::int64_t extent = numel_of(sizes) == 0 ? 0 : 1;  // elements from the first to one past the last
  for (std::size_t d = 0; d < n && extent > 0; ++d) extent += (sizes[d] - 1) * out_strides[d];
  Storage storage =
      Storage::allocate(static_cast<std::size_t>(extent) * element_size(dtype), options.device_or(t.device()));
  return Tensor::make(std::move(storage), sizes.vec(), std::move(out_strides), 0, dtype);
  // END SOLUTION
}

}  // namespace kindling
