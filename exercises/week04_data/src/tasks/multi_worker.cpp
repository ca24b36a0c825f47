// Task week04.multi_worker. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints are in this week's README.md.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/worker_pool.hpp>

namespace kindling::data {

void WorkerPool::dispatch() {
  // BEGIN TASK week04.multi_worker (replace the stub below with your code)
  KINDLING_TODO("week04.multi_worker");
  // END TASK
}

}  // namespace kindling::data

namespace kindling::data {

WorkerPool::Result WorkerPool::run_task(std::int64_t worker, const Task& task) const {
  // BEGIN TASK week04.multi_worker (replace the stub below with your code)
  KINDLING_TODO("week04.multi_worker");
  // END TASK
}

}  // namespace kindling::data

namespace kindling::data {

std::optional<Batch> WorkerPool::next(std::optional<double> timeout_s) {
  // BEGIN TASK week04.multi_worker (replace the stub below with your code)
  KINDLING_TODO("week04.multi_worker");
  // END TASK
}

}  // namespace kindling::data
