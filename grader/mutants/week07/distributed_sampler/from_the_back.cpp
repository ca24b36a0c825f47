// MUTANT: Fisher-Yates from the back, as std::shuffle's textbook form: another order for the same seed
// Task week07.distributed_sampler. The doc comment above each function is its contract; your code
// goes between BEGIN and END (two regions). Hints, one at a time: `./grade hint week07.distributed_sampler`.

#include <numeric>
#include <random>

#include <kindling/distributed_sampler.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::distributed {

/// torch.randperm(n) of a CPU generator seeded with `seed`, value for value (distributed_sampler.hpp
/// has the whole contract).
std::vector<std::int64_t> torch_randperm(std::int64_t n, std::uint64_t seed) {
  // BEGIN SOLUTION week07.distributed_sampler
  KINDLING_CHECK_AS(ValueError, n >= 0, "randperm: n must not be negative, got ", n);
  std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), std::int64_t{0});
  // PyTorch's CPU generator: mt19937 from the seed's low 32 bits; randperm swaps element i with
  // one drawn from [i, n), using the generator's next 32-bit output modulo n - i.
  std::mt19937 engine(static_cast<std::uint32_t>(seed & 0xffffffffu));
  for (std::int64_t i = n - 1; i > 0; --i) {
    const auto z = static_cast<std::int64_t>(engine() % static_cast<std::uint64_t>(i + 1));
    std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(z)]);
  }
  return perm;
  // END SOLUTION
}

/// This rank's indices for the current epoch (distributed_sampler.hpp has the whole contract).
std::vector<std::int64_t> DistributedSampler::indices() {
  // BEGIN SOLUTION week07.distributed_sampler
  std::vector<std::int64_t> all;
  if (shuffle_) {
    all = torch_randperm(n_, seed_ + static_cast<std::uint64_t>(epoch_));
  } else {
    all.resize(static_cast<std::size_t>(n_));
    std::iota(all.begin(), all.end(), std::int64_t{0});
  }
  if (!drop_last_) {
    const std::size_t padding = static_cast<std::size_t>(total_size_) - all.size();
    const std::vector<std::int64_t> base = all;
    for (std::size_t i = 0; i < padding; ++i) all.push_back(base[i % base.size()]);
  } else {
    all.resize(static_cast<std::size_t>(total_size_));
  }
  std::vector<std::int64_t> mine;
  for (std::int64_t i = rank_; i < total_size_; i += replicas_) mine.push_back(all[static_cast<std::size_t>(i)]);
  return mine;
  // END SOLUTION
}

}  // namespace kindling::distributed
