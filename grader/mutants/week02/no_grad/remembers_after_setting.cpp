// MUTANT: NoGradGuard turns recording off before remembering the mode, so it always restores 'off'
// Task week02.no_grad. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week02.no_grad`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/no_grad.hpp>

namespace kindling {

/// Remembers the current mode (GradMode::is_enabled) and turns recording off.
NoGradGuard::NoGradGuard() {
  // BEGIN SOLUTION week02.no_grad
  GradMode::set_enabled(false);
  previous_ = GradMode::is_enabled();
  // END SOLUTION
}

/// Restores the remembered mode.
NoGradGuard::~NoGradGuard() {
  // BEGIN SOLUTION week02.no_grad
  GradMode::set_enabled(previous_);
  // END SOLUTION
}

/// Remembers the current mode and turns recording on.
EnableGradGuard::EnableGradGuard() {
  // BEGIN SOLUTION week02.no_grad
  previous_ = GradMode::is_enabled();
  GradMode::set_enabled(true);
  // END SOLUTION
}

/// Restores the remembered mode.
EnableGradGuard::~EnableGradGuard() {
  // BEGIN SOLUTION week02.no_grad
  GradMode::set_enabled(previous_);
  // END SOLUTION
}

}  // namespace kindling
