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

/// Adds `hook` to the list in `slot` (creating the list when `slot` is null) and returns a handle
/// whose remove() takes exactly this hook out again.
/// (Task week02.hooks: the contract and the code are in src/tasks/hooks.cpp.)
HookHandle add_hook(std::shared_ptr<HookList>& slot, TensorHook hook);

/// Runs the hooks in `list` (may be null) on `grad`, in registration order.
/// (Task week02.hooks: the contract and the code are in src/tasks/hooks.cpp.)
Tensor run_hooks(const HookList* list, Tensor grad);

}  // namespace kindling::autograd
