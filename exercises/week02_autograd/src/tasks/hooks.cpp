// Task week02.hooks. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week02.hooks`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/hooks.hpp>

namespace kindling::autograd {

/// Adds `hook` to the list in `slot` (creating the list when `slot` is null) and
/// returns a handle whose remove() takes exactly this hook out again. Ids come
/// from the list's next_id, so they are unique within the list.
HookHandle add_hook(std::shared_ptr<HookList>& slot, TensorHook hook) {
  // BEGIN TASK week02.hooks (replace the stub below with your code)
  KINDLING_TODO("week02.hooks");
  // END TASK
}

}  // namespace kindling::autograd

namespace kindling::autograd {

/// Unregisters the hook this handle names; does nothing when it is already gone
/// (removed before, or its list died with its tensor).
void HookHandle::remove() {
  // BEGIN TASK week02.hooks (replace the stub below with your code)
  KINDLING_TODO("week02.hooks");
  // END TASK
}

}  // namespace kindling::autograd

namespace kindling::autograd {

/// Runs the hooks in `list` (may be null) on `grad`, in registration order. Each
/// hook sees the gradient left by the one before; a defined result replaces it.
/// Returns the final gradient.
Tensor run_hooks(const HookList* list, Tensor grad) {
  // BEGIN TASK week02.hooks (replace the stub below with your code)
  KINDLING_TODO("week02.hooks");
  // END TASK
}

}  // namespace kindling::autograd
