// Task week05.sgd. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week05.sgd`.

#include <type_traits>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>
#include <kindling/ops.hpp>
#include <kindling/optim.hpp>

#include "optim_internal.hpp"

namespace kindling::optim {

/// One SGD update of every parameter with a gradient, as PyTorch 1.13's
/// single-tensor SGD does it, group by group with the group's own options (read
/// them with group.options["lr"], ["momentum"], ["dampening"], ["weight_decay"],
/// ["nesterov"], ["maximize"]; flags are 0 or 1). For a parameter p with gradient g,
/// elementwise in float arithmetic:
///
///     d = maximize ? -g : g
///     d = d + weight_decay * p                              (when weight_decay != 0)
///     with momentum != 0:
///       buf = d                                             (the first step: a copy)
///       buf = momentum * buf + (1 - dampening) * d          (every later step)
///       d = nesterov ? d + momentum * buf : buf
///     p = p - lr * d
///
/// The momentum buffer lives in state(p).buffers["momentum_buffer"]
/// (detail::state_buffer creates it, zero-filled, the first time). Parameters
/// without a gradient are skipped. The update is not recorded by autograd: write
/// into the parameters' memory directly (detail::floats(t) gives a float32
/// tensor's contiguous data). Optimizer::step() calls this and counts the step.
/// A large parameter's loop may be split across threads with
/// detail::for_ranges(n, body), which calls body(begin, end) on each range.
/// A parameter on a GPU (week 6) is updated there, with the same formula in tensor
/// operations: the host cannot write device memory (the tests grade the CPU path).
void SGD::update() {
  // BEGIN TASK week05.sgd (replace the stub below with your code)
  KINDLING_TODO("week05.sgd");
  // END TASK
}

}  // namespace kindling::optim
