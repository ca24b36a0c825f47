// DistributedSampler's constructor (given): its checks and sizes are week 4's sampler's, whose
// constructor makes them (the two differ only in how they shuffle).

#include <kindling/distributed_sampler.hpp>
#include <kindling/error.hpp>

namespace kindling::distributed {

namespace {
// Week 4's checks (PyTorch's words) and its number of indices per rank.
std::int64_t samples_per_rank(std::int64_t n, std::int64_t replicas, std::int64_t rank, bool drop_last) {
  KINDLING_CHECK_AS(ValueError, n >= 0, "dataset_size must not be negative, got ", n);
  return data::DistributedSampler(n, replicas, rank, false, 0, drop_last).size();
}
}  // namespace

DistributedSampler::DistributedSampler(std::int64_t dataset_size, std::int64_t num_replicas, std::int64_t rank,
                                       bool shuffle, std::uint64_t seed, bool drop_last)
    : n_(dataset_size),
      replicas_(num_replicas),
      rank_(rank),
      num_samples_(samples_per_rank(dataset_size, num_replicas, rank, drop_last)),
      total_size_(num_samples_ * num_replicas),
      shuffle_(shuffle),
      drop_last_(drop_last),
      seed_(seed) {}

}  // namespace kindling::distributed
