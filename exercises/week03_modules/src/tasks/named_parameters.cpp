// Task week03.named_parameters. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints are in this week's README.md.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/module.hpp>

namespace kindling::nn {

std::vector<std::pair<std::string, Module*>> Module::named_modules(const std::string& prefix) {
  // BEGIN TASK week03.named_parameters (replace the stub below with your code)
  KINDLING_TODO("week03.named_parameters");
  // END TASK
}

}  // namespace kindling::nn

namespace kindling::nn {

std::vector<std::pair<std::string, Tensor>> Module::named_parameters(bool recurse) {
  // BEGIN TASK week03.named_parameters (replace the stub below with your code)
  KINDLING_TODO("week03.named_parameters");
  // END TASK
}

}  // namespace kindling::nn
