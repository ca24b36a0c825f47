// Task week03.named_parameters. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.named_parameters`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/module.hpp>

namespace kindling::nn {

/// This module (name "") and every descendant, depth first, parents before
/// children, each module once, with dotted names: "", "0", "0.fc", ...
std::vector<std::pair<std::string, Module*>> Module::named_modules(const std::string& prefix) {
  // BEGIN TASK week03.named_parameters (replace the stub below with your code)
  KINDLING_TODO("week03.named_parameters");
  // END TASK
}

}  // namespace kindling::nn

namespace kindling::nn {

/// Every parameter with its dotted name ("0.weight"), each tensor once, in
/// named_modules() order; own parameters only when `recurse` is false.
std::vector<std::pair<std::string, Tensor>> Module::named_parameters(bool recurse) {
  // BEGIN TASK week03.named_parameters (replace the stub below with your code)
  KINDLING_TODO("week03.named_parameters");
  // END TASK
}

}  // namespace kindling::nn
