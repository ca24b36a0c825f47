// The week's engine, given: the ProcessGroup over Gloo, its checks, and the launcher. Faults must
// end every rank with an error that names what happened, within the group's timeout: no hang,
// no process left behind.

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <kindling/kindling.hpp>

#include "ranks.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {
using distributed::DistributedError;
using distributed::ProcessGroup;
using distributed::ReduceOp;
using namespace std::chrono_literals;

// Expects fn to throw a DistributedError whose message holds `part`.
template <class F>
void expect_dist_error(F&& fn, const std::string& part) {
  try {
    fn();
    ADD_FAILURE() << "no DistributedError (expected one mentioning '" << part << "')";
  } catch (const DistributedError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}
}  // namespace

TEST(EngineProcessGroup, CollectivesAgreeWithTheirDefinitions) {
  run_ranks(3, [](ProcessGroup& g) {
    const int r = g.rank();
    Tensor x = full({4}, static_cast<double>(r + 1));
    g.all_reduce(x);
    EXPECT_TRUE(equal(x, full({4}, 6.0))) << "SUM";
    x = full({4}, static_cast<double>(r + 1));
    g.all_reduce(x, ReduceOp::Max);
    EXPECT_TRUE(equal(x, full({4}, 3.0))) << "MAX";
    x = full({2}, static_cast<double>(r + 2), TensorOptions(kInt64));
    g.all_reduce(x, ReduceOp::Product);
    EXPECT_TRUE(equal(x, full({2}, 24.0, TensorOptions(kInt64)))) << "PRODUCT of int64";
    Tensor y = full({3}, static_cast<double>(r * 10), TensorOptions(kFloat64));
    g.broadcast(y, 2);
    EXPECT_TRUE(equal(y, full({3}, 20.0, TensorOptions(kFloat64)))) << "broadcast from rank 2";
    std::vector<Tensor> parts = {empty({2}), empty({2}), empty({2})};
    g.all_gather(parts, full({2}, static_cast<double>(r)));
    for (int k = 0; k < 3; ++k) EXPECT_TRUE(equal(parts[static_cast<std::size_t>(k)], full({2}, k)));
    Tensor mine = empty({2});
    std::vector<Tensor> inputs;
    for (int k = 0; k < 3; ++k) inputs.push_back(full({2}, static_cast<double>(10 * k + r)));
    g.reduce_scatter(mine, inputs);
    EXPECT_TRUE(equal(mine, full({2}, 30.0 * r + 3.0))) << "reduce_scatter: rank r gets the sum of inputs[r]";
    g.barrier();
  });
}

TEST(EngineProcessGroup, SendAndRecvMatchByTagAndAsyncWorkCompletes) {
  run_ranks(2, [](ProcessGroup& g) {
    if (g.rank() == 0) {
      distributed::Work a = g.send(full({3}, 1.0), 1, 7);
      distributed::Work b = g.send(full({3}, 2.0), 1, 8);
      a.wait();
      b.wait();
      EXPECT_EQ(g.bytes_sent(), 24);
    } else {
      const Tensor eight = empty({3}), seven = empty({3});
      distributed::Work b = g.recv(eight, 0, 8);  // posted in the other order: tags decide
      distributed::Work a = g.recv(seven, 0, 7);
      b.wait();
      a.wait();
      EXPECT_TRUE(equal(seven, full({3}, 1.0)));
      EXPECT_TRUE(equal(eight, full({3}, 2.0)));
      EXPECT_EQ(g.bytes_sent(), 0);
    }
    distributed::Work w = g.all_reduce_async(full({1}, 1.0));
    w.wait();
    EXPECT_TRUE(w.is_completed());
  });
}

