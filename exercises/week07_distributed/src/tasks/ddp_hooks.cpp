// Task week07.ddp_hooks. The doc comment above each function is its contract; your code goes between
// BEGIN and END. Hints, one at a time: `./grade hint week07.ddp_hooks`.
//
// The reducer's state is in ddp.hpp (class DistributedDataParallel): params_ (the parameters, in
// registration order), buckets_ (each with its params, offsets, flat buffer, pending count, work and
// launched flag), locator_ (parameter -> bucket and place in it), marked_, next_bucket_,
// expect_hooks_ and launched_total_ (how many bucket all-reduces this model has launched). Each parameter's hook calls
// mark_ready while expect_hooks_ is true.

#include <kindling/ddp.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/no_grad.hpp>

namespace kindling::distributed {

/// Starts an iteration (forward calls it before running the module, unless under no_sync): every
/// bucket's `pending` becomes its number of parameters and `launched` false, no parameter is
/// marked, `next_bucket_` is 0, and `expect_hooks_` is true, so that the next backward's hooks
/// reach mark_ready.
void DistributedDataParallel::prepare_for_backward() {
  // BEGIN TASK week07.ddp_hooks (replace the stub below with your code)
  KINDLING_TODO("week07.ddp_hooks");
  // END TASK
}

/// Parameter `index`'s gradient is complete in its `.grad` (its post-accumulate-grad hook fired).
/// A parameter marked twice in one iteration is a DistributedError (PyTorch: "Expected to mark a
/// variable ready only once"). Otherwise: mark it; copy its `.grad`, divided by the world size
/// (PyTorch divides before summing), into its slice of its bucket's flat buffer, without recording
/// a graph; one fewer parameter is pending in that bucket. Then launch, in bucket order from
/// `next_bucket_`, the asynchronous all-reduce (sum) of every bucket that has nothing pending (its
/// Work kept in `work`, `launched` set, `launched_total_` counted; never waited for here),
/// stopping at the first that still waits: the ranks must launch the same collectives in the same
/// order, and the gradients of one backward may arrive in a different order on different ranks.
/// When the last bucket has been launched, call finalize().
void DistributedDataParallel::mark_ready(std::size_t index) {
  // BEGIN TASK week07.ddp_hooks (replace the stub below with your code)
  KINDLING_TODO("week07.ddp_hooks");
  // END TASK
}

/// Every bucket has been launched: wait for each all-reduce in turn, copy each parameter's slice of
/// its bucket (now the mean over the ranks) into its `.grad` in place, without recording a graph, and
/// set `expect_hooks_` false: the iteration's reduction is finished.
void DistributedDataParallel::finalize() {
  // BEGIN TASK week07.ddp_hooks (replace the stub below with your code)
  KINDLING_TODO("week07.ddp_hooks");
  // END TASK
}

}  // namespace kindling::distributed
