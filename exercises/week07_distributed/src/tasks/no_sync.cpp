// Task week07.no_sync. The doc comment above each function is its contract; your code goes between
// BEGIN and END. Hints, one at a time: `./grade hint week07.no_sync`.

#include <kindling/ddp.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::distributed {

/// Turns gradient synchronisation off for `ddp` (its require_backward_grad_sync_ flag, which forward
/// reads), remembering in previous_ what the flag was: the destructor (given, in ddp.cpp) puts
/// previous_ back, so that guards nest.
DistributedDataParallel::NoSync::NoSync(DistributedDataParallel& ddp) : ddp_(ddp), previous_(true) {
  // BEGIN TASK week07.no_sync (replace the stub below with your code)
  KINDLING_TODO("week07.no_sync");
  // END TASK
}

/// One optimizer step over `micro_batches` with gradient accumulation, talking once (ddp.hpp has the
/// whole contract: zero_grad, each loss divided by the number of micro-batches, all but the last
/// micro-batch under no_sync(), step; returns this rank's mean loss).
double accumulate_and_step(DistributedDataParallel& ddp, optim::Optimizer& optimizer,
                           const std::vector<std::pair<Tensor, Tensor>>& micro_batches,
                           const std::function<Tensor(const Tensor&, const Tensor&)>& loss_fn) {
  // BEGIN TASK week07.no_sync (replace the stub below with your code)
  KINDLING_TODO("week07.no_sync");
  // END TASK
}

}  // namespace kindling::distributed
