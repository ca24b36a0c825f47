// MUTANT: reports the failing item's position within the batch instead of its dataset index
// Task week04.multi_worker. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week04.multi_worker`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/worker_pool.hpp>

namespace kindling::data {

/// Sends batches of the epoch, in order and round-robin over the workers (batch
/// k to worker k % num_workers), while fewer than num_workers * prefetch_factor
/// are in flight (with mutex_ held).
void WorkerPool::dispatch() {
  // BEGIN SOLUTION week04.multi_worker
  const auto total = static_cast<std::int64_t>(batches_.size());
  const std::int64_t bound = config_.num_workers * config_.prefetch_factor;
  while (sent_ < total && sent_ - received_ < bound) {
    send(sent_ % config_.num_workers, {epoch_, sent_, batches_[static_cast<std::size_t>(sent_)]});
    ++sent_;
  }
  // END SOLUTION
}

}  // namespace kindling::data

namespace kindling::data {

/// Fetches the examples of `task` from the dataset and collates them (in the
/// worker's thread, without the mutex). Never throws for a dataset or collate
/// failure: make_worker_error()'s exception travels in Result::error.
WorkerPool::Result WorkerPool::run_task(std::int64_t worker, const Task& task) const {
  // BEGIN SOLUTION week04.multi_worker
  Result r;
  std::vector<Example> examples;
  examples.reserve(task.indices.size());
  auto fail = [&](std::int64_t index) {
    r.error = make_worker_error(worker, task.batch, index, std::current_exception());
    return r;
  };
  for (std::size_t pos = 0; pos < task.indices.size(); ++pos) {
    if (stopping_) return r;  // shutting down: the result will be dropped anyway
    try {
      examples.push_back(config_.dataset->get(task.indices[pos]));
    } catch (...) {
      return fail(static_cast<std::int64_t>(pos));
    }
  }
  try {
    r.batch = config_.collate ? config_.collate(std::move(examples)) : std::move(examples.at(0));
  } catch (...) {
    return fail(-1);
  }
  return r;
  // END SOLUTION
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
  // BEGIN SOLUTION week04.multi_worker
  std::unique_lock lock(mutex_);
  if (init_error_) std::rethrow_exception(init_error_);
  if (received_ == static_cast<std::int64_t>(batches_.size())) return std::nullopt;
  dispatch();
  auto ready = [&] { return results_.count(received_) > 0 || init_error_ != nullptr; };
  if (timeout_s) {
    const auto limit = std::chrono::duration<double>(*timeout_s);
    if (!result_cv_.wait_for(lock, limit, ready)) {
      std::ostringstream msg;
      msg << "DataLoader timed out after " << *timeout_s << " seconds";
      throw Error(msg.str());
    }
  } else {
    result_cv_.wait(lock, ready);
  }
  if (init_error_) std::rethrow_exception(init_error_);
  auto it = results_.find(received_);
  Result r = std::move(it->second);
  results_.erase(it);
  ++received_;
  dispatch();  // a slot is free again
  if (r.error) std::rethrow_exception(r.error);
  return std::move(r.batch);
  // END SOLUTION
}

}  // namespace kindling::data
