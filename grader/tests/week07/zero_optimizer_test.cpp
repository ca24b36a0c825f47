// Task week07.zero_optimizer: ZeRO stage 1. The partition is ZeroRedundancyOptimizer's (PyTorch 1.13,
// tools/oracle/week07.py); N ranks each stepping their own part and broadcasting it end exactly where
// one Adam over every parameter ends; each rank keeps only its part's state.

#include <memory>
#include <string>
#include <vector>

#include <kindling/kindling.hpp>
#include <kindling/nn.hpp>
#include <kindling/training.hpp>
#include <kindling/zero.hpp>

#include "ddp_models.hpp"
#include "oracle_json.hpp"
#include "ranks.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {
using distributed::ProcessGroup;
using distributed::ZeroRedundancyOptimizer;

std::unique_ptr<optim::Optimizer> adam(std::vector<Tensor> params) {
  return std::make_unique<optim::Adam>(std::move(params), optim::Adam::Config{.lr = 0.05, .weight_decay = 0.01});
}

// The same gradient on every rank for step `s` (as DDP would leave it).
void set_gradients(const std::vector<Tensor>& params, int s) {
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::int64_t n = params[i].numel();
    params[i].mutable_grad() = arange(n, TensorOptions().dtype(kFloat32))
                                   .mul(0.3)
                                   .add(static_cast<double>(i) + s)
                                   .sin()
                                   .reshape(params[i].sizes());
  }
}

// A model with parameters of many sizes: 4x8, 8, 8x8, 8, 2x8, 2 (and the rank's own initial values).
nn::Sequential zero_model(std::uint64_t seed) {
  manual_seed(seed);
  return nn::Sequential(nn::Linear(4, 8), nn::Linear(8, 8), nn::Linear(8, 2));
}

void expect_one_adam(ProcessGroup& g, int steps) {
  nn::Sequential m = zero_model(9);  // the same on every rank, as DDP would make it
  ZeroRedundancyOptimizer zero(g, m.parameters(), adam);
  nn::Sequential one = zero_model(9);
  auto reference = adam(one.parameters());
  for (int s = 0; s < steps; ++s) {
    set_gradients(m.parameters(), s);
    set_gradients(one.parameters(), s);
    zero.step();
    reference->step();
  }
  const auto got = m.named_parameters(), want = one.named_parameters();
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_TRUE(equal(got[i].second, want[i].second))
        << "rank " << g.rank() << " of " << g.size() << ": " << got[i].first << " after " << steps
        << " steps is not one Adam's (every rank must end with every parameter, each updated once by its owner)";
  // Each rank keeps Adam's two moments of its own part only.
  std::int64_t own = 0;
  for (const std::size_t i : zero.partition()[static_cast<std::size_t>(g.rank())]) own += m.parameters()[i].numel();
  EXPECT_EQ(zero.state_bytes(), 2 * 4 * own);
}
}  // namespace

TEST(EngineZeroRedundancyOptimizer, NoParametersIsPyTorchsValueError) {
  run_ranks(1, [](ProcessGroup& g) {
    expect_oracle_error([&] { ZeroRedundancyOptimizer zero(g, {}, adam); }, "zero_no_parameters");
  });
}

TEST(week07_zero_optimizer, ThePartitionIsZeroRedundancyOptimizers) {
  for (const auto& c : oracle_json("zero_partition")) {
    std::vector<Tensor> params;
    for (const auto n : c["numels"].get<std::vector<std::int64_t>>()) params.push_back(empty({n}));
    const auto got = distributed::partition_parameters(params, c["world_size"].get<int>());
    EXPECT_EQ(got, c["ranks"].get<std::vector<std::vector<std::size_t>>>())
        << "numels " << c["numels"].dump() << " over " << c["world_size"] << " ranks: PyTorch's is "
        << c["ranks"].dump();
  }
  EXPECT_THROW(distributed::partition_parameters({empty({3})}, 0), Error);
}

TEST(week07_zero_optimizer, TwoAndThreeRanksEndWhereOneAdamEnds) {
  run_ranks(2, [](ProcessGroup& g) { expect_one_adam(g, 4); });
  run_ranks(3, [](ProcessGroup& g) { expect_one_adam(g, 3); });
}

TEST(week07_zero_optimizer, ARankThatOwnsNothingStillTakesPart) {
  run_ranks(4, [](ProcessGroup& g) {
    manual_seed(1);
    nn::Linear m(3, 2);  // two parameters for four ranks
    ZeroRedundancyOptimizer zero(g, m.parameters(), adam);
    EXPECT_EQ(zero.local_optimizer() == nullptr, g.rank() >= 2);
    manual_seed(1);
    nn::Linear one(3, 2);
    auto reference = adam(one.parameters());
    for (int s = 0; s < 2; ++s) {
      set_gradients(m.parameters(), s);
      set_gradients(one.parameters(), s);
      zero.step();
      reference->step();
    }
    EXPECT_TRUE(equal(m.weight, one.weight)) << "rank " << g.rank();
    EXPECT_TRUE(equal(m.bias, one.bias)) << "rank " << g.rank();
    EXPECT_EQ(zero.state_bytes(), g.rank() == 0 ? 2 * 4 * 6 : g.rank() == 1 ? 2 * 4 * 2 : 0);
  });
}

TEST(week07_zero_optimizer, WithDdpTrainingMatchesOneProcess) {
  run_ranks(2, [](ProcessGroup& g) {
    nn::Sequential m = ddp_mlp(20 + static_cast<std::uint64_t>(g.rank()));
    distributed::DistributedDataParallel ddp(g, m);
    ZeroRedundancyOptimizer zero(g, m.parameters(), adam);
    nn::Sequential one = ddp_mlp(20);
    auto reference = adam(one.parameters());
    for (int s = 0; s < 3; ++s) {
      zero.zero_grad();
      nn::functional::mse_loss(ddp(share(ddp_inputs(8, s), g.rank(), 2)), share(ddp_targets(8, s), g.rank(), 2))
          .backward();
      zero.step();
      reference->zero_grad();
      nn::functional::mse_loss(one(ddp_inputs(8, s)), ddp_targets(8, s)).backward();
      reference->step();
    }
    std::vector<Tensor> got, want;
    for (const Tensor& p : m.parameters()) got.push_back(p.detach());
    for (const Tensor& p : one.parameters()) want.push_back(p.detach());
    EXPECT_LT(max_difference(got, want), 2e-5) << "rank " << g.rank();
  });
}

}  // namespace kindling::testing