// A message whose size the receiver does not expect is an error naming both sizes (Gloo alone
// would abort the receiving process on a larger one); a send dropped without a wait still arrives;
// a send or recv's wait shorter than the group's timeout is refused.
TEST(EngineProcessGroup, MessagesOfTheWrongSizeAreErrorsAndDroppedSendsStillArrive) {
  run_ranks(2, [](ProcessGroup& g) {
    if (g.rank() == 0) {
      (void)g.send(full({5}, 1.0), 1, 3);  // dropped: the group keeps it until it is done
      distributed::Work big = g.send(full({6}, 2.0), 1, 4);
      expect_dist_error([&] { big.wait(std::chrono::milliseconds(1)); }, "with the group's timeout");
      g.barrier();
    } else {
      const Tensor five = empty({5});
      g.recv(five, 0, 3).wait();
      EXPECT_TRUE(equal(five, full({5}, 1.0)));
      const Tensor four = empty({4});
      expect_dist_error([&] { g.recv(four, 0, 4).wait(); }, "rank 0 sent 24 bytes, and this recv's tensor has 16");
      g.barrier();
    }
  });
}

TEST(EngineProcessGroup, AnEmptyMessageArrivesAndKeepsItsPlaceInTheTagsOrder) {
  run_ranks(2, [](ProcessGroup& g) {
    for (int round = 0; round < 3; ++round) {
      if (g.rank() == 0) {
        distributed::Work a = g.send(empty({0}), 1, 0);
        distributed::Work b = g.send(full({2}, static_cast<double>(round)), 1, 1);
        a.wait();
        b.wait();
      } else {
        const Tensor none = empty({0}), two = empty({2});
        distributed::Work a = g.recv(none, 0, 0);
        distributed::Work b = g.recv(two, 0, 1);
        a.wait();
        b.wait();
        EXPECT_TRUE(equal(two, full({2}, static_cast<double>(round))));
      }
    }
  });
}

// PyTorch 1.13's Gloo reduces every dtype Kindling has but bool (below): int32 and uint8 as well
// (uint8 wraps around, as its sum does on one rank).
TEST(EngineProcessGroup, IntegerDtypesAreReducedAndBroadcast) {
  run_ranks(2, [](ProcessGroup& g) {
    const Tensor i = arange(4, TensorOptions(kInt32)) - 2 + 10 * g.rank();  // rank 0: -2 -1 0 1
    g.all_reduce(i);
    EXPECT_TRUE(equal(i, tensor(std::vector<std::int32_t>{6, 8, 10, 12})));
    const Tensor b = full({2}, 200.0 + g.rank(), TensorOptions(kUInt8));
    g.all_reduce(b, ReduceOp::Max);
    EXPECT_TRUE(equal(b, full({2}, 201.0, TensorOptions(kUInt8))));
    g.all_reduce(b);
    EXPECT_TRUE(equal(b, full({2}, 146.0, TensorOptions(kUInt8)))) << "402 mod 256";
    const Tensor c = full({3}, static_cast<double>(g.rank() + 1), TensorOptions(kInt32));
    g.broadcast(c, 1);
    EXPECT_TRUE(equal(c, full({3}, 2.0, TensorOptions(kInt32))));
  });
}

