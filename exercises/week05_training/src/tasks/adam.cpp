// Task week05.adam. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week05.adam`.

#include <algorithm>
#include <cmath>
#include <type_traits>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>
#include <kindling/ops.hpp>
#include <kindling/optim.hpp>

#include "optim_internal.hpp"

namespace kindling::optim {

/// One Adam (or, when decoupled_ is true, AdamW) update of every parameter with a
/// gradient, as PyTorch 1.13's single-tensor implementation does it. Options per
/// group: lr, beta1, beta2, eps, weight_decay, amsgrad, maximize. State per
/// parameter (state(p)): step (a count, starting at 0) and the buffers "exp_avg",
/// "exp_avg_sq" and, with amsgrad, "max_exp_avg_sq", all zeros at first.
/// For parameter p with gradient g:
///
///     g = maximize ? -g : g;   step = step + 1
///     Adam:  g = g + weight_decay * p          (when weight_decay != 0)
///     AdamW: p = p * (1 - lr * weight_decay)   (decoupled: the gradient is untouched)
///     m = beta1 * m + (1 - beta1) * g
///     v = beta2 * v + (1 - beta2) * g * g
///     bc1 = 1 - beta1^step;  bc2 = 1 - beta2^step   (in double)
///     amsgrad: vmax = max(vmax, v), and vmax replaces v below
///     denom = sqrt(v) / sqrt(bc2) + eps
///     p = p - (lr / bc1) * m / denom
///
/// The tensors are updated elementwise in float arithmetic, without autograd
/// recording (detail::floats gives a float32 tensor's contiguous data).
/// Optimizer::step() calls this and counts the step. A large parameter's loop may
/// be split across threads with detail::for_ranges(n, body), which calls
/// body(begin, end) on each range. A parameter on a GPU (week 6) is updated there,
/// with the same formula in tensor operations (the tests grade the CPU path).
void Adam::update() {
  // BEGIN TASK week05.adam (replace the stub below with your code)
  KINDLING_TODO("week05.adam");
  // END TASK
}

}  // namespace kindling::optim
