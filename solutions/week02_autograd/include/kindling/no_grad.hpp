#pragma once
/// @file no_grad.hpp
/// NoGradGuard and EnableGradGuard: scoped control of recording.
///
/// `torch.no_grad()` in C++: while a NoGradGuard lives, operations record no graph
/// and their results do not require grad, which is how parameters are
/// initialised or updated in place, and how evaluation runs without the memory a
/// graph costs.

#include <kindling/grad_mode.hpp>

namespace kindling {

/// Turns grad mode off for its lifetime, then restores the mode it found (so
/// guards nest). Thread-local: other threads are unaffected. Not copyable.
class NoGradGuard {
 public:
  /// Remembers the current mode (GradMode::is_enabled) and turns recording off.
  /// (Task week02.no_grad: src/tasks/no_grad.cpp.)
  NoGradGuard();
  /// Restores the remembered mode.
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_ = true;
};

/// Turns grad mode on for its lifetime (inside a NoGradGuard, for example), then
/// restores the mode it found. Thread-local; not copyable.
class EnableGradGuard {
 public:
  /// Remembers the current mode and turns recording on.
  /// (Task week02.no_grad: src/tasks/no_grad.cpp.)
  EnableGradGuard();
  /// Restores the remembered mode.
  ~EnableGradGuard();
  EnableGradGuard(const EnableGradGuard&) = delete;
  EnableGradGuard& operator=(const EnableGradGuard&) = delete;

 private:
  bool previous_ = true;
};

}  // namespace kindling
