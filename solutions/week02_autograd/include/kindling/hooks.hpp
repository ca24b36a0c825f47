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
  // BEGIN SOLUTION week02.hooks
  if (!slot) slot = std::make_shared<HookList>();
  const int id = slot->next_id++;
  slot->hooks.emplace_back(id, std::move(hook));
  return HookHandle(slot, id);
  // END SOLUTION
}

/// Unregisters the hook this handle names; does nothing when it is already gone
/// (removed before, or its list died with its tensor).
inline void HookHandle::remove() {
  // BEGIN SOLUTION week02.hooks
  auto list = list_.lock();
  if (!list) return;
  std::erase_if(list->hooks, [this](const auto& entry) { return entry.first == id_; });
  list_.reset();
  // END SOLUTION
}

/// Runs the hooks in `list` (may be null) on `grad`, in registration order. Each
/// hook sees the gradient left by the one before; a defined result replaces it.
/// Returns the final gradient.
inline Tensor run_hooks(const HookList* list, Tensor grad) {
  // BEGIN SOLUTION week02.hooks
  if (list == nullptr) return grad;
  for (const auto& [id, hook] : list->hooks) {
    Tensor replaced = hook(grad);
    if (replaced.defined()) grad = std::move(replaced);
  }
  return grad;
  // END SOLUTION
}

}  // namespace kindling::autograd
