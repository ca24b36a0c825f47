#pragma once
/// @file worker_pool.hpp
/// The DataLoader's workers: threads that fetch and collate batches ahead of the
/// training loop, delivered in sampler order whatever their timing.
///
/// Why threads, when PyTorch uses processes? In CPython only one thread runs
/// Python code at a time (the GIL), so a dataset written in Python can only load
/// in parallel from separate processes. C++ has no such lock: threads share the
/// dataset, need no pickling of batches through shared memory, and start in
/// microseconds. The price is that Dataset::get must be safe to call from
/// several threads at once.
///
/// The protocol, as in PyTorch's _MultiProcessingDataLoaderIter:
/// - batch k of the epoch goes to worker k % num_workers, through that worker's
///   own queue;
/// - at most num_workers * prefetch_factor batches are in flight (sent but not
///   yet handed to the consumer);
/// - results arrive in any order and wait in a reorder buffer until their turn;
/// - a worker's exception travels with its result and is rethrown when the
///   consumer reaches that batch, as an exception of the same kind (a ValueError
///   stays a ValueError, as in PyTorch) that is also a WorkerError;
/// - destroying the pool stops and joins every worker, whatever they are doing.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#include <kindling/collate.hpp>
#include <kindling/dataset.hpp>

namespace kindling::data {

/// What get_worker_info() tells code running inside a worker.
struct WorkerInfo {
  std::int64_t id = 0;           ///< 0 .. num_workers - 1
  std::int64_t num_workers = 0;  ///< workers of this loader
  std::uint64_t seed = 0;        ///< base seed of the epoch + id
  Dataset* dataset = nullptr;    ///< the dataset being loaded
};

/// Inside a DataLoader worker: its WorkerInfo; elsewhere: null.
const WorkerInfo* get_worker_info();

/// Where and how a DataLoader worker failed.
///
/// What the DataLoader rethrows is a WorkerErrorOf<Kind>: of the original
/// exception's kind *and* a WorkerError. So `catch (const ValueError&)` around a
/// loop works the same with workers as without (PyTorch re-raises the same
/// exception type), and `catch (const data::WorkerError&)` gives the details.
/// Kinds kept: ValueError, IndexError, TypeError; any other kindling::Error, and
/// any other exception, arrives as a kindling::Error (PyTorch's RuntimeError); a
/// C++ exception's own type is named before its message ("std::out_of_range: ...").
///
/// what() begins with PyTorch 1.13's first line, word for word, then says where
/// and what (Kindling's own detail; PyTorch prints the worker's traceback):
///   "Caught ValueError in DataLoader worker process 1.\n"
///   "Original error while loading index 17 of batch 4:\n"
///   "ValueError: item 17 is corrupt"
/// ("while collating batch 4" for a collate failure, "in worker_init_fn" for an
/// init failure).
class WorkerError {
 public:
  /// `index` is -1 when the failure was in collate (or worker_init_fn: batch -1 too).
  WorkerError(std::int64_t worker_id, std::int64_t batch, std::int64_t index, std::string kind, std::string original);
  /// Copies the details (a WorkerErrorOf copies its WorkerError part with it).
  WorkerError(const WorkerError&) = default;
  virtual ~WorkerError() = default;
  /// The whole message (see above).
  virtual const char* what() const noexcept = 0;
  std::int64_t worker_id;  ///< the worker that failed
  std::int64_t batch;      ///< the batch it was loading (-1: worker_init_fn)
  std::int64_t index;      ///< the dataset index it was loading (-1: collate or init)
  std::string kind;        ///< the original exception's kind, as PyTorch names it: "ValueError"
  std::string original;    ///< the original exception's message
};

/// The message of a WorkerError (see there).
std::string worker_error_message(std::int64_t worker_id, std::int64_t batch, std::int64_t index,
                                 const std::string& kind, const std::string& original);

/// A WorkerError that is also a `Kind` (ValueError, IndexError, TypeError or Error).
template <class Kind>
class WorkerErrorOf final : public Kind, public WorkerError {
 public:
  /// See WorkerError.
  WorkerErrorOf(std::int64_t worker, std::int64_t batch_index, std::int64_t item, std::string kind_name,
                std::string message)
      : Kind(worker_error_message(worker, batch_index, item, kind_name, message)),
        WorkerError(worker, batch_index, item, std::move(kind_name), std::move(message)) {}
  /// The whole message.
  const char* what() const noexcept override { return Kind::what(); }
};

/// The exception to rethrow for `original`, caught in worker `worker_id` while it
/// loaded `index` of `batch` (-1 as in WorkerError): a WorkerErrorOf of the
/// original's kind. Call it inside `catch (...)` with std::current_exception().
std::exception_ptr make_worker_error(std::int64_t worker_id, std::int64_t batch, std::int64_t index,
                                     std::exception_ptr original);

/// Threads that load batches (see the file comment for the protocol).
class WorkerPool {
 public:
  /// What the workers need.
  struct Config {
    std::shared_ptr<Dataset> dataset;                  ///< shared by all workers
    CollateFn collate;                                 ///< empty: no collation (one example per batch)
    std::int64_t num_workers = 1;                      ///< threads
    std::int64_t prefetch_factor = 2;                  ///< batches in flight per worker
    std::function<void(std::int64_t)> worker_init_fn;  ///< runs once in each worker, first
    std::uint64_t base_seed = 0;                       ///< worker i's seed is base_seed + i
  };
  /// Starts the worker threads (they wait for an epoch).
  explicit WorkerPool(Config config);
  /// Stops and joins every worker; batches in flight are dropped.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Starts an epoch of `batches` (lists of dataset indices), dropping whatever
  /// the previous epoch still had in flight.
  void start_epoch(std::vector<std::vector<std::int64_t>> batches);
  /// The next batch of the epoch in order, or nullopt after the last. Throws the
  /// worker's WorkerError for a batch that failed, and kindling::Error "DataLoader
  /// timed out after 5 seconds" when `timeout_s` passes without the batch.
  std::optional<Batch> next(std::optional<double> timeout_s);
  /// Batches sent to workers and not yet returned by next() (for tests).
  std::int64_t in_flight() const;

