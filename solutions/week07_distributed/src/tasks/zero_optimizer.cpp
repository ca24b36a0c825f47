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
  // BEGIN SOLUTION week07.zero_optimizer
  KINDLING_CHECK(world_size >= 1, "partition_parameters: world_size must be at least 1, not ", world_size);
  std::vector<std::size_t> order(params.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return params[a].numel() > params[b].numel(); });
  std::vector<std::vector<std::size_t>> ranks(static_cast<std::size_t>(world_size));
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(world_size), 0);
  for (const std::size_t i : order) {
    const auto r = static_cast<std::size_t>(std::min_element(sizes.begin(), sizes.end()) - sizes.begin());
    ranks[r].push_back(i);
    sizes[r] += params[i].numel();
  }
  return ranks;
  // END SOLUTION
}

/// This rank's optimizer steps its own parameters (when it owns any); then every parameter is
/// broadcast in place from its owner (owner_), every rank taking part in every broadcast in the same
/// order (by rank, then in the partition's order: the same on every rank), and step() returns once
/// they are all done. Every rank must call it.
void ZeroRedundancyOptimizer::step() {
  // BEGIN SOLUTION week07.zero_optimizer
  if (local_) local_->step();
  NoGradGuard no_grad;
  std::vector<Work> pending;
  for (std::size_t r = 0; r < partition_.size(); ++r)
    for (const std::size_t i : partition_[r])
      pending.push_back(group_.broadcast_async(params_[i], static_cast<int>(r)));
  for (Work& w : pending) w.wait();
  // END SOLUTION
}

}  // namespace kindling::distributed
