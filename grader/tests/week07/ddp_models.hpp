#pragma once
// What week 7's data-parallel tests share: a small model, a batch cut into the ranks' shares, and
// one process's training on the whole batch, which N ranks with DistributedDataParallel must match.

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <kindling/ddp.hpp>
#include <kindling/kindling.hpp>
#include <kindling/nn.hpp>
#include <kindling/training.hpp>

namespace kindling::testing {

/// A regression MLP whose weights depend on `seed` (each rank builds its own; DDP makes them rank 0's).
inline nn::Sequential ddp_mlp(std::uint64_t seed, std::int64_t in = 6, std::int64_t hidden = 16) {
  manual_seed(seed);
  return nn::Sequential(nn::Linear(in, hidden), nn::Tanh(), nn::Linear(hidden, 3));
}

/// Step `step`'s whole batch of `n` examples: inputs (n, in) and targets (n, 3), deterministic.
inline Tensor ddp_inputs(std::int64_t n, int step, std::int64_t in = 6) {
  return arange(n * in, TensorOptions().dtype(kFloat32)).reshape({n, in}).mul(0.37).add(step * 0.5).sin();
}
inline Tensor ddp_targets(std::int64_t n, int step) {
  return arange(n * 3, TensorOptions().dtype(kFloat32)).reshape({n, 3}).mul(0.11).add(step * 0.3).cos();
}

/// Rank `rank`'s share of a batch of `n` over `world` ranks (n divisible by world).
inline Tensor share(const Tensor& batch, int rank, int world) {
  const std::int64_t per = batch.size(0) / world;
  return batch.narrow(0, rank * per, per);
}

/// The parameters after `steps` SGD steps (momentum 0.9) of one process on the whole batches.
inline std::vector<Tensor> one_process_parameters(std::uint64_t seed, int steps, std::int64_t n, double lr = 0.1) {
  nn::Sequential m = ddp_mlp(seed);
  optim::SGD sgd(m.parameters(), {.lr = lr, .momentum = 0.9});
  for (int s = 0; s < steps; ++s) {
    sgd.zero_grad();
    nn::functional::mse_loss(m(ddp_inputs(n, s)), ddp_targets(n, s)).backward();
    sgd.step();
  }
  std::vector<Tensor> out;
  for (const Tensor& p : m.parameters()) out.push_back(p.detach().clone());
  return out;
}

/// The largest absolute difference between two lists of tensors of the same shapes.
inline double max_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    worst = std::max(worst, a[i].sub(b[i]).abs().max().item<double>());
  return a.size() == b.size() ? worst : 1e30;
}

/// A folder every rank of a multi-rank test shares (inside the launcher's rendezvous folder, which
/// goes with the run).
inline std::filesystem::path shared_folder() {
  const char* dir = std::getenv("KINDLING_RDZV_DIR");
  return std::filesystem::path(dir != nullptr ? dir : std::filesystem::temp_directory_path().string());
}

}  // namespace kindling::testing
