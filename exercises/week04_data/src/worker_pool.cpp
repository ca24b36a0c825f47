// The given half of the worker pool: starting, stopping and the worker threads'
// loop. The protocol itself (dispatch, run_task, next) is in src/tasks/multi_worker.cpp.

#include <cxxabi.h>

#include <cstdlib>

#include <kindling/generator.hpp>
#include <kindling/parallel.hpp>
#include <kindling/worker_pool.hpp>

namespace kindling::data {

namespace {
thread_local const WorkerInfo* current_worker = nullptr;

// "kindling::ValueError" for typeid(...).name()'s "N8kindling10ValueErrorE".
std::string demangle(const std::string& name) {
  int status = 0;
  char* readable = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && readable ? readable : name;
  std::free(readable);
  return out;
}
}  // namespace

const WorkerInfo* get_worker_info() { return current_worker; }

WorkerError::WorkerError(std::int64_t worker, std::int64_t batch_index, std::int64_t item, std::string kind_name,
                         std::string message)
    : worker_id(worker), batch(batch_index), index(item), kind(std::move(kind_name)), original(std::move(message)) {}

std::string worker_error_message(std::int64_t worker, std::int64_t batch, std::int64_t index, const std::string& kind,
                                 const std::string& original) {
  const std::string where = batch < 0 ? "in worker_init_fn"
                            : index < 0
                                ? "while collating batch " + std::to_string(batch)
                                : "while loading index " + std::to_string(index) + " of batch " + std::to_string(batch);
  return "Caught " + kind + " in DataLoader worker process " + std::to_string(worker) + ".\nOriginal error " + where +
         ":\n" + kind + ": " + original;
}

namespace {
template <class Kind>
std::exception_ptr worker_error_of(std::int64_t worker, std::int64_t batch, std::int64_t index, const char* kind,
                                   const std::string& message) {
  return std::make_exception_ptr(WorkerErrorOf<Kind>(worker, batch, index, kind, message));
}
}  // namespace

std::exception_ptr make_worker_error(std::int64_t worker, std::int64_t batch, std::int64_t index,
                                     std::exception_ptr original) {
  try {
    std::rethrow_exception(original);
  } catch (const ValueError& e) {
    return worker_error_of<ValueError>(worker, batch, index, "ValueError", e.what());
  } catch (const IndexError& e) {
    return worker_error_of<IndexError>(worker, batch, index, "IndexError", e.what());
  } catch (const TypeError& e) {
    return worker_error_of<TypeError>(worker, batch, index, "TypeError", e.what());
  } catch (const NotImplemented& e) {
    return worker_error_of<Error>(worker, batch, index, "NotImplementedError", e.what());
  } catch (const Error& e) {
    return worker_error_of<Error>(worker, batch, index, "RuntimeError", e.what());
  } catch (const std::exception& e) {  // a C++ exception: a RuntimeError naming its C++ type
    return worker_error_of<Error>(worker, batch, index, "RuntimeError", demangle(typeid(e).name()) + ": " + e.what());
  } catch (...) {
    return worker_error_of<Error>(worker, batch, index, "an unknown exception", "(not a std::exception)");
  }
}

WorkerPool::WorkerPool(Config config) : config_(std::move(config)) {
  KINDLING_CHECK(config_.num_workers > 0 && config_.prefetch_factor > 0,
                 "WorkerPool needs num_workers > 0 and prefetch_factor > 0");
  for (std::int64_t id = 0; id < config_.num_workers; ++id) inboxes_.push_back(std::make_unique<Inbox>());
  threads_.reserve(static_cast<std::size_t>(config_.num_workers));
  for (std::int64_t id = 0; id < config_.num_workers; ++id) threads_.emplace_back([this, id] { worker_loop(id); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  for (auto& inbox : inboxes_) inbox->cv.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::start_epoch(std::vector<std::vector<std::int64_t>> batches) {
  std::lock_guard lock(mutex_);
  ++epoch_;  // results of the old epoch still being computed are dropped on arrival
  for (auto& inbox : inboxes_) inbox->queue.clear();
  results_.clear();
  batches_ = std::move(batches);
  sent_ = received_ = 0;
}

void WorkerPool::send(std::int64_t worker, Task task) {
  Inbox& inbox = *inboxes_[static_cast<std::size_t>(worker)];
  inbox.queue.push_back(std::move(task));
  inbox.cv.notify_one();  // only this worker has new work: the others sleep on
}

std::int64_t WorkerPool::in_flight() const {
  std::lock_guard lock(mutex_);
  return sent_ - received_;
}

void WorkerPool::worker_loop(std::int64_t id) {
  const WorkerInfo info{id, config_.num_workers, config_.base_seed + static_cast<std::uint64_t>(id),
                        config_.dataset.get()};
  current_worker = &info;
  // PyTorch seeds each worker process with torch.manual_seed(base_seed + id): here
  // each worker thread gets its own default generator, so that what a dataset draws
  // in a worker depends on the seed alone, not on how the threads interleave.
  Generator generator(info.seed);
  const GeneratorGuard guard(generator);
  // As PyTorch's workers call torch.set_num_threads(1): the loader's parallelism is
  // its workers, and kernels inside them must not start a team of threads each.
  set_num_threads(1);
  if (config_.worker_init_fn) {
    try {
      config_.worker_init_fn(id);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!init_error_) init_error_ = make_worker_error(id, -1, -1, std::current_exception());
      result_cv_.notify_all();
      return;
    }
  }
  Inbox& inbox = *inboxes_[static_cast<std::size_t>(id)];
  for (;;) {
    Task task;
    {
      std::unique_lock lock(mutex_);
      inbox.cv.wait(lock, [&] { return stopping_ || !inbox.queue.empty(); });
      if (stopping_) break;
      task = std::move(inbox.queue.front());
      inbox.queue.pop_front();
    }
    Result result;
    try {
      result = run_task(id, task);
    } catch (...) {  // run_task reports dataset errors itself; this catches anything else (a stub, say)
      result.error = std::current_exception();
    }
    bool awaited = false;
    {
      std::lock_guard lock(mutex_);
      if (task.epoch != epoch_ || stopping_) continue;  // a stale epoch, or shutting down
      results_.emplace(task.batch, std::move(result));
      awaited = task.batch == received_;  // the consumer only ever waits for batch received_
    }
    // Waking the consumer for a batch it cannot take yet would cost two context
    // switches for nothing; it is woken when its own batch arrives.
    if (awaited) result_cv_.notify_one();
  }
  current_worker = nullptr;
}

}  // namespace kindling::data
