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
  // BEGIN TASK week07.distributed_sampler (replace the stub below with your code)
  KINDLING_TODO("week07.distributed_sampler");
  // END TASK
}

/// This rank's indices for the current epoch (distributed_sampler.hpp has the whole contract).
std::vector<std::int64_t> DistributedSampler::indices() {
  // BEGIN TASK week07.distributed_sampler (replace the stub below with your code)
  KINDLING_TODO("week07.distributed_sampler");
  // END TASK
}

}  // namespace kindling::distributed
