// DataLoader: option checks, the epoch's index batches, and the iterator over
// either the calling thread (num_workers = 0) or a WorkerPool.

#include <kindling/dataloader.hpp>

namespace kindling::data {

DataLoader::DataLoader(std::shared_ptr<Dataset> dataset, DataLoaderOptions options)
    : dataset_(std::move(dataset)), options_(std::move(options)) {
  KINDLING_CHECK(dataset_ != nullptr, "DataLoader needs a dataset");
  auto& o = options_;
  KINDLING_CHECK_AS(ValueError, o.num_workers >= 0,
                    "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.");
  KINDLING_CHECK_AS(ValueError, o.timeout >= 0, "timeout option should be non-negative");
  KINDLING_CHECK_AS(ValueError, o.num_workers > 0 || !o.prefetch_factor || *o.prefetch_factor == 2,
                    "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable "
                    "multiprocessing.");
  KINDLING_CHECK_AS(ValueError, !o.persistent_workers || o.num_workers > 0,
                    "persistent_workers option needs num_workers > 0");
  KINDLING_CHECK_AS(ValueError, !(o.sampler && o.shuffle), "sampler option is mutually exclusive with shuffle");
  if (o.batch_sampler) {
    KINDLING_CHECK_AS(ValueError, (o.batch_size && *o.batch_size == 1) && !o.shuffle && !o.sampler && !o.drop_last,
                      "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last");
  } else if (!o.batch_size) {
    KINDLING_CHECK_AS(ValueError, !o.drop_last,
                      "batch_size=None option disables auto-batching and is mutually exclusive with drop_last");
  }
  if (!o.prefetch_factor) o.prefetch_factor = 2;
  KINDLING_CHECK_AS(ValueError, *o.prefetch_factor > 0, "prefetch_factor should be a positive integer value, but got ",
                    *o.prefetch_factor);

  if (!o.sampler)
    o.sampler = o.shuffle ? std::shared_ptr<Sampler>(
                                std::make_shared<RandomSampler>(dataset_->size(), false, std::nullopt, o.generator))
                          : std::make_shared<SequentialSampler>(dataset_->size());
  if (o.batch_sampler)
    batches_ = o.batch_sampler;
  else if (o.batch_size)
    batches_ = std::make_shared<BatchSampler>(o.sampler, *o.batch_size, o.drop_last);  // checks batch_size > 0
  else
    sampler_ = o.sampler;
  if (!o.collate_fn && batches_) o.collate_fn = default_collate;
  if (o.pin_memory) pinned_ = PinnedMemoryPool::create(o.pin_memory_budget);
}

DataLoader::~DataLoader() = default;

std::int64_t DataLoader::size() const { return batches_ ? batches_->size() : sampler_->size(); }

std::vector<std::vector<std::int64_t>> DataLoader::epoch_indices() {
  if (batches_) return batches_->batches();
  std::vector<std::vector<std::int64_t>> out;
  for (std::int64_t i : sampler_->indices()) out.push_back({i});
  return out;
}

std::uint64_t DataLoader::draw_base_seed() { return generator_or_default(options_.generator).next(); }

struct DataLoader::Iterator::State {
  DataLoader* loader = nullptr;
  std::vector<std::vector<std::int64_t>> batches;  // num_workers == 0
  std::size_t position = 0;
  std::shared_ptr<WorkerPool> pool;  // num_workers > 0
  std::optional<Batch> current;

  void advance() {
    current.reset();
    const auto& o = loader->options_;
    std::optional<Batch> b;
    if (pool) {
      b = pool->next(o.timeout > 0 ? std::optional<double>(o.timeout) : std::nullopt);
    } else if (position < batches.size()) {
      const auto& indices = batches[position++];
      std::vector<Example> examples;
      examples.reserve(indices.size());
      for (std::int64_t i : indices) examples.push_back(loader->dataset_->get(i));
      b = o.collate_fn ? o.collate_fn(std::move(examples)) : std::move(examples.at(0));
    }
    if (b && loader->pinned_)
      for (Tensor& t : *b) t = loader->pinned_->pinned_copy(t);
    current = std::move(b);
  }
};

DataLoader::Iterator DataLoader::begin() {
  Iterator it;
  it.state_ = std::make_shared<Iterator::State>();
  auto& s = *it.state_;
  s.loader = this;
  auto indices = epoch_indices();  // drawn here, in the calling thread: independent of num_workers
  // PyTorch draws the epoch's base seed from the loader's generator on every
  // iteration, with or without workers, so that the generator's stream (and all
  // that is drawn from it later) does not depend on num_workers.
  const std::uint64_t base_seed = draw_base_seed();
  if (options_.num_workers == 0) {
    s.batches = std::move(indices);
  } else {
    if (!persistent_ || !options_.persistent_workers) {
      WorkerPool::Config c{
          dataset_, options_.collate_fn, options_.num_workers, *options_.prefetch_factor, options_.worker_init_fn,
          base_seed};
      auto pool = std::make_shared<WorkerPool>(std::move(c));
      if (options_.persistent_workers) persistent_ = pool;
      s.pool = pool;
    } else {
      s.pool = persistent_;
    }
    s.pool->start_epoch(std::move(indices));
  }
  s.advance();
  return it;
}

const Batch& DataLoader::Iterator::operator*() const {
  KINDLING_CHECK(state_ && state_->current, "DataLoader iterator: no current batch (the epoch is over)");
  return *state_->current;
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  state_->advance();
  return *this;
}

bool DataLoader::Iterator::operator!=(Sentinel) const { return state_ && state_->current.has_value(); }

}  // namespace kindling::data