TEST(EngineProcessGroup, BadArgumentsAreClearErrorsAsPyTorchGives) {
  run_ranks(2, [](ProcessGroup& g) {
    expect_dist_error([&] { g.all_reduce(zeros({4}), ReduceOp::Avg); }, "Cannot use ReduceOp.AVG with Gloo");
    expect_dist_error([&] { g.all_reduce(zeros({2}, TensorOptions(kBool))); }, "Invalid scalar type");
    expect_dist_error([&] { g.broadcast(zeros({2}), 3); }, "ProcessGroupGloo::broadcast: invalid root rank: 3");
    expect_dist_error([&] { g.all_reduce(zeros({4, 4}).t()); }, "contiguous");
    expect_dist_error([&] { (void)g.send(zeros({2}), 5); }, "invalid destination rank 5");
    expect_dist_error([&] { (void)g.send(zeros({2}), g.rank()); }, "cannot send to itself");
    // all_gather's checks, as torch.distributed.all_gather over Gloo makes them with 2 ranks (PyTorch 1.13):
    // one dtype over the outputs and then the input, first; the list's length; each output's shape; bool.
    const std::string gather = "ProcessGroupGloo::allgather: invalid ";
    expect_dist_error([&] { g.all_gather({zeros({2})}, zeros({2})); },
                      gather + "output tensor list at index 0 (expected length 2, got 1)");
    expect_dist_error([&] { g.all_gather({zeros({3})}, zeros({2})); },
                      gather + "output tensor list at index 0 (expected length 2, got 1)");
    expect_dist_error(
        [&] {
          g.all_gather({zeros({2}), zeros({3})}, zeros({2}));
        },
        gather + "tensor size at index 1 (expected (2), got (3))");
    expect_dist_error(
        [&] {
          g.all_gather({zeros({2, 3, 4}), zeros({2, 3, 5})}, zeros({2, 3, 4}));
        },
        gather + "tensor size at index 1 (expected (2, 3, 4), got (2, 3, 5))");
    expect_dist_error(
        [&] {
          g.all_gather({zeros({}), zeros({1})}, zeros({}));
        },
        gather + "tensor size at index 1 (expected (), got (1))");
    expect_dist_error(
        [&] {
          g.all_gather({zeros({2}), zeros({2}, TensorOptions(kInt32))}, zeros({2}));
        },
        "Invalid usage of tensors with different dtypesFound torch.float32 and  torch.int32");
    expect_dist_error([&] { g.all_gather({zeros({2}, TensorOptions(kInt32))}, zeros({2})); },
                      "Invalid usage of tensors with different dtypesFound torch.int32 and  torch.float32");
    const Tensor flag = zeros({2}, TensorOptions(kBool));
    expect_dist_error([&] { g.all_gather({flag, flag}, flag); }, "Invalid scalar type");
    expect_dist_error([&] { g.all_gather({flag}, flag); },
                      gather + "output tensor list at index 0 (expected length 2, got 1)");
    g.barrier();  // the group still works after refusals
  });
  distributed::Options bad;
  bad.world_size = 2;
  bad.rank = 2;
  bad.store_dir = "/tmp";
  expect_dist_error([&] { ProcessGroup group(bad); }, "RANK 2 is outside [0, 2)");
  bad.rank = 0;
  bad.world_size = 0;
  expect_dist_error([&] { ProcessGroup group(bad); }, "WORLD_SIZE must be at least 1");
}

TEST(EngineProcessGroup, RanksThatCallDifferentCollectivesGetAnErrorNotAHang) {
  run_ranks(2, [](ProcessGroup& g) {
    if (g.rank() == 0)
      expect_dist_error([&] { g.all_reduce(zeros({4})); }, "rank 1 called broadcast #2");
    else
      expect_dist_error([&] { g.broadcast(zeros({4}), 0); }, "rank 0 called all_reduce #2 of 4 elements");
  });
  run_ranks(
      2, [](ProcessGroup& g) { expect_dist_error([&] { g.all_reduce(zeros({g.rank() == 0 ? 4 : 5})); }, "elements"); });
}

// A rank that fails: the launcher names it, the others get a DistributedError within the timeout
// (they exit non-zero, or are ended by the launcher), and the test does not hang.
TEST(EngineProcessGroup, ARankThatThrowsExitsOrIsKilledIsNamedAndNobodyHangs) {
  for (const char* how : {"throw", "exit", "kill"}) {
    const auto start = std::chrono::steady_clock::now();
    const auto result = ranks(
        3,
        [how](ProcessGroup& g) {
          g.barrier();
          if (g.rank() == 1) {
            if (std::string(how) == "throw") throw std::runtime_error("rank 1's planted error");
            if (std::string(how) == "exit") std::_Exit(3);
            ::raise(SIGKILL);
          }
          g.all_reduce(zeros({1000}));  // rank 1 never comes
        },
        5s);
    if (!result) continue;  // a rank (of this call or another): nothing to check here
    EXPECT_EQ(result->first_failure, 1) << how << ": " << result->summary();
    EXPECT_FALSE(result->ok());
    EXPECT_LT(std::chrono::steady_clock::now() - start, 30s) << how << ": the others waited too long";
    if (std::string(how) == "kill") {
      EXPECT_EQ(result->ranks[1].signal, SIGKILL);
    }
    if (std::string(how) == "exit") {
      EXPECT_EQ(result->ranks[1].exit_code, 3);
    }
    EXPECT_NE(result->summary().find("rank 1 "), std::string::npos) << result->summary();
  }
}

