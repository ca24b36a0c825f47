// MUTANT: wraps a negative start but only clamps the end: g[:, 1:-1] comes out empty
// Task week01.slice. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.slice`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/tensor.hpp>

// A view shares its base's storage and differs only in sizes, strides and offset:
// unless a contract says it copies, return a new handle over the *same* Storage
// (check with is_alias_of). Helpers: as_strided(sizes, strides, offset) builds the
// view and checks it fits the storage; wrap_dim normalises a dim and throws
// PyTorch's out-of-range error; and the free functions of shape.hpp.

namespace kindling {

/// `narrow(dim, start, length)`: elements start .. start+length-1 of `dim`.
/// `start` may be negative (counts from the end) and may equal the size (an
/// empty result). Errors: "narrow() cannot be applied to a 0-dim tensor."
/// (kindling::Error); a start outside [-size, size] gets wrap_dim's IndexError
/// ("Dimension out of range (expected to be in range of [-6, 5], but got 7)");
/// "start (3) + length (5) exceeds dimension size (6)." (kindling::Error).
Tensor Tensor::narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const {
  // BEGIN SOLUTION week01.slice
  KINDLING_CHECK(this->dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  const std::int64_t d = wrap_dim(dim, this->dim());
  const std::int64_t size = sizes()[d];
  if (start != size) start = wrap_dim(start, size);  // the end itself is a valid start
  KINDLING_CHECK(length >= 0 && start <= size - length, "start (", start, ") + length (", length,
                 ") exceeds dimension size (", size, ").");
  return slice(d, start, start + length, 1);
  // END SOLUTION
}

/// `select(dim, index)`: the slice at `index` of `dim`, with that dimension
/// removed (`t[i]` is select(0, i)). `index` may be negative. Errors: IndexError
/// "select(): index 5 out of range for tensor of size [3, 4] at dimension 0";
/// kindling::Error "select() cannot be applied to a 0-dim tensor.".
Tensor Tensor::select(std::int64_t dim, std::int64_t index) const {
  // BEGIN SOLUTION week01.slice
  KINDLING_CHECK_AS(IndexError, this->dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  const std::int64_t d = wrap_dim(dim, this->dim());
  const std::int64_t size = sizes()[d];
  KINDLING_CHECK_AS(IndexError, index >= -size && index < size, "select(): index ", index,
                    " out of range for tensor of size ", to_string(sizes()), " at dimension ", d);
  if (index < 0) index += size;
  Shape new_sizes = sizes().vec();
  Shape new_strides = strides().vec();
  new_sizes.erase(new_sizes.begin() + d);
  new_strides.erase(new_strides.begin() + d);
  return as_strided(new_sizes, new_strides, storage_offset() + index * strides()[d]);
  // END SOLUTION
}

/// `slice(dim, start, end, step)`: Python's `t[start:end:step]` along `dim`.
/// Missing start/end mean the ends; negative ones count from the end; both are
/// clamped into [0, size] as Python does (so `slice(0, 10, 99)` on size 4 is empty
/// rather than an error). The new size is ceil((end - start) / step), at least 0;
/// the stride is multiplied by `step`. Python's errors are ValueErrors: a step of 0
/// is "slice step cannot be zero", a negative one "step must be greater than zero".
Tensor Tensor::slice(std::int64_t dim, std::optional<std::int64_t> start, std::optional<std::int64_t> end,
                     std::int64_t step) const {
  // BEGIN SOLUTION week01.slice
  KINDLING_CHECK_AS(ValueError, step != 0, "slice step cannot be zero");
  KINDLING_CHECK_AS(ValueError, step > 0, "step must be greater than zero");
  const std::int64_t d = wrap_dim(dim, this->dim());
  const std::int64_t size = sizes()[d];
  auto clamp_index = [size](std::int64_t i) {
    if (i < 0) i += size;
    return std::clamp<std::int64_t>(i, 0, size);
  };
  const std::int64_t first = start ? clamp_index(*start) : 0;
  const std::int64_t last = std::max(first, end ? std::clamp<std::int64_t>(*end, 0, size) : size);
  Shape new_sizes = sizes().vec();
  Shape new_strides = strides().vec();
  new_sizes[d] = (last - first + step - 1) / step;
  new_strides[d] *= step;
  return as_strided(new_sizes, new_strides, storage_offset() + first * strides()[d]);
  // END SOLUTION
}

}  // namespace kindling
