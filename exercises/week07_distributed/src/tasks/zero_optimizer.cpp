// Task week07.zero_optimizer. The doc comment above each function is its contract; your code goes
// between BEGIN and END. Hints, one at a time: `./grade hint week07.zero_optimizer`.
//
// ZeroRedundancyOptimizer's state is in zero.hpp: group_, params_ (every parameter, in the order
// given), partition_ (for each rank, its parameters' indices), owner_ (parameter -> rank) and local_
// (this rank's optimizer over its own parameters; null when it owns none).

#include <algorithm>
#include <cstdint>
#include <vector>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/no_grad.hpp>
#include <kindling/zero.hpp>

namespace kindling::distributed {

/// For each of `world_size` ranks, the indices of the parameters it owns (zero.hpp has the whole
/// contract: the largest first, ties in the given order, each to the rank with the fewest elements,
/// the lowest such rank).
std::vector<std::vector<std::size_t>> partition_parameters(const std::vector<Tensor>& params, int world_size) {
  // BEGIN TASK week07.zero_optimizer (replace the stub below with your code)
  KINDLING_TODO("week07.zero_optimizer");
  // END TASK
}

/// This rank's optimizer steps its own parameters (when it owns any); then every parameter is
/// broadcast in place from its owner (owner_), every rank taking part in every broadcast in the same
/// order (by rank, then in the partition's order: the same on every rank), and step() returns once
/// they are all done. Every rank must call it.
void ZeroRedundancyOptimizer::step() {
  // BEGIN TASK week07.zero_optimizer (replace the stub below with your code)
  KINDLING_TODO("week07.zero_optimizer");
  // END TASK
}

}  // namespace kindling::distributed