TEST(EngineProcessGroup, ARankThatHangsEndsTheOthersWithinTheTimeout) {
  const auto start = std::chrono::steady_clock::now();
  const auto result = ranks(
      2,
      [](ProcessGroup& g) {
        if (g.rank() == 0) std::this_thread::sleep_for(1h);  // never calls the collective
        try {
          g.all_reduce(zeros({8}));
          ADD_FAILURE() << "the all_reduce returned without rank 0";
        } catch (const DistributedError& e) {
          std::cout << "rank 1 got: " << e.what() << std::endl;
          std::_Exit(4);
        }
      },
      5s);
  if (!result) return;
  EXPECT_EQ(result->first_failure, 1) << result->summary();
  EXPECT_EQ(result->ranks[1].exit_code, 4) << result->ranks[1].output;
  EXPECT_NE(result->ranks[1].output.find("rank 1 got: rank 1: all_reduce #2"), std::string::npos)
      << result->ranks[1].output;
  EXPECT_TRUE(result->ranks[0].ended_by_launcher) << "the hanging rank is ended, not left behind";
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s);
}

TEST(EngineLauncher, GivesEachRankTorchrunsEnvironmentAndLeavesNoProcessBehind) {
  distributed::LaunchOptions o;
  o.nproc = 3;
  o.command = {"/bin/sh", "-c",
               "echo rank=$RANK local=$LOCAL_RANK world=$WORLD_SIZE master=$MASTER_ADDR:$MASTER_PORT; "
               "test -d \"$KINDLING_RDZV_DIR\" && echo rdzv-ok; echo $$ > \"$KINDLING_RDZV_DIR/pid.$RANK\""};
  const auto r = distributed::launch(o);
  ASSERT_TRUE(r.ok()) << r.summary();
  for (int k = 0; k < 3; ++k) {
    const std::string& out = r.ranks[static_cast<std::size_t>(k)].output;
    EXPECT_NE(out.find("rank=" + std::to_string(k) + " local=" + std::to_string(k) + " world=3 master=127.0.0.1:29500"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("rdzv-ok"), std::string::npos) << out;
  }
  // A rank that fails ends a sleeping one, which must be gone when launch returns.
  o.command = {"/bin/sh", "-c", "if [ \"$RANK\" = 0 ]; then sleep 0.5; exit 2; fi; echo $$; exec sleep 60"};
  o.grace = 500ms;
  const auto f = distributed::launch(o);
  EXPECT_EQ(f.first_failure, 0);
  EXPECT_EQ(f.ranks[0].exit_code, 2);
  for (int k = 1; k < 3; ++k) {
    EXPECT_TRUE(f.ranks[static_cast<std::size_t>(k)].ended_by_launcher);
    const std::string& out = f.ranks[static_cast<std::size_t>(k)].output;
    ASSERT_FALSE(out.empty()) << "rank " << k << " printed no pid in the half second before rank 0 failed";
    const pid_t pid = std::stoi(out);
    EXPECT_NE(::kill(pid, 0), 0) << "rank " << k << " (pid " << pid << ") is still running";
  }
  EXPECT_NE(f.summary().find("rank 0 exited with code 2 first"), std::string::npos) << f.summary();
  o.command = {"/nonexistent/program"};
  const auto missing = distributed::launch(o);
  EXPECT_FALSE(missing.ok());
  ASSERT_GE(missing.first_failure, 0);
  const std::string& said = missing.ranks[static_cast<std::size_t>(missing.first_failure)].output;
  EXPECT_NE(said.find("cannot start /nonexistent/program"), std::string::npos) << said;
  EXPECT_EQ(missing.ranks[static_cast<std::size_t>(missing.first_failure)].exit_code, 127);
}

}  // namespace kindling::testing
