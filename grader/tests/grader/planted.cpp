// Planted behaviours for the grader's own tests: each suite stands for one task
// of a made-up week 99. Crashing and hanging must cost only their own task.

#include <csignal>
#include <memory>
#include <thread>

#include <gtest/gtest.h>
#include <kindling/error.hpp>

namespace {
int stub() { KINDLING_TODO("week99.stub"); }
}  // namespace

TEST(week99_pass, Passes) { EXPECT_EQ(2 + 2, 4); }

TEST(week99_fail, FailsWithAMessage) { EXPECT_EQ(2 + 2, 5) << "arithmetic is broken"; }

TEST(week99_crash, Segfaults) {
  std::raise(SIGSEGV);  // what a null dereference in student code does
}

TEST(week99_hang, LoopsForever) {
  volatile bool forever = true;
  while (forever) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

TEST(week99_stub, StillAStub) { EXPECT_EQ(stub(), 1); }

TEST(week99_mixed, StubAndRealFailure) { EXPECT_EQ(1, 2) << "a real failure outweighs a stub"; }
TEST(week99_mixed, Stub) { EXPECT_EQ(stub(), 1); }

// 2 GiB of memory: fine without a limit (the pages are never touched), a
// std::bad_alloc under the grader tests' 1 GiB limit.
TEST(week99_memory, AllocatesTooMuch) {
  std::unique_ptr<char[]> big(new char[std::size_t{2} << 30]);
  big[0] = 1;
  EXPECT_EQ(big[0], 1);
}

TEST(week99_after, RunsAfterTheCrashAndTheHang) { SUCCEED(); }
