#pragma once
/// @file distributed_sampler.hpp
/// Each rank's share of an epoch, exactly as PyTorch draws it (the task week07.distributed_sampler):
/// torch.randperm's permutation for a seed, and torch.utils.data.distributed.DistributedSampler
/// over it. Week 4's data::DistributedSampler partitions the same way but shuffles with the kit's
/// own generator; this one gives the indices a PyTorch rank with the same seed, epoch and rank
/// would read, so that a run can be compared with PyTorch's example by example.

#include <cstdint>
#include <vector>

#include <kindling/sampler.hpp>

namespace kindling::distributed {

/// torch.randperm(n, generator=g) on the CPU after g.manual_seed(seed), value for value, as
/// PyTorch 1.13 computes it for n below 2^31 / 10: its CPU generator is a 32-bit Mersenne
/// Twister (std::mt19937) started from the seed's low 32 bits. n = 0 gives an empty list; a
/// negative n is a ValueError.
std::vector<std::int64_t> torch_randperm(std::int64_t n, std::uint64_t seed);

/// torch.utils.data.distributed.DistributedSampler(range(dataset_size), num_replicas, rank,
/// shuffle, seed, drop_last): every rank gets size() indices. With `shuffle`, the epoch's order is
/// torch_randperm(dataset_size, seed + epoch), the same on every rank; without, 0, 1, 2, ....
/// Without drop_last the order is padded to a multiple of num_replicas by repeating it from its
/// start (as often as needed); with drop_last its tail is cut to the largest multiple. Rank r
/// takes every num_replicas-th index of that list from position r. Throws ValueError as PyTorch:
/// "Invalid rank 2, rank should be in the interval [0, 1]".
class DistributedSampler : public data::Sampler {
 public:
  /// See the class.
  DistributedSampler(std::int64_t dataset_size, std::int64_t num_replicas, std::int64_t rank, bool shuffle = true,
                     std::uint64_t seed = 0, bool drop_last = false);
  /// This rank's indices for the current epoch.
  std::vector<std::int64_t> indices() override;
  /// Indices per rank per epoch.
  std::int64_t size() const override { return num_samples_; }
  /// Selects the epoch's permutation (seed + epoch); call it before every epoch.
  void set_epoch(std::int64_t epoch) { epoch_ = epoch; }

 private:
  std::int64_t n_, replicas_, rank_, num_samples_, total_size_, epoch_ = 0;
  bool shuffle_, drop_last_;
  std::uint64_t seed_;
};

}  // namespace kindling::distributed
