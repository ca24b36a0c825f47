// Task week07.ddp_hooks: DistributedDataParallel's reducer. N ranks with a batch of B / N each reach
// the parameters one process reaches with the batch of B; the buckets' all-reduces start during
// backward, in bucket order; a parameter without a gradient is PyTorch's error at the next forward.

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <kindling/data.hpp>
#include <kindling/ddp.hpp>
#include <kindling/distributed_sampler.hpp>
#include <kindling/kindling.hpp>
#include <kindling/nn.hpp>
#include <kindling/training.hpp>

#include "ddp_models.hpp"
#include "oracle_json.hpp"
#include "ranks.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {
using distributed::DdpOptions;
using distributed::DistributedDataParallel;
using distributed::ProcessGroup;

// Small buckets, so that even this small model has several.
DdpOptions small_buckets() {
  DdpOptions o;
  o.first_bucket_bytes = 64;
  o.bucket_cap_mb = 256.0 / (1024 * 1024);
  return o;
}

// `steps` DDP steps on this rank's share of each batch of `n`, then the parameters against one
// process's on the whole batches.
void expect_one_process_parameters(ProcessGroup& g, int steps, std::int64_t n, const DdpOptions& options) {
  nn::Sequential m = ddp_mlp(100 + static_cast<std::uint64_t>(g.rank()));  // DDP makes them rank 0's
  DistributedDataParallel ddp(g, m, options);
  ASSERT_GE(ddp.buckets().size(), 1U);
  optim::SGD sgd(m.parameters(), {.lr = 0.1, .momentum = 0.9});
  for (int s = 0; s < steps; ++s) {
    sgd.zero_grad();
    const Tensor loss = nn::functional::mse_loss(ddp(share(ddp_inputs(n, s), g.rank(), g.size())),
                                                 share(ddp_targets(n, s), g.rank(), g.size()));
    loss.backward();
    sgd.step();
  }
  std::vector<Tensor> mine;
  for (const Tensor& p : m.parameters()) mine.push_back(p.detach());
  const auto want = one_process_parameters(100, steps, n);
  EXPECT_LT(max_difference(mine, want), 2e-5)
      << "rank " << g.rank() << " of " << g.size() << ": after " << steps
      << " steps on B/N examples each, the parameters are not one process's after the same steps on all B "
         "(is each gradient the mean over the ranks, not their sum, and is every bucket reduced?)";
}
}  // namespace

TEST(week07_ddp_hooks, TwoRanksWithHalfTheBatchEachMatchOneProcess) {
  run_ranks(2, [](ProcessGroup& g) { expect_one_process_parameters(g, 5, 8, small_buckets()); });
}

TEST(week07_ddp_hooks, FourRanksMatchOneProcessWithOneBucketOrMany) {
  run_ranks(4, [](ProcessGroup& g) { expect_one_process_parameters(g, 4, 16, small_buckets()); });
  run_ranks(4, [](ProcessGroup& g) { expect_one_process_parameters(g, 4, 16, DdpOptions{}); });
}