 private:
  struct Task {
    std::uint64_t epoch;
    std::int64_t batch;
    std::vector<std::int64_t> indices;
  };
  struct Result {
    Batch batch;
    std::exception_ptr error;
  };
  /// One worker's inbox: its queue and the condition variable it sleeps on.
  struct Inbox {
    std::deque<Task> queue;
    std::condition_variable cv;
  };
  void worker_loop(std::int64_t id);
  /// Fetches the examples of `task` from the dataset and collates them (in the
  /// worker's thread, without the mutex). Never throws for a dataset or collate
  /// failure: make_worker_error()'s exception travels in Result::error.
  Result run_task(std::int64_t worker, const Task& task) const;
  /// Sends batches of the epoch, in order and round-robin over the workers (batch
  /// k to worker k % num_workers), while fewer than num_workers * prefetch_factor
  /// are in flight (with mutex_ held).
  void dispatch();
  /// Queues `task` for worker `worker` and wakes that worker alone (with mutex_ held).
  void send(std::int64_t worker, Task task);

  Config config_;
  mutable std::mutex mutex_;
  std::condition_variable result_cv_;            // the consumer waits here for batch `received_`
  std::vector<std::unique_ptr<Inbox>> inboxes_;  // one per worker
  std::map<std::int64_t, Result> results_;       // the reorder buffer: batch -> result
  std::vector<std::vector<std::int64_t>> batches_;
  std::uint64_t epoch_ = 0;
  std::int64_t sent_ = 0, received_ = 0;
  std::exception_ptr init_error_;
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> threads_;
};

// ---- the parts of the protocol students write (week04.multi_worker) ------------------------------------

}  // namespace kindling::data
