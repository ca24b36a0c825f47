// DistributedSampler's constructor (given): its checks and sizes are week 4's.

#include <kindling/distributed_sampler.hpp>
#include <kindling/error.hpp>

namespace kindling::distributed {

DistributedSampler::DistributedSampler(std::int64_t dataset_size, std::int64_t num_replicas, std::int64_t rank,
                                       bool shuffle, std::uint64_t seed, bool drop_last)
    : n_(dataset_size), replicas_(num_replicas), rank_(rank), shuffle_(shuffle), drop_last_(drop_last), seed_(seed) {
  KINDLING_CHECK_AS(ValueError, num_replicas > 0,
                    "num_replicas should be a positive integer value, but got num_replicas=", num_replicas);
  KINDLING_CHECK_AS(ValueError, rank >= 0 && rank < num_replicas, "Invalid rank ", rank,
                    ", rank should be in the interval [0, ", num_replicas - 1, "]");
  KINDLING_CHECK_AS(ValueError, dataset_size >= 0, "dataset_size must not be negative, got ", dataset_size);
  // As torch/utils/data/distributed.py: with drop_last, the largest multiple of num_replicas not
  // above n; otherwise n rounded up to one.
  if (drop_last_ && n_ % replicas_ != 0)
    num_samples_ = (n_ - replicas_ + replicas_ - 1) / replicas_;
  else
    num_samples_ = (n_ + replicas_ - 1) / replicas_;
  total_size_ = num_samples_ * replicas_;
}

}  // namespace kindling::distributed