TEST(week07_ddp_hooks, EveryRankEndsBackwardWithTheMeanGradient) {
  run_ranks(3, [](ProcessGroup& g) {
    nn::Sequential m = ddp_mlp(5 + static_cast<std::uint64_t>(g.rank()));
    DistributedDataParallel ddp(g, m, small_buckets());
    nn::functional::mse_loss(ddp(share(ddp_inputs(9, 0), g.rank(), 3)), share(ddp_targets(9, 0), g.rank(), 3))
        .backward();
    nn::Sequential one = ddp_mlp(5);
    nn::functional::mse_loss(one(ddp_inputs(9, 0)), ddp_targets(9, 0)).backward();
    const auto got = m.named_parameters();
    const auto want = one.named_parameters();
    for (std::size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(allclose(got[i].second.grad(), want[i].second.grad(), 1e-4, 1e-6))
          << "rank " << g.rank() << ": " << got[i].first << ".grad is not the mean over the ranks";
  });
}

TEST(week07_ddp_hooks, ABucketStartsItsAllReduceWhileBackwardGoesOn) {
  run_ranks(2, [](ProcessGroup& g) {
    manual_seed(1);
    nn::Sequential m(nn::Linear(6, 16, false), nn::Tanh(), nn::Linear(16, 8), nn::Tanh(), nn::Linear(8, 3));
    // Buckets [b3, W3], [b2, W2], [W1]. The first layer's weight is the last gradient backward
    // produces: a hook registered before DDP's runs just before DDP sees it, when every other
    // bucket is complete.
    std::vector<bool> launched_then;
    std::int64_t count_then = -1;
    const DistributedDataParallel* seen = nullptr;
    auto probe = m.parameters()[0].register_post_accumulate_grad_hook([&](const Tensor&) {
      if (seen == nullptr) return;
      launched_then.clear();
      for (const auto& b : seen->buckets()) launched_then.push_back(b.launched);
      count_then = seen->all_reduces_launched();
    });
    DistributedDataParallel ddp(g, m, small_buckets());
    seen = &ddp;
    ASSERT_EQ(ddp.buckets().size(), 3U);
    for (int step = 0; step < 2; ++step) {
      ddp(share(ddp_inputs(8, step), g.rank(), 2)).pow(2).sum().backward();
      ASSERT_EQ(launched_then.size(), ddp.buckets().size());
      for (std::size_t k = 0; k + 1 < launched_then.size(); ++k)
        EXPECT_TRUE(launched_then[k]) << "step " << step << ": bucket " << k
                                      << " had all its gradients before the last one arrived, but its all-reduce "
                                         "had not been launched: communication must overlap backward";
      EXPECT_FALSE(launched_then.back()) << "the last bucket was launched before its last gradient arrived";
      EXPECT_EQ(count_then, static_cast<std::int64_t>(step * ddp.buckets().size() + ddp.buckets().size() - 1));
      EXPECT_EQ(ddp.all_reduces_launched(), static_cast<std::int64_t>((step + 1) * ddp.buckets().size()))
          << "each backward launches each bucket's all-reduce once";
    }
    probe.remove();
  });
}

TEST(week07_ddp_hooks, ALateRankDoesNotHoldUpTheOthersBackward) {
  run_ranks(2, [](ProcessGroup& g) {
    manual_seed(1);
    nn::Sequential m(nn::Linear(6, 16, false), nn::Tanh(), nn::Linear(16, 8), nn::Tanh(), nn::Linear(8, 3));
    // Rank 1 is 300 ms late with its first gradient (the last layer's bias), so no all-reduce can
    // finish before then. A reducer that launches and goes on lets rank 0's backward end at once and
    // waits in finalize; one that waits for each all-reduce as it launches it holds rank 0's
    // backward for the whole 300 ms, and communication overlaps nothing.
    auto probe = m.parameters().back().register_post_accumulate_grad_hook([&](const Tensor&) {
      if (g.rank() == 1) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    });
    DistributedDataParallel ddp(g, m, small_buckets());
    ddp(share(ddp_inputs(8, 0), g.rank(), 2)).pow(2).sum().backward();
    if (g.rank() == 0) {
      const auto& t = ddp.last_timeline();
      EXPECT_LT(t.backward_done_ms, 150) << "rank 0's backward waited for rank 1: the all-reduces must be "
                                            "launched without waiting, and waited for in finalize";
      EXPECT_GE(t.reduced_ms, 250) << "finalize returned before rank 1 had taken part";
    }
    probe.remove();
  });
}

namespace {
// Registers `late` before `early` but uses `early` first: the gradients of `early`'s parameters
// come last in backward, although DDP's reverse registration order expects them first.
struct Swapped : nn::Module {
  Swapped() : Module("Swapped") {
    late = register_module("late", std::make_shared<nn::Linear>(4, 3));
    early = register_module("early", std::make_shared<nn::Linear>(5, 4));
  }
  Tensor forward(const Tensor& x) override { return (*late)((*early)(x).tanh()); }
  std::shared_ptr<nn::Linear> late, early;
};
}  // namespace

TEST(week07_ddp_hooks, BucketsAreLaunchedInBucketOrderEvenWhenGradientsComeOtherwise) {
  run_ranks(2, [](ProcessGroup& g) {
    manual_seed(2);
    Swapped m;
    // Buckets, last parameter first: [early.bias, early.weight] first, then [late.bias, late.weight];
    // backward completes `late` first. Its bucket must wait for bucket 0.
    DdpOptions o;
    o.first_bucket_bytes = 96;
    o.bucket_cap_mb = 48.0 / (1024 * 1024);
    std::vector<bool> when_late_done;
    const DistributedDataParallel* seen = nullptr;
    // Look from a hook on early.bias registered before DDP's: by then `late` is complete.
    auto probe = m.early->bias.register_post_accumulate_grad_hook([&](const Tensor&) {
      if (seen == nullptr) return;
      when_late_done.clear();
      for (const auto& b : seen->buckets()) when_late_done.push_back(b.launched);
    });
    DistributedDataParallel ddp(g, m, o);
    seen = &ddp;
    std::vector<std::vector<std::size_t>> got;
    for (const auto& b : ddp.buckets()) got.push_back(b.params);
    ASSERT_EQ(got, (std::vector<std::vector<std::size_t>>{{3, 2}, {1, 0}}));
    const Tensor x = ddp_inputs(4, 0, 5);
    ddp(x).pow(2).sum().backward();
    ASSERT_EQ(when_late_done.size(), 2U);
    EXPECT_FALSE(when_late_done[1]) << "bucket 1 (late's parameters) was complete first but must not be launched "
                                       "before bucket 0: every rank must launch the buckets in the same order";
    EXPECT_EQ(ddp.all_reduces_launched(), 2);
    probe.remove();
    // And the gradients are still right.
    manual_seed(2);
    Swapped one;
    one(ddp_inputs(4, 0, 5)).pow(2).sum().backward();
    EXPECT_TRUE(allclose(m.late->weight.grad(), one.late->weight.grad(), 1e-4, 1e-6));
    EXPECT_TRUE(allclose(m.early->weight.grad(), one.early->weight.grad(), 1e-4, 1e-6));
  });
}

namespace {
struct TwoHeads : nn::Module {
  TwoHeads() : Module("TwoHeads") {
    used = register_module("used", std::make_shared<nn::Linear>(3, 2));
    unused = register_module("unused", std::make_shared<nn::Linear>(3, 2));
  }
  Tensor forward(const Tensor& x) override { return (*used)(x); }
  std::shared_ptr<nn::Linear> used, unused;
};
}  // namespace

TEST(week07_ddp_hooks, AParameterWithoutAGradientIsPyTorchsErrorAtTheNextForward) {
  run_ranks(2, [](ProcessGroup& g) {
    TwoHeads m;
    DistributedDataParallel ddp(g, m);
    ddp(ones({4, 3})).sum().backward();
    std::string want = oracle_json("unused_parameter")["message"].get<std::string>();
    const std::string rank0 = "for rank 0:";
    want.replace(want.find(rank0), rank0.size(), "for rank " + std::to_string(g.rank()) + ":");
    try {
      (void)ddp(ones({4, 3}));
      ADD_FAILURE() << "the second forward started although parameters 2 and 3 got no gradient";
    } catch (const distributed::DistributedError& e) {
      EXPECT_EQ(std::string(e.what()), want);
    }
  });
}

TEST(week07_ddp_hooks, AParameterMarkedTwiceInOneIterationIsAnError) {
  run_ranks(2, [](ProcessGroup& g) {
    TwoHeads m;
    DistributedDataParallel ddp(g, m);
    const Tensor y = ddp(ones({4, 3}));
    y.sum().backward({}, true);  // unused's parameters keep the reduction open
    EXPECT_THROW(y.sum().backward(), distributed::DistributedError)
        << "a second backward in the same iteration gave used.weight's gradient to the reducer twice";
  });
}

TEST(week07_ddp_hooks, BackwardWithoutDdpsForwardCommunicatesNothing) {
  run_ranks(2, [](ProcessGroup& g) {
    nn::Sequential m = ddp_mlp(4);
    DistributedDataParallel ddp(g, m, small_buckets());
    m(ddp_inputs(2, g.rank())).sum().backward();  // the module itself, not ddp
    EXPECT_EQ(ddp.all_reduces_launched(), 0);
    ddp(ddp_inputs(2, g.rank())).sum().backward();
    EXPECT_EQ(ddp.all_reduces_launched(), static_cast<std::int64_t>(ddp.buckets().size()));
  });
}

namespace {
// Three epochs of the week-5 MLP on the shipped Fashion-MNIST subset (1,000 training, 500 test
// examples) in order, with global batches of 32 and SGD with momentum; with `group`, each rank
// trains through DDP on its DistributedSampler share (16 of each 32); returns the test accuracy.
double fashion_mnist_accuracy(ProcessGroup* group) {
  const std::string root = std::string(KINDLING_TEST_DATA) + "/../../../../datasets/fashion-mnist-subset";
  auto train_set = std::make_shared<data::FashionMNIST>(root, true);
  auto test_set = std::make_shared<data::FashionMNIST>(root, false);
  const int world = group != nullptr ? group->size() : 1;
  data::DataLoaderOptions to;
  to.batch_size = 32 / world;
  if (group != nullptr)
    to.sampler = std::make_shared<distributed::DistributedSampler>(train_set->size(), world, group->rank(), false);
  data::DataLoaderOptions eo;
  eo.batch_size = 250;
  data::DataLoader train_loader(train_set, to), test_loader(test_set, eo);
  manual_seed(5);
  nn::Sequential model(nn::Linear(784, 128), nn::ReLU(), nn::Linear(128, 10));
  std::unique_ptr<DistributedDataParallel> ddp;
  if (group != nullptr) ddp = std::make_unique<DistributedDataParallel>(*group, model);
  optim::SGD opt(model.parameters(), {.lr = 0.05, .momentum = 0.9});
  for (int epoch = 0; epoch < 3; ++epoch)
    for (const data::Batch& batch : train_loader) {
      const Tensor x = (batch.at(0).to(kFloat32) / 255.0).reshape({-1, 784});
      opt.zero_grad();
      nn::functional::cross_entropy(ddp ? (*ddp)(x) : model(x), batch.at(1)).backward();
      opt.step();
    }
  std::int64_t right = 0, seen = 0;
  NoGradGuard no_grad;
  for (const data::Batch& batch : test_loader) {
    const Tensor predicted = model((batch.at(0).to(kFloat32) / 255.0).reshape({-1, 784})).argmax(1);
    right += predicted.eq(batch.at(1)).sum().item<std::int64_t>();
    seen += batch.at(1).numel();
  }
  return static_cast<double>(right) / static_cast<double>(seen);
}
}  // namespace

TEST(week07_ddp_hooks, TheFashionMnistMlpTrainsOnTwoRanksAsOnOne) {
  run_ranks(
      2,
      [](ProcessGroup& g) {
        const double two = fashion_mnist_accuracy(&g);
        const double one = fashion_mnist_accuracy(nullptr);
        EXPECT_GE(one, 0.70) << "the one-process reference after 96 steps";
        EXPECT_NEAR(two, one, 0.005) << "rank " << g.rank() << ": 2 ranks of 16 examples a step reached " << two
                                     << " test accuracy, one process of 32 " << one;
      },
      std::chrono::seconds(30));
}

}  // namespace kindling::testing
