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
  // BEGIN TASK week01.slice (replace the stub below with your code)
  KINDLING_TODO("week01.slice");
  // END TASK
}

/// `select(dim, index)`: the slice at `index` of `dim`, with that dimension
/// removed (`t[i]` is select(0, i)). `index` may be negative. Errors: IndexError
/// "select(): index 5 out of range for tensor of size [3, 4] at dimension 0";
/// kindling::Error "select() cannot be applied to a 0-dim tensor.".
Tensor Tensor::select(std::int64_t dim, std::int64_t index) const {
  // BEGIN TASK week01.slice (replace the stub below with your code)
  KINDLING_TODO("week01.slice");
  // END TASK
}

/// `slice(dim, start, end, step)`: Python's `t[start:end:step]` along `dim`.
/// Missing start/end mean the ends; negative ones count from the end; both are
/// clamped into [0, size] as Python does (so `slice(0, 10, 99)` on size 4 is empty
/// rather than an error). The new size is ceil((end - start) / step), at least 0;
/// the stride is multiplied by `step`. Python's errors are ValueErrors: a step of 0
/// is "slice step cannot be zero", a negative one "step must be greater than zero".
Tensor Tensor::slice(std::int64_t dim, std::optional<std::int64_t> start, std::optional<std::int64_t> end,
                     std::int64_t step) const {
  // BEGIN TASK week01.slice (replace the stub below with your code)
  KINDLING_TODO("week01.slice");
  // END TASK
}

}  // namespace kindling
