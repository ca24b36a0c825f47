#pragma once
// The week-5 training workload, shared by week05_bench.cpp (on the CPU) and
// gpu/week06_device_bench.cpp (on a GPU), so that both time the same loop.

#include <cstdint>

#include <kindling/nn.hpp>
#include <kindling/training.hpp>

namespace kindling::bench {

// Training steps of `model` over `x` and `y` in batches of `batch` (a short last batch is left out).
inline void train_steps(nn::Module& model, optim::Optimizer& opt, const Tensor& x, const Tensor& y,
                        std::int64_t batch) {
  const std::int64_t n = x.size(0);
  for (std::int64_t start = 0; start + batch <= n; start += batch) {
    opt.zero_grad();
    const Tensor loss =
        nn::functional::cross_entropy(model(x.slice(0, start, start + batch)), y.slice(0, start, start + batch));
    loss.backward();
    opt.step();
  }
}

}  // namespace kindling::bench
