// MUTANT: gradients are zeroed before each micro-batch: only the last one counts
// Task week07.no_sync. The doc comment above each function is its contract; your code goes between
// BEGIN and END. Hints, one at a time: `./grade hint week07.no_sync`.

#include <kindling/ddp.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::distributed {

/// Turns gradient synchronisation off for `ddp` (its require_backward_grad_sync_ flag, which forward
/// reads), remembering in previous_ what the flag was: the destructor (given, in ddp.cpp) puts
/// previous_ back, so that guards nest.
DistributedDataParallel::NoSync::NoSync(DistributedDataParallel& ddp) : ddp_(ddp), previous_(true) {
  // BEGIN SOLUTION week07.no_sync
  previous_ = ddp_.require_backward_grad_sync_;
  ddp_.require_backward_grad_sync_ = false;
  // END SOLUTION
}

/// One optimizer step over `micro_batches` with gradient accumulation, talking once (ddp.hpp has the
/// whole contract: zero_grad, each loss divided by the number of micro-batches, all but the last
/// micro-batch under no_sync(), step; returns this rank's mean loss).
double accumulate_and_step(DistributedDataParallel& ddp, optim::Optimizer& optimizer,
                           const std::vector<std::pair<Tensor, Tensor>>& micro_batches,
                           const std::function<Tensor(const Tensor&, const Tensor&)>& loss_fn) {
  // BEGIN SOLUTION week07.no_sync
  KINDLING_CHECK(!micro_batches.empty(), "accumulate_and_step: expected at least one micro-batch");
  const auto k = static_cast<double>(micro_batches.size());
  optimizer.zero_grad();
  double total = 0;
  for (std::size_t i = 0; i < micro_batches.size(); ++i) {
    const auto& [input, target] = micro_batches[i];
    optimizer.zero_grad();
    const auto run = [&] {
      const Tensor loss = loss_fn(ddp(input), target).div(k);
      total += loss.item<double>();
      loss.backward();
    };
    if (i + 1 < micro_batches.size()) {
      auto guard = ddp.no_sync();
      run();
    } else {
      run();
    }
  }
  optimizer.step();
  return total;
  // END SOLUTION
}

}  // namespace kindling::distributed
