// ZeroRedundancyOptimizer's frame: the partition, this rank's optimizer, zero_grad and the state's
// size. partition_parameters and step() are the task week07.zero_optimizer.

#include <cstdint>
#include <vector>

#include <kindling/accumulate_grad.hpp>
#include <kindling/zero.hpp>

namespace kindling::distributed {

ZeroRedundancyOptimizer::ZeroRedundancyOptimizer(ProcessGroup& group, std::vector<Tensor> params,
                                                 const OptimizerFactory& make_optimizer)
    : group_(group), params_(std::move(params)) {
  KINDLING_CHECK_AS(ValueError, !params_.empty(), "ZeroRedundancyOptimizer got an empty parameter list");
  KINDLING_CHECK_AS(DistributedError, static_cast<bool>(make_optimizer),
                    "ZeroRedundancyOptimizer: expected a function that makes the local optimizer");
  partition_ = partition_parameters(params_, group.size());
  KINDLING_CHECK_AS(DistributedError, partition_.size() == static_cast<std::size_t>(group.size()),
                    "ZeroRedundancyOptimizer: the partition has ", partition_.size(), " ranks, the group ",
                    group.size());
  owner_.assign(params_.size(), -1);
  for (std::size_t r = 0; r < partition_.size(); ++r)
    for (const std::size_t i : partition_[r]) {
      KINDLING_CHECK_AS(DistributedError, i < params_.size() && owner_[i] < 0,
                        "ZeroRedundancyOptimizer: the partition gives parameter ", i, " twice or names none");
      owner_[i] = static_cast<int>(r);
    }
  for (std::size_t i = 0; i < params_.size(); ++i)
    KINDLING_CHECK_AS(DistributedError, owner_[i] >= 0, "ZeroRedundancyOptimizer: parameter ", i, " has no rank");
  std::vector<Tensor> mine;
  for (const std::size_t i : partition_[static_cast<std::size_t>(group.rank())]) mine.push_back(params_[i]);
  if (!mine.empty()) local_ = make_optimizer(std::move(mine));
}

void ZeroRedundancyOptimizer::zero_grad(bool set_to_none) { autograd::zero_grad(params_, set_to_none); }

std::int64_t ZeroRedundancyOptimizer::state_bytes() const {
  if (!local_) return 0;
  const optim::OptimizerState state = local_->state_dict();
  std::int64_t bytes = 0;
  for (const auto& [index, s] : state.state)
    for (const auto& [name, t] : s.buffers) bytes += t.numel() * static_cast<std::int64_t>(t.element_size());
  return bytes;
}

}  // namespace kindling::distributed
