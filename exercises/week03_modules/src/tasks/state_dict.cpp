// Task week03.state_dict. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints are in this week's README.md.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/state_dict.hpp>

namespace kindling::nn {

StateDict Module::state_dict() {
  // BEGIN TASK week03.state_dict (replace the stub below with your code)
  KINDLING_TODO("week03.state_dict");
  // END TASK
}

}  // namespace kindling::nn

namespace kindling::nn {

IncompatibleKeys Module::load_state_dict(const StateDict& sd, bool strict) {
  // BEGIN TASK week03.state_dict (replace the stub below with your code)
  KINDLING_TODO("week03.state_dict");
  // END TASK
}

}  // namespace kindling::nn
