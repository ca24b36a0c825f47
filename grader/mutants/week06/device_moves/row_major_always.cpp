// MUTANT: always allocates row-major (empty): x.t().cuda() loses its strides, which preserve_format keeps
// Task week06.device_moves. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week06.device_moves`.

#include <kindling/device_hooks.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>
#include <kindling/grad_mode.hpp>

// device_backend(DeviceType::CUDA) is the GPU's DeviceBackend (device_hooks.hpp): resolve()
// turns "cuda" into "cuda:0" (and refuses an index beyond the devices present), copy(dst, src,
// non_blocking) copies between any two tensors of equal sizes and any strides when one of them is
// on the GPU. empty(sizes, TensorOptions(dtype).device(d)) allocates a row-major tensor on any
// device, and week 1's empty_like(t, options) one laid out like t. detail::record_move(result,
// self) attaches a move's node (ToCopyBackward0) to a new tensor made from self, when self
// requires grad; it does not look at grad mode (GradMode::is_enabled(), grad_mode.hpp).

namespace kindling {

/// `x.to(device, non_blocking, copy)`, as PyTorch's Tensor.to(device):
/// 1. A CUDA `device` is first resolved by the CUDA backend ("cuda" means "cuda:0"; an
///    index beyond the devices present is its error). A CPU device stays as given.
/// 2. When the tensor is already on that device and `copy` is false, the result is this very
///    tensor (the same handle: no new memory, no copy).
/// 3. Otherwise the result is a new tensor of the same sizes and dtype on `device`, in storage
///    of its own at offset 0, holding the same values, laid out as PyTorch's default
///    `memory_format=torch.preserve_format` lays out a copy, which is week 1's empty_like rule:
///    exactly this tensor's strides when it is non-overlapping and dense (a transpose or
///    permute of a contiguous tensor keeps its strides, so `x.t().cuda()` has strides
///    (1, rows)), and otherwise dense strides in this tensor's memory order (a step slice of a
///    transpose stays column-major; an expand arrives row-major). A CPU-to-CPU copy follows the
///    same rule; its history is item 4's, not clone()'s.
/// 4. A move is recorded like any other op: when this tensor requires grad while grad mode is
///    enabled, the new tensor (item 3) is not a leaf; its grad_fn is ToCopyBackward0, and
///    backward carries the gradient back to this tensor's device. Under no_grad the new tensor
///    has no history, and a result that is this very tensor (item 2) records nothing.
/// 5. `non_blocking` is handed to the backend's copy: from pinned host memory the copy is
///    then asynchronous for the host (it returns before the data has arrived); from pageable
///    memory it is synchronous anyway, as in CUDA. With `non_blocking` false the move returns
///    only once the copy is done, from pinned memory too.
Tensor Tensor::to(Device device, bool non_blocking, bool copy) const {
  // BEGIN SOLUTION week06.device_moves
  if (!device.is_cpu()) device = device_backend(device.type).resolve(device);
  if (device == this->device() && !copy) return *this;
  Tensor out = empty(sizes(), TensorOptions(dtype()).device(device));
  if (device.is_cpu() && this->device().is_cpu())
    out.copy_(detach());  // (detached: the move records its own node, item 4)
  else
    device_backend(device.is_cpu() ? this->device().type : device.type).copy(out, *this, non_blocking);
  if (GradMode::is_enabled()) detail::record_move(out, *this);
  return out;
  // END SOLUTION
}

}  // namespace kindling
