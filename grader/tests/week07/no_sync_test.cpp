// Task week07.no_sync: gradient accumulation across ranks. Under no_sync() a backward talks to no one;
// the next synchronised backward all-reduces everything accumulated; accumulate_and_step on N ranks
// with k micro-batches each equals one process's step on all N k micro-batches together.

#include <string>
#include <utility>
#include <vector>

#include <kindling/ddp.hpp>
#include <kindling/kindling.hpp>
#include <kindling/nn.hpp>
#include <kindling/training.hpp>

#include "ddp_models.hpp"
#include "ranks.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {
using distributed::DdpOptions;
using distributed::DistributedDataParallel;
using distributed::ProcessGroup;

DdpOptions two_buckets() {
  DdpOptions o;
  o.first_bucket_bytes = 64;
  o.bucket_cap_mb = 1.0;
  return o;
}

Tensor mse(const Tensor& y, const Tensor& t) { return nn::functional::mse_loss(y, t); }

// `steps` steps of accumulate_and_step with `k` micro-batches of `per` examples on each rank, against
// one process stepping on every rank's micro-batches together.
void expect_accumulation_matches_one_process(ProcessGroup& g, int steps, int k, std::int64_t per) {
  const int world = g.size();
  const std::int64_t n = per * k * world;  // the whole batch of a step
  nn::Sequential m = ddp_mlp(40 + static_cast<std::uint64_t>(g.rank()));
  DistributedDataParallel ddp(g, m, two_buckets());
  optim::SGD sgd(m.parameters(), {.lr = 0.1, .momentum = 0.9});
  for (int s = 0; s < steps; ++s) {
    const Tensor mine = share(ddp_inputs(n, s), g.rank(), world), mine_t = share(ddp_targets(n, s), g.rank(), world);
    std::vector<std::pair<Tensor, Tensor>> micro;
    for (int j = 0; j < k; ++j) micro.emplace_back(mine.narrow(0, j * per, per), mine_t.narrow(0, j * per, per));
    double want_loss = 0;
    {
      NoGradGuard no_grad;
      for (const auto& [x, t] : micro) want_loss += nn::functional::mse_loss(m(x), t).item<double>() / k;
    }
    const std::int64_t before = ddp.all_reduces_launched();
    const double loss = distributed::accumulate_and_step(ddp, sgd, micro, mse);
    EXPECT_EQ(ddp.all_reduces_launched() - before, static_cast<std::int64_t>(ddp.buckets().size()))
        << "step " << s
        << ": the ranks must talk once per step (each bucket once), in the last micro-batch's "
           "backward, not in every micro-batch's";
    EXPECT_NEAR(loss, want_loss, 1e-5) << "step " << s << ": the mean of this rank's " << k << " micro-batch losses";
  }
  std::vector<Tensor> got;
  for (const Tensor& p : m.parameters()) got.push_back(p.detach());
  EXPECT_LT(max_difference(got, one_process_parameters(40, steps, n)), 2e-5)
      << "rank " << g.rank() << " of " << world << ", " << k << " micro-batches of " << per
      << ": the parameters are not one process's after the same steps on the whole batches (is each micro-batch's "
         "loss divided by their number, and are the accumulated gradients all-reduced once, in the last backward?)";
}
}  // namespace

TEST(week07_no_sync, UnderNoSyncBackwardTalksToNoOneAndGradientsStayLocal) {
  run_ranks(2, [](ProcessGroup& g) {
    nn::Sequential m = ddp_mlp(1);
    DistributedDataParallel ddp(g, m, two_buckets());
    {
      auto guard = ddp.no_sync();
      ddp(ddp_inputs(2, g.rank())).sum().backward();  // each rank its own data
    }
    EXPECT_EQ(ddp.all_reduces_launched(), 0) << "a backward under no_sync() launched all-reduces";
    nn::Sequential alone = ddp_mlp(1);
    alone(ddp_inputs(2, g.rank())).sum().backward();
    const auto got = m.parameters(), want = alone.parameters();
    for (std::size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(allclose(got[i].grad(), want[i].grad(), 1e-5, 1e-7))
          << "under no_sync() each rank keeps its own gradient (parameter " << i << ")";
  });
}

TEST(week07_no_sync, TheFirstSynchronisedBackwardReducesWhatAccumulated) {
  run_ranks(2, [](ProcessGroup& g) {
    nn::Sequential m = ddp_mlp(1);
    DistributedDataParallel ddp(g, m, two_buckets());
    {
      auto guard = ddp.no_sync();
      ddp(ddp_inputs(2, g.rank())).sum().backward();
    }
    ddp(ddp_inputs(2, 2 + g.rank())).sum().backward();
    EXPECT_EQ(ddp.all_reduces_launched(), static_cast<std::int64_t>(ddp.buckets().size()));
    // The mean over the ranks of (rank r's first + second backward).
    nn::Sequential one = ddp_mlp(1);
    for (int r = 0; r < 2; ++r) {
      one(ddp_inputs(2, r)).sum().div(2).backward();
      one(ddp_inputs(2, 2 + r)).sum().div(2).backward();
    }
    const auto got = m.parameters(), want = one.parameters();
    for (std::size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(allclose(got[i].grad(), want[i].grad(), 1e-4, 1e-6)) << "parameter " << i;
  });
}

TEST(week07_no_sync, NestedGuardsRestoreWhatTheyFound) {
  run_ranks(2, [](ProcessGroup& g) {
    nn::Sequential m = ddp_mlp(1);
    DistributedDataParallel ddp(g, m, two_buckets());
    {
      auto outer = ddp.no_sync();
      { auto inner = ddp.no_sync(); }
      ddp(ddp_inputs(2, 0)).sum().backward();
      EXPECT_EQ(ddp.all_reduces_launched(), 0) << "the inner guard turned synchronisation back on inside the outer";
    }
    ddp(ddp_inputs(2, 0)).sum().backward();
    EXPECT_EQ(ddp.all_reduces_launched(), static_cast<std::int64_t>(ddp.buckets().size()))
        << "after the last guard, backward synchronises again";
  });
}

TEST(week07_no_sync, AccumulationOnTwoAndFourRanksMatchesOneProcess) {
  run_ranks(2, [](ProcessGroup& g) { expect_accumulation_matches_one_process(g, 3, 3, 2); });
  run_ranks(4, [](ProcessGroup& g) { expect_accumulation_matches_one_process(g, 2, 2, 2); });
}

TEST(week07_no_sync, OneMicroBatchIsAPlainStepAndNoneIsAnError) {
  run_ranks(2, [](ProcessGroup& g) {
    expect_accumulation_matches_one_process(g, 2, 1, 4);
    nn::Sequential m = ddp_mlp(1);
    DistributedDataParallel ddp(g, m);
    optim::SGD sgd(m.parameters(), {.lr = 0.1});
    EXPECT_THROW(distributed::accumulate_and_step(ddp, sgd, {}, mse), Error);
  });
}

}  // namespace kindling::testing
