// MUTANT: refuses arguments that require grad even with grad mode off (NoGradGuard)
// Task week01.add_out. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.add_out`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/grad_mode.hpp>
#include <kindling/ops.hpp>

// Useful: add(a, b, alpha) and result_type(a, b) (ops.hpp), can_cast and
// dtype_short_name (dtype.hpp), copy_ (converts to the destination's dtype, writes
// through its strides, bumps its version), contiguous_strides, Storage::allocate,
// and out.impl(): the TensorImpl behind the handle, whose fields (storage, sizes,
// strides, storage_offset) every handle to `out` sees.

namespace kindling {

/// `torch.add(a, b, alpha=alpha, out=out)`, LibTorch's `at::add_out(out, a, b, alpha)`:
/// writes a + alpha * b into the existing tensor `out` and returns out itself (the
/// same handle). The sum is the one add(a, b, alpha) computes: a and b broadcast
/// together, in the dtype result_type(a, b). It is then converted to out's dtype as
/// a C++ cast converts (int64 into float32 rounds to the nearest float, and above
/// 2^24 not every integer has one; a bool true becomes 1). Kindling computes the sum
/// before writing, so out may share memory with a or b (PyTorch 1.13 refuses a
/// partial overlap). Checks and steps, in this order:
/// 1. With grad mode on (GradMode::is_enabled()) and a, b or out requiring grad:
///    kindling::Error "add(): functions with out=... arguments don't support
///    automatic differentiation, but one of the arguments requires grad."
/// 2. The result type must be castable to out's dtype (can_cast: no floating result
///    into an integer tensor, only a bool into a bool tensor): kindling::Error
///    "result type Float can't be cast to the desired output type Long" (the names
///    as dtype_short_name writes them).
/// 3. When out's sizes are not the broadcast shape, out is resized in place, as
///    PyTorch's resize_ does: its sizes become the shape, its strides row-major, its
///    storage offset stays; it keeps its storage when that holds storage_offset +
///    numel elements, and otherwise gets a new one (the old values need not be
///    kept). PyTorch 1.13 also warns when it resizes an out that had elements.
///    When the sizes already match, out keeps its strides (a transposed out is
///    written through them).
/// 4. The values are written into out's elements, and out's version goes up by
///    one (one in-place write). An out with several elements at one memory address
///    (made by expand) cannot be written: kindling::Error "unsupported operation:
///    more than one element of the written-to tensor refers to a single memory
///    location. Please clone() the tensor before performing the operation."
const Tensor& add_out(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  // BEGIN SOLUTION week01.add_out
  KINDLING_CHECK(!(a.requires_grad() || b.requires_grad() || out.requires_grad()),
                 "add(): functions with out=... arguments don't support automatic differentiation, but one of the "
                 "arguments requires grad.");
  const ScalarType type = result_type(a, b);
  KINDLING_CHECK(can_cast(type, out.dtype()), "result type ", dtype_short_name(type),
                 " can't be cast to the desired output type ", dtype_short_name(out.dtype()));
  const Tensor sum = add(a, b, alpha);
  if (!out.sizes().equals(sum.sizes())) {
    TensorImpl& impl = out.impl();
    const auto needed = static_cast<std::size_t>(impl.storage_offset + sum.numel()) * out.element_size();
    if (impl.storage.nbytes() < needed) impl.storage = Storage::allocate(needed);
    impl.sizes = sum.sizes().vec();
    impl.strides = contiguous_strides(sum.sizes());
  }
  out.copy_(sum);
  return out;
  // END SOLUTION
}

}  // namespace kindling
