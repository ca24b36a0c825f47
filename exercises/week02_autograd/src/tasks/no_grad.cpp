// Task week02.no_grad. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week02.no_grad`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/no_grad.hpp>

namespace kindling {

/// Remembers the current mode (GradMode::is_enabled) and turns recording off.
NoGradGuard::NoGradGuard() {
  // BEGIN TASK week02.no_grad (replace the stub below with your code)
  KINDLING_TODO("week02.no_grad");
  // END TASK
}

/// Restores the remembered mode.
NoGradGuard::~NoGradGuard() {
  // BEGIN TASK week02.no_grad (replace the stub below with your code)
  KINDLING_TODO("week02.no_grad");
  // END TASK
}

/// Remembers the current mode and turns recording on.
EnableGradGuard::EnableGradGuard() {
  // BEGIN TASK week02.no_grad (replace the stub below with your code)
  KINDLING_TODO("week02.no_grad");
  // END TASK
}

/// Restores the remembered mode.
EnableGradGuard::~EnableGradGuard() {
  // BEGIN TASK week02.no_grad (replace the stub below with your code)
  KINDLING_TODO("week02.no_grad");
  // END TASK
}

}  // namespace kindling
