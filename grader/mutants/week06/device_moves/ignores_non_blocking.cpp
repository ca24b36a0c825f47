// MUTANT: passes non_blocking=false to the copy: a copy from pinned memory is never asynchronous
// Task week06.device_moves. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week06.device_moves`.

#include <kindling/device_hooks.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>
#include <kindling/grad_mode.hpp>

// device_backend(DeviceType::CUDA) is the GPU's DeviceBackend (device_hooks.hpp): resolve()
// turns "cuda" into "cuda:0" (and refuses an index beyond the devices present), copy(dst, src,
// non_blocking) copies between any two tensors of equal sizes when one of them is on the GPU.
// empty(sizes, TensorOptions(dtype).device(d)) allocates on any device.

namespace kindling {

/// `x.to(device, non_blocking, copy)`, as PyTorch's Tensor.to(device):
/// 1. A CUDA `device` is first resolved by the CUDA backend ("cuda" means "cuda:0"; an
///    index beyond the devices present is its error). A CPU device stays as given.
/// 2. When the tensor is already on that device and `copy` is false, the result is this very
///    tensor (the same handle: no new memory, no copy).
/// 3. Otherwise the result is a new row-major (contiguous) tensor of the same sizes and dtype
///    on `device`, holding the same values, whatever this tensor's strides and offset; a
///    CPU-to-CPU copy is clone().
/// 4. Kindling records no gradient through a device move yet: a tensor that requires grad,
///    while grad mode is enabled, is refused with an Error (checked before anything is
///    allocated) saying so; call detach() first.
/// 5. `non_blocking` is handed to the backend's copy: from pinned host memory the copy is
///    then asynchronous for the host (it returns before the data has arrived); from pageable
///    memory it is synchronous anyway, as in CUDA.
Tensor Tensor::to(Device device, bool non_blocking, bool copy) const {
  // BEGIN SOLUTION week06.device_moves
  (void)non_blocking;
  if (!device.is_cpu()) device = device_backend(device.type).resolve(device);
  if (device == this->device() && !copy) return *this;
  KINDLING_CHECK(!(requires_grad() && GradMode::is_enabled()),
                 "Kindling records no gradient through a move between devices yet (week 6 part 2): call detach() "
                 "first, or move the leaf before it requires grad");
  if (device.is_cpu() && this->device().is_cpu()) return clone();
  Tensor out = empty(sizes(), TensorOptions(dtype()).device(device));
  device_backend(device.is_cpu() ? this->device().type : device.type).copy(out, *this, false);
  return out;
  // END SOLUTION
}

}  // namespace kindling
