// MUTANT: every hook sees the incoming gradient, not the one the previous hook left
// Task week02.hooks. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week02.hooks`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/hooks.hpp>

namespace kindling::autograd {

/// Adds `hook` to the list in `slot` (creating the list when `slot` is null) and
/// returns a handle whose remove() takes exactly this hook out again. Ids come
/// from the list's next_id, so they are unique within the list.
HookHandle add_hook(std::shared_ptr<HookList>& slot, TensorHook hook) {
  // BEGIN SOLUTION week02.hooks
  if (!slot) slot = std::make_shared<HookList>();
  const int id = slot->next_id++;
  slot->hooks.emplace_back(id, std::move(hook));
  return HookHandle(slot, id);
  // END SOLUTION
}

}  // namespace kindling::autograd

namespace kindling::autograd {

/// Unregisters the hook this handle names; does nothing when it is already gone
/// (removed before, or its list died with its tensor).
void HookHandle::remove() {
  // BEGIN SOLUTION week02.hooks
  auto list = list_.lock();
  if (!list) return;
  std::erase_if(list->hooks, [this](const auto& entry) { return entry.first == id_; });
  list_.reset();
  // END SOLUTION
}

}  // namespace kindling::autograd

namespace kindling::autograd {

/// Runs the hooks in `list` (may be null) on `grad`, in registration order. Each
/// hook sees the gradient left by the one before; a defined result replaces it.
/// Returns the final gradient.
Tensor run_hooks(const HookList* list, Tensor grad) {
  // BEGIN SOLUTION week02.hooks
  if (list == nullptr) return grad;
  const Tensor original = grad;
  for (const auto& [id, hook] : list->hooks) {
    Tensor replaced = hook(original);
    if (replaced.defined()) grad = std::move(replaced);
  }
  return grad;
  // END SOLUTION
}

}  // namespace kindling::autograd
