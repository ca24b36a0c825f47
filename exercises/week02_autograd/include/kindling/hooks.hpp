#pragma once
/// @file hooks.hpp
/// Tensor hooks: functions that see (and may replace) a tensor's gradient.
///
/// `h = y.register_hook(f)` asks backward to call `f(grad_of_y)` as soon as the
/// gradient of `y` is complete, before it flows further back. Returning a
/// defined tensor replaces the gradient (gradient clipping, debugging prints);
/// returning an undefined `Tensor()` keeps it. `h.remove()` unregisters `f`.

#include <kindling/node.hpp>

namespace kindling::autograd {

/// Adds `hook` to the list in `slot` (creating the list when `slot` is null) and
/// returns a handle whose remove() takes exactly this hook out again. Ids come
/// from the list's next_id, so they are unique within the list.
inline HookHandle add_hook(std::shared_ptr<HookList>& slot, TensorHook hook) {
  // BEGIN TASK week02.hooks (replace the stub below with your code)
  KINDLING_TODO("week02.hooks");
  // END TASK
}

/// Unregisters the hook this handle names; does nothing when it is already gone
/// (removed before, or its list died with its tensor).
inline void HookHandle::remove() {
  // BEGIN TASK week02.hooks (replace the stub below with your code)
  KINDLING_TODO("week02.hooks");
  // END TASK
}

/// Runs the hooks in `list` (may be null) on `grad`, in registration order. Each
/// hook sees the gradient left by the one before; a defined result replaces it.
/// Returns the final gradient.
inline Tensor run_hooks(const HookList* list, Tensor grad) {
  // BEGIN TASK week02.hooks (replace the stub below with your code)
  KINDLING_TODO("week02.hooks");
  // END TASK
}

}  // namespace kindling::autograd
