#pragma once
/// @file zero.hpp
/// A sharded optimizer, ZeRO stage 1 (PyTorch's ZeroRedundancyOptimizer; Rajbhandari et al., 2020):
/// with data parallelism every rank holds the same parameters and gradients, and, with Adam, two
/// more tensors of state per parameter. Nothing requires every rank to keep all of that state:
/// each rank owns a part of the parameters, keeps the optimizer state of its part only, updates
/// its part, and sends the new values to the others. The task week07.zero_optimizer.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <kindling/distributed.hpp>
#include <kindling/optim.hpp>

namespace kindling::distributed {

/// Which rank owns which parameter, as ZeroRedundancyOptimizer partitions them: the parameters are
/// taken from the largest (numel) to the smallest, equal sizes in their given order, and each goes
/// to the rank that owns the fewest elements so far (the lowest such rank). Returns, for each rank,
/// the indices of its parameters in the order they were given to it. `world_size` below 1 is a
/// kindling::Error.
std::vector<std::vector<std::size_t>> partition_parameters(const std::vector<Tensor>& params, int world_size);

/// ZeRO stage 1: a wrapper that gives each rank an optimizer over its own parameters only
/// (partition_parameters), built by `make_optimizer` (for example, an Adam with the options you
/// want). Every rank must pass the same parameters in the same order; each rank's gradients must
/// already be the mean over the ranks (DistributedDataParallel's backward leaves them so).
class ZeroRedundancyOptimizer {
 public:
  /// Builds an optimizer over the parameters this rank owns (none, when it owns none).
  using OptimizerFactory = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;
  /// Partitions `params` over the group's ranks and builds this rank's optimizer. Throws ValueError
  /// "ZeroRedundancyOptimizer got an empty parameter list" (PyTorch's words) for no parameters.
  ZeroRedundancyOptimizer(ProcessGroup& group, std::vector<Tensor> params, const OptimizerFactory& make_optimizer);

  /// One update of every parameter on every rank: this rank's optimizer steps its own parameters,
  /// then each parameter is broadcast in place from the rank that owns it, so that every rank ends
  /// with every updated parameter, as if it had stepped them all itself.
  void step();
  /// Clears every parameter's gradient (not only this rank's own).
  void zero_grad(bool set_to_none = false);

  /// The partition: for each rank, the indices of its parameters.
  const std::vector<std::vector<std::size_t>>& partition() const { return partition_; }
  /// This rank's optimizer; null when it owns no parameter.
  optim::Optimizer* local_optimizer() { return local_.get(); }
  /// The bytes of optimizer state this rank keeps (Adam: exp_avg and exp_avg_sq of its part).
  std::int64_t state_bytes() const;
  /// The parameters, in the order given.
  const std::vector<Tensor>& parameters() const { return params_; }

 private:
  ProcessGroup& group_;
  std::vector<Tensor> params_;
  std::vector<std::vector<std::size_t>> partition_;
  std::vector<int> owner_;  // parameter -> its rank
  std::unique_ptr<optim::Optimizer> local_;
};

}  // namespace kindling::distributed
