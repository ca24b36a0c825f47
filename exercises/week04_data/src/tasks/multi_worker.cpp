// Task week04.multi_worker. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week04.multi_worker`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/worker_pool.hpp>

namespace kindling::data {

/// Sends batches of the epoch, in order and round-robin over the workers (batch
/// k to worker k % num_workers), while fewer than num_workers * prefetch_factor
/// are in flight (with mutex_ held).
void WorkerPool::dispatch() {
  // BEGIN TASK week04.multi_worker (replace the stub below with your code)
  KINDLING_TODO("week04.multi_worker");
  // END TASK
}

}  // namespace kindling::data

namespace kindling::data {

/// Fetches the examples of `task` from the dataset and collates them (in the
/// worker's thread, without the mutex). Never throws for a dataset or collate
/// failure: make_worker_error()'s exception travels in Result::error.
WorkerPool::Result WorkerPool::run_task(std::int64_t worker, const Task& task) const {
  // BEGIN TASK week04.multi_worker (replace the stub below with your code)
  KINDLING_TODO("week04.multi_worker");
  // END TASK
}

}  // namespace kindling::data

namespace kindling::data {

/// The next batch of the epoch in order, or nullopt after the last. Throws:
/// - the worker's WorkerError for a batch that failed;
/// - the WorkerError of a worker whose worker_init_fn failed (init_error_, which that
///   worker's thread sets before it stops; it loads no batch, so a wait for one must
///   end when the failure arrives, never hang), whenever it is set;
/// - kindling::Error "DataLoader timed out after T seconds" when `timeout_s` passes
///   without the batch, T being `*timeout_s` as an ostream prints a double (5, 0.2).
std::optional<Batch> WorkerPool::next(std::optional<double> timeout_s) {
  // BEGIN TASK week04.multi_worker (replace the stub below with your code)
  KINDLING_TODO("week04.multi_worker");
  // END TASK
}

}  // namespace kindling::data
