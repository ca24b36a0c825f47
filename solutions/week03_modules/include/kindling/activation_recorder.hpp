#pragma once
/// @file activation_recorder.hpp
/// Module forward hooks put to work: recording what chosen submodules output.
///
/// Week 2's tensor hooks see gradients during backward; a module's forward hook
/// sees its input and output during forward, from outside the module, without
/// editing its code. The classic use is a feature extractor: hook the layers you
/// want, run the model, read what they produced.

#include <map>
#include <string>
#include <vector>

#include <kindling/module.hpp>

namespace kindling::nn {

/// Records the outputs of chosen submodules of a model on every forward pass,
/// through forward hooks. Not copyable: the hooks refer to this object.
/// (Task week03.forward_hooks: the contract and the code are in src/tasks/forward_hooks.cpp.)
class ActivationRecorder {
 public:
  /// Hooks the submodules of `model` named in `names` (every submodule when empty).
  explicit ActivationRecorder(Module& model, const std::vector<std::string>& names = {});
  /// Unregisters the hooks that are still registered.
  ~ActivationRecorder() {
    for (RemovableHandle& handle : handles_) handle.remove();
  }
  ActivationRecorder(const ActivationRecorder&) = delete;
  ActivationRecorder& operator=(const ActivationRecorder&) = delete;

  /// The hooked modules' names, in the order they were hooked.
  const std::vector<std::string>& names() const { return names_; }
  /// What module `name` output so far, one detached tensor per call, in call order.
  const std::vector<Tensor>& outputs(const std::string& name) const;
  /// Forgets what was recorded; the hooks stay.
  void clear();
  /// Unregisters every hook; what was recorded stays.
  void remove();

 private:
  std::vector<std::string> names_;
  std::map<std::string, std::vector<Tensor>> outputs_;
  std::vector<RemovableHandle> handles_;
};

}  // namespace kindling::nn
