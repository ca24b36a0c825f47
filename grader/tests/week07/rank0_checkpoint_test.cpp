// Task week07.rank0_checkpoint: one rank writes, every rank resumes. No rank returns before the file
// is complete, only the root touches it, a failed write or read fails every rank at once (no one
// waits for the group's timeout), and a run resumed from a checkpoint is the run that never stopped.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <kindling/ddp.hpp>
#include <kindling/dist_checkpoint.hpp>
#include <kindling/kindling.hpp>
#include <kindling/nn.hpp>
#include <kindling/training.hpp>

#include "ddp_models.hpp"
#include "ranks.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {
namespace fs = std::filesystem;
using distributed::DistributedDataParallel;
using distributed::DistributedError;
using distributed::ProcessGroup;

// `steps` DDP steps (SGD with momentum: its state matters) from step `from`.
void train(ProcessGroup& g, DistributedDataParallel& ddp, optim::Optimizer& opt, int from, int steps) {
  for (int s = from; s < from + steps; ++s) {
    opt.zero_grad();
    nn::functional::mse_loss(ddp(share(ddp_inputs(8, s), g.rank(), g.size())),
                             share(ddp_targets(8, s), g.rank(), g.size()))
        .backward();
    opt.step();
  }
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

TEST(week07_rank0_checkpoint, NoRankReturnsBeforeTheFileIsComplete) {
  run_ranks(3, [](ProcessGroup& g) {
    const fs::path path = shared_folder() / "late.safetensors";
    nn::Sequential m = ddp_mlp(3);
    if (g.rank() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(400));  // a slow writer
    distributed::save_on_rank(g, path, m, nullptr, 7);
    ASSERT_TRUE(fs::exists(path)) << "rank " << g.rank() << " returned before rank 0 had written the file";
    nn::Sequential back = ddp_mlp(99);
    const auto meta = serialize::load_checkpoint(path, back, nullptr);
    EXPECT_EQ(meta.at("epoch"), "7");
    EXPECT_TRUE(equal(back.parameters()[0], m.parameters()[0]));
  });
}

TEST(week07_rank0_checkpoint, OnlyTheRootWritesAndAnotherRootWorks) {
  run_ranks(2, [](ProcessGroup& g) {
    // Rank 1 is the root. Rank 0's path names a file of its own that it must leave alone (on another
    // machine, the same path is another file), and a folder that does not exist.
    const fs::path path = g.rank() == 1 ? shared_folder() / "root1.safetensors" : shared_folder() / "rank0-own.txt";
    if (g.rank() == 0) std::ofstream(path) << "rank 0's own file";
    nn::Sequential m = ddp_mlp(5);
    EXPECT_NO_THROW(distributed::save_on_rank(g, path, m, nullptr, 1, 1)) << "rank " << g.rank();
    if (g.rank() == 0) {
      std::ifstream in(path);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      EXPECT_TRUE(text == "rank 0's own file") << "rank 0 wrote the checkpoint although rank 1 is the root";
      EXPECT_NO_THROW(
          distributed::save_on_rank(g, shared_folder() / "no-such-folder" / "x.safetensors", m, nullptr, 1, 1));
    } else {
      EXPECT_EQ(serialize::load_checkpoint(path, m, nullptr).at("epoch"), "1");
      EXPECT_NO_THROW(distributed::save_on_rank(g, shared_folder() / "root1b.safetensors", m, nullptr, 1, 1));
    }
    EXPECT_THROW(distributed::save_on_rank(g, path, m, nullptr, 1, 2), DistributedError) << "root 2 of 2 ranks";
  });
}

TEST(week07_rank0_checkpoint, AWriterThatFailsFailsEveryRankAtOnce) {
  run_ranks(3, [](ProcessGroup& g) {
    const fs::path good = shared_folder() / "kept.safetensors";
    nn::Sequential m = ddp_mlp(5);
    distributed::save_on_rank(g, good, m, nullptr, 1);
    const auto before = fs::last_write_time(good);
    // The root cannot write: its path is a folder (which only the root needs to see).
    if (g.rank() == 0) fs::create_directories(shared_folder() / "a-folder");
    const auto start = std::chrono::steady_clock::now();
    try {
      distributed::save_on_rank(g, shared_folder() / "a-folder", m, nullptr, 2);
      ADD_FAILURE() << "rank " << g.rank() << ": save_on_rank returned although rank 0 could not write";
    } catch (const DistributedError& e) {
      if (g.rank() != 0) {
        EXPECT_NE(std::string(e.what()).find("rank 0"), std::string::npos)
            << "rank " << g.rank() << " must be told that rank 0 failed; it got: " << e.what();
      }
    }
    EXPECT_LT(seconds_since(start), 2.0) << "rank " << g.rank()
                                         << " waited for the group's timeout instead of hearing that the write failed";
    EXPECT_EQ(fs::last_write_time(good), before);
    g.barrier();  // every rank has looked before rank 0 writes the file again
    // The group still works afterwards.
    distributed::save_on_rank(g, good, m, nullptr, 3);
    EXPECT_EQ(serialize::load_checkpoint(good, m, nullptr).at("epoch"), "3");
  });
}

TEST(week07_rank0_checkpoint, ARankThatCannotLoadFailsEveryRank) {
  run_ranks(3, [](ProcessGroup& g) {
    const fs::path path = shared_folder() / "model.safetensors";
    nn::Sequential m = ddp_mlp(5);
    distributed::save_on_rank(g, path, m, nullptr, 4);
    nn::Sequential back = ddp_mlp(6);
    EXPECT_EQ(distributed::load_everywhere(g, path, back, nullptr).at("epoch"), "4");
    EXPECT_TRUE(equal(back.parameters()[2], m.parameters()[2]));
    // Rank 2's copy is missing.
    const fs::path mine = g.rank() == 2 ? shared_folder() / "missing.safetensors" : path;
    const auto start = std::chrono::steady_clock::now();
    try {
      (void)distributed::load_everywhere(g, mine, back, nullptr);
      ADD_FAILURE() << "rank " << g.rank() << " went on although rank 2 could not load the checkpoint";
    } catch (const DistributedError& e) {
      EXPECT_NE(std::string(e.what()).find("rank(s) 2"), std::string::npos)
          << "name the rank that failed: " << e.what();
    }
    EXPECT_LT(seconds_since(start), 2.0);
  });
}

TEST(week07_rank0_checkpoint, AResumedRunIsTheRunThatNeverStopped) {
  run_ranks(2, [](ProcessGroup& g) {
    // Four steps without a stop.
    nn::Sequential straight = ddp_mlp(11 + static_cast<std::uint64_t>(g.rank()));
    DistributedDataParallel ddp_straight(g, straight);
    optim::SGD sgd_straight(straight.parameters(), {.lr = 0.1, .momentum = 0.9});
    train(g, ddp_straight, sgd_straight, 0, 4);
    // Two steps, a checkpoint, and two more steps in models and optimizers made afresh.
    const fs::path path = shared_folder() / "resume.safetensors";
    {
      nn::Sequential m = ddp_mlp(11 + static_cast<std::uint64_t>(g.rank()));
      DistributedDataParallel ddp(g, m);
      optim::SGD sgd(m.parameters(), {.lr = 0.1, .momentum = 0.9});
      train(g, ddp, sgd, 0, 2);
      distributed::save_on_rank(g, path, m, &sgd, 2);
    }
    nn::Sequential m = ddp_mlp(50 + static_cast<std::uint64_t>(g.rank()));
    DistributedDataParallel ddp(g, m);
    optim::SGD sgd(m.parameters(), {.lr = 0.1, .momentum = 0.9});
    const auto meta = distributed::load_everywhere(g, path, m, &sgd);
    ASSERT_EQ(meta.at("epoch"), "2");
    train(g, ddp, sgd, 2, 2);
    const auto got = m.named_parameters(), want = straight.named_parameters();
    for (std::size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(equal(got[i].second, want[i].second))
          << "rank " << g.rank() << ": " << got[i].first
          << " after resuming is not the uninterrupted run's (did every rank load the model and the optimizer?)";
  });
}

}  // namespace kindling::testing
