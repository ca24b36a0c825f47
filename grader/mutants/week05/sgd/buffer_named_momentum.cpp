// MUTANT: the momentum buffer kept as state buffer "momentum": state_dict() lacks PyTorch's momentum_buffer
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
  // BEGIN SOLUTION week05.sgd
  for (auto& group : groups_) {
    const auto lr = static_cast<float>(group.options["lr"]);
    const auto momentum = static_cast<float>(group.options["momentum"]);
    const auto one_minus_dampening = static_cast<float>(1 - group.options["dampening"]);  // rounded once, as PyTorch
    const auto weight_decay = static_cast<float>(group.options["weight_decay"]);
    const bool nesterov = group.options["nesterov"] != 0;
    const bool maximize = group.options["maximize"] != 0;
    for (const Tensor& p : group.params) {
      if (!p.grad().defined()) continue;
      if (!p.device().is_cpu()) {  // on a device: the same steps as tensor operations there
        const Tensor w = p.detach();
        Tensor d = maximize ? -p.grad() : p.grad();
        if (weight_decay != 0) d = d + w * weight_decay;
        if (momentum != 0) {
          ParamState& st = state(p);
          auto it = st.buffers.find("momentum");
          if (it == st.buffers.end())
            it = st.buffers.emplace("momentum", d.clone()).first;
          else
            it->second.mul_(momentum).add_(d, one_minus_dampening);
          d = nesterov ? d + it->second * momentum : it->second;
        }
        w.add_(d, -lr);
        continue;
      }
      float* w = detail::floats(p);
      const Tensor grad = p.grad().contiguous();
      const float* g = detail::floats(grad);
      const std::int64_t n = p.numel();
      ParamState& st = state(p);
      float* buf = nullptr;
      const bool first = momentum != 0 && !st.buffers.count("momentum");  // the first step copies d
      if (momentum != 0) buf = detail::state_buffer(st, p, "momentum");
      // One loop with momentum and one without, chosen once: an `if (buf)` inside the
      // loop would become a masked store, which some CPUs (AMD Zen 4) run slowly.
      const auto run = [&](auto with_momentum) {
        detail::for_ranges(n, [&](std::int64_t begin, std::int64_t end) {
          // Local copies of what the loop reads: the compiler cannot tell a store to
          // w[i] from a store to a captured float, so it would reload the captures on
          // every iteration. A local whose address is never taken is safe, and
          // __restrict says the three arrays do not overlap.
          const float step = -lr, mom = momentum, keep = one_minus_dampening, wd = weight_decay;
          const bool neg = maximize, copy = first, nest = nesterov;
          float* __restrict wp = w;
          float* __restrict bp = buf;
          const float* __restrict gp = g;
          for (std::int64_t i = begin; i < end; ++i) {
            float d = neg ? -gp[i] : gp[i];
            if (wd != 0) d = d + wd * wp[i];
            if constexpr (decltype(with_momentum)::value) {
              bp[i] = copy ? d : bp[i] * mom + keep * d;
              d = nest ? d + mom * bp[i] : bp[i];
            }
            wp[i] = wp[i] + step * d;
          }
        });
      };
      if (buf)
        run(std::true_type{});
      else
        run(std::false_type{});
    }
  }
  // END SOLUTION
}

}  // namespace kindling::optim
