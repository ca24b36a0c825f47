// Task week03.state_dict. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.state_dict`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/state_dict.hpp>

namespace kindling::nn {

/// Every parameter and persistent buffer under its dotted name, detached
/// (sharing storage with the module), in named_modules() order with each
/// module's parameters before its buffers.
StateDict Module::state_dict() {
  // BEGIN TASK week03.state_dict (replace the stub below with your code)
  KINDLING_TODO("week03.state_dict");
  // END TASK
}

}  // namespace kindling::nn

namespace kindling::nn {

/// Copies `sd` into the parameters and buffers (under no_grad, in place).
/// Errors are collected and thrown together as one kindling::Error:
/// "Error(s) in loading state_dict for Linear:\n\t..." listing, in this order,
/// `Missing key(s) in state_dict: "a", "b". ` and `Unexpected key(s) in
/// state_dict: "c". ` (only when `strict`), then one `size mismatch for KEY:
/// copying a param with shape torch.Size([..]) from checkpoint, the shape in
/// current model is torch.Size([..]).` per mismatch (always).
IncompatibleKeys Module::load_state_dict(const StateDict& sd, bool strict) {
  // BEGIN TASK week03.state_dict (replace the stub below with your code)
  KINDLING_TODO("week03.state_dict");
  // END TASK
}

}  // namespace kindling::nn
