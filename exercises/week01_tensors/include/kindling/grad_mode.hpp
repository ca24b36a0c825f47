#pragma once
/// @file grad_mode.hpp
/// Whether operations record autograd history on this thread.
///
/// Week 1 owns the switch because its operations consult it; week 2's
/// NoGradGuard and EnableGradGuard (no_grad.hpp) are the way users flip it.

namespace kindling {

/// The thread-local grad-mode switch (PyTorch's `torch.is_grad_enabled()`).
/// Each thread starts with grad mode on.
class GradMode {
 public:
  /// True when operations on tensors that require grad record a graph.
  static bool is_enabled() { return flag(); }
  /// Turns recording on or off for this thread.
  static void set_enabled(bool enabled) { flag() = enabled; }

 private:
  static bool& flag() {
    thread_local bool enabled = true;
    return enabled;
  }
};

/// Sets grad mode for a scope and restores the previous mode on exit (the engine's
/// own tool; users write NoGradGuard).
class AutoGradMode {
 public:
  /// Remembers the current mode and sets `enabled`.
  explicit AutoGradMode(bool enabled) : previous_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~AutoGradMode() { GradMode::set_enabled(previous_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool previous_;
};

}  // namespace kindling
