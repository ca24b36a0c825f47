// MUTANT: hooks each module as soon as its name is found, so an unknown third name leaves two hooks behind
// Task week03.forward_hooks. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.forward_hooks`.
//
// Given: Module::register_forward_hook(hook) (module.hpp) registers
// `std::optional<Tensor> hook(Module& m, const Tensor& input, const Tensor& output)`, which
// runs after m.forward() every time m is called; a returned tensor replaces the output,
// std::nullopt keeps it. It returns a RemovableHandle whose remove() unregisters the hook.
// The destructor (in the header) calls remove() on every handle left in handles_.

#include <algorithm>

#include <kindling/activation_recorder.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::nn {

/// Registers one forward hook per chosen submodule of `model`:
/// - `names` empty: every module of model.named_modules() except `model` itself
///   (whose name is ""), in named_modules() order; otherwise exactly the modules
///   named (dotted names, as named_modules() writes them), in the order given.
///   names() returns the hooked names in that order.
/// - Each hook appends `output.detach()` to that name's list: the same data
///   (shared storage) without the graph, so that recording keeps no graph alive.
///   It returns std::nullopt: the model's output is unchanged. A module called
///   several times in one forward pass records one entry per call.
/// - Throws kindling::ValueError `ActivationRecorder: the model has no submodule
///   named 'fc9'` for the first name that named_modules() does not list, and then
///   registers no hook at all (check every name before registering any).
ActivationRecorder::ActivationRecorder(Module& model, const std::vector<std::string>& names) {
  // BEGIN SOLUTION week03.forward_hooks
  const auto modules = model.named_modules();
  std::vector<std::string> wanted = names;
  if (wanted.empty())
    for (const auto& [name, module] : modules)
      if (!name.empty()) wanted.push_back(name);
  for (const std::string& name : wanted) {
    const auto it = std::find_if(modules.begin(), modules.end(), [&](const auto& m) { return m.first == name; });
    if (it == modules.end()) throw ValueError("ActivationRecorder: the model has no submodule named '" + name + "'");
    Module* module = it->second;
    names_.push_back(name);
    outputs_[name];  // an empty list until the first call
    handles_.push_back(module->register_forward_hook(
        [this, key = name](Module&, const Tensor&, const Tensor& output) -> std::optional<Tensor> {
          outputs_[key].push_back(output.detach());
          return std::nullopt;
        }));
  }
  // END SOLUTION
}

/// The outputs recorded for hooked module `name` (empty before its first call).
/// Throws kindling::ValueError `ActivationRecorder: 'fc9' is not recorded` for a
/// name that was not hooked.
const std::vector<Tensor>& ActivationRecorder::outputs(const std::string& name) const {
  // BEGIN SOLUTION week03.forward_hooks
  const auto it = outputs_.find(name);
  if (it == outputs_.end()) throw ValueError("ActivationRecorder: '" + name + "' is not recorded");
  return it->second;
  // END SOLUTION
}

/// Empties every name's list; the hooks keep recording.
void ActivationRecorder::clear() {
  // BEGIN SOLUTION week03.forward_hooks
  for (auto& [name, list] : outputs_) list.clear();
  // END SOLUTION
}

/// Unregisters every hook (later forward passes record nothing, and hooks that
/// others registered on the same modules keep running). What was recorded stays
/// readable. Calling it again does nothing.
void ActivationRecorder::remove() {
  // BEGIN SOLUTION week03.forward_hooks
  for (RemovableHandle& handle : handles_) handle.remove();
  handles_.clear();
  // END SOLUTION
}

}  // namespace kindling::nn
