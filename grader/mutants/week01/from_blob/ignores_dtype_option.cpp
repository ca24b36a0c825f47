// MUTANT: always makes a float32 tensor, ignoring the dtype the options give
// Task week01.from_blob. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.from_blob`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>

// Useful: check_sizes_nonnegative (shape.hpp), Storage::from_blob(data, nbytes,
// deleter, device) (storage.hpp: a Storage handle over memory it does not own; the
// deleter runs when the last handle goes), and Tensor::make(storage, sizes,
// strides, offset, dtype).

namespace kindling {

/// `from_blob(data, sizes, strides, options, deleter)`: a tensor over memory the
/// caller owns, LibTorch's `torch::from_blob` and the C++ side of NumPy's bridge
/// (`torch.from_numpy(a)` and `t.numpy()`): nothing is copied, so a write through
/// the tensor (fill_, add_, ...) shows in the caller's array and a write into the
/// array shows in the tensor. Element (i0, i1, ...) lives at data + the sum of
/// i_d * strides[d] elements; the storage offset is 0 and the dtype is options'
/// dtype (float32 when unset), on options' device.
/// The storage covers exactly the elements the tensor can reach: 1 + the sum over
/// dims of (sizes[d] - 1) * strides[d] elements, times the element size; 0 bytes
/// when any size is 0.
/// `deleter` (may be empty) runs exactly once, with `data`, when the last tensor
/// using that memory is gone: the tensor, every copy of its handle and every view
/// made from it (they share its Storage). Without a deleter the memory stays the
/// caller's to free, after the last tensor over it is gone.
/// Errors (kindling::Error): a negative size, check_sizes_nonnegative's message
/// ("Trying to create tensor with negative dimension -1: [2, -1]"); sizes and strides
/// of different lengths, "from_blob: sizes and strides differ in length".
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, TensorOptions options,
                 std::function<void(void*)> deleter) {
  // BEGIN SOLUTION week01.from_blob
  check_sizes_nonnegative(sizes);
  KINDLING_CHECK(sizes.size() == strides.size(), "from_blob: sizes and strides differ in length");
  const ScalarType dtype = kDefaultDtype;
  std::int64_t extent = numel_of(sizes) == 0 ? 0 : 1;
  for (std::size_t d = 0; d < sizes.size() && extent; ++d) extent += (sizes[d] - 1) * strides[d];
  Storage s = Storage::from_blob(data, static_cast<std::size_t>(extent) * element_size(dtype), std::move(deleter),
                                 options.device_);
  return Tensor::make(std::move(s), sizes.vec(), strides.vec(), 0, dtype);
  // END SOLUTION
}

}  // namespace kindling
