#pragma once
/// @file dataloader.hpp
/// DataLoader: batches of a dataset, in sampler order, loaded by worker threads.
///
/// @code
/// data::DataLoader loader(dataset, {.batch_size = 64, .shuffle = true, .num_workers = 4});
/// for (const data::Batch& batch : loader) { ... batch[0] is the images, batch[1] the labels ... }
/// @endcode

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <kindling/collate.hpp>
#include <kindling/dataset.hpp>
#include <kindling/generator.hpp>
#include <kindling/pinned.hpp>
#include <kindling/sampler.hpp>
#include <kindling/worker_pool.hpp>

namespace kindling::data {

/// torch.utils.data.DataLoader's arguments, for designated initialisers.
struct DataLoaderOptions {
  std::optional<std::int64_t> batch_size = 1;          ///< nullopt: no batching (one example at a time)
  bool shuffle = false;                                ///< a RandomSampler instead of a SequentialSampler
  std::shared_ptr<Sampler> sampler{};                  ///< which indices, in which order
  std::shared_ptr<BatchSampler> batch_sampler{};       ///< whole batches of indices
  std::int64_t num_workers = 0;                        ///< loading threads (0: load in the calling thread)
  CollateFn collate_fn{};                              ///< examples -> batch (default_collate when empty)
  bool pin_memory = false;                             ///< copy batches into page-locked memory
  bool drop_last = false;                              ///< drop a short final batch
  double timeout = 0;                                  ///< seconds to wait for a batch (0: forever)
  std::function<void(std::int64_t)> worker_init_fn{};  ///< runs first in each worker, with its id
  std::optional<std::int64_t> prefetch_factor{};       ///< batches in flight per worker (2 with workers)
  bool persistent_workers = false;                     ///< keep the workers between epochs
  Generator* generator = nullptr;                      ///< for shuffling and the workers' base seed
  std::optional<std::size_t> pin_memory_budget{};      ///< cap on locked bytes (Kindling's; none in PyTorch)
};

/// Batches of a dataset (torch.utils.data.DataLoader). Iterating starts an
/// epoch; breaking out of the loop (or destroying the loader) stops the epoch's
/// workers and joins them.
class DataLoader {
 public:
  /// Checks the options as PyTorch 1.13 does (ValueError, word for word):
  /// - "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."
  /// - "timeout option should be non-negative"
  /// - "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable
  /// multiprocessing."
  /// - "persistent_workers option needs num_workers > 0"
  /// - "sampler option is mutually exclusive with shuffle"
  /// - "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
  /// - "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"
  /// - "batch_size should be a positive integer value, but got batch_size=0"
  DataLoader(std::shared_ptr<Dataset> dataset, DataLoaderOptions options = {});
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  class Iterator;
  /// Marks the end of an epoch.
  struct Sentinel {};
  /// Starts an epoch and loads its first batch.
  Iterator begin();
  /// The end of the epoch.
  Sentinel end() const { return {}; }
  /// Batches per epoch (len(loader)): with drop_last n / batch_size rounded
  /// down, else rounded up; without batching, the sampler's length.
  std::int64_t size() const;
  /// The options as checked (prefetch_factor filled in).
  const DataLoaderOptions& options() const { return options_; }

  /// One epoch in progress. Copies share the epoch.
  class Iterator {
   public:
    /// The current batch.
    const Batch& operator*() const;
    /// Loads the next batch.
    Iterator& operator++();
    /// False once the epoch is over.
    bool operator!=(Sentinel) const;
    /// True once the epoch is over.
    bool operator==(Sentinel s) const { return !(*this != s); }

   private:
    friend class DataLoader;
    struct State;
    std::shared_ptr<State> state_;
  };

 private:
  std::shared_ptr<Dataset> dataset_;
  DataLoaderOptions options_;
  std::shared_ptr<BatchSampler> batches_;  // when batching
  std::shared_ptr<Sampler> sampler_;       // when not batching
  std::shared_ptr<WorkerPool> persistent_;
  std::shared_ptr<PinnedMemoryPool> pinned_;
  std::vector<std::vector<std::int64_t>> epoch_indices();
  std::uint64_t draw_base_seed();
  friend class Iterator;
};

}  // namespace kindling::data
