// week04.feed_timeline: the DataLoader's protocol played with given durations. Small cases are
// worked out by hand in the comments; random cases check every rule of the protocol batch by batch;
// workers_to_feed() is checked against its definition and against the timeline it summarises.

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <kindling/feed.hpp>

#include "testing.hpp"

namespace kindling::testing {
namespace {

using data::FedBatch;
using data::feed_timeline;
using data::workers_to_feed;

struct Expected {
  std::int64_t worker;
  double sent, begin, ready, taken, done;
};

void expect_timeline(const std::vector<FedBatch>& got, const std::vector<Expected>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    SCOPED_TRACE("batch " + std::to_string(k));
    EXPECT_EQ(got[k].worker, want[k].worker);
    EXPECT_DOUBLE_EQ(got[k].sent, want[k].sent);
    EXPECT_DOUBLE_EQ(got[k].begin, want[k].begin);
    EXPECT_DOUBLE_EQ(got[k].ready, want[k].ready);
    EXPECT_DOUBLE_EQ(got[k].taken, want[k].taken);
    EXPECT_DOUBLE_EQ(got[k].done, want[k].done);
  }
}

// How many batches after the first the loop had to wait for (taken later than the step before it
// ended). The timeline adds times one step at a time, so a wait of a rounding error (1e-15 ms for
// 7 workers at 2.1 ms a load and 0.3 a step) is no wait.
int waits_after_first(const std::vector<FedBatch>& t) {
  int waits = 0;
  for (std::size_t k = 1; k < t.size(); ++k) waits += t[k].taken > t[k - 1].done * (1 + 1e-12) + 1e-12;
  return waits;
}

TEST(week04_feed_timeline, WithoutWorkersTheLoopLoadsThenTrains) {
  // The loop asks at 0, loads b0 until 1, trains until 2; asks again at 2, and so on.
  expect_timeline(feed_timeline({1, 2, 3}, 1, 0), {{-1, 0, 0, 1, 1, 2}, {-1, 2, 2, 4, 4, 5}, {-1, 5, 5, 8, 8, 9}});
}

TEST(week04_feed_timeline, TakingABatchSendsTheNextOne) {
  // 2 workers, prefetch_factor 1: b0 and b1 go out at 0. b1 is ready at 1 but waits for its turn;
  // taking b0 at 4 sends b2 (to worker 0), taking b1 at 6 sends b3 (to worker 1).
  expect_timeline(feed_timeline({4, 1, 1, 1}, 2, 2, 1),
                  {{0, 0, 0, 4, 4, 6}, {1, 0, 0, 1, 6, 8}, {0, 4, 4, 5, 8, 10}, {1, 6, 6, 7, 10, 12}});
}

TEST(week04_feed_timeline, ABatchWaitsForItsOwnWorkerEvenWhenAnotherIsIdle) {
  // Round robin, as in PyTorch: b2 belongs to worker 0, busy with the slow b0 until 5, although
  // worker 1 is idle from 2; the loop waits for b0 and then for nothing.
  expect_timeline(feed_timeline({5, 1, 1, 1}, 1, 2, 2),
                  {{0, 0, 0, 5, 5, 6}, {1, 0, 0, 1, 6, 7}, {0, 0, 5, 6, 7, 8}, {1, 0, 1, 2, 8, 9}});
}

TEST(week04_feed_timeline, AtMostWorkersTimesPrefetchBatchesAreOut) {
  // 1 worker, prefetch_factor 2, a slow loop: b2 goes out only when b0 is taken, b3 when b1 is.
  expect_timeline(feed_timeline({1, 1, 1, 1}, 10, 1, 2),
                  {{0, 0, 0, 1, 1, 11}, {0, 0, 1, 2, 11, 21}, {0, 1, 2, 3, 21, 31}, {0, 11, 11, 12, 31, 41}});
}

TEST(week04_feed_timeline, EmptyEpochsAndMoreWorkersThanBatches) {
  EXPECT_TRUE(feed_timeline({}, 1, 0).empty());
  EXPECT_TRUE(feed_timeline({}, 1, 4).empty());
  expect_timeline(feed_timeline({3, 2}, 1, 8), {{0, 0, 0, 3, 3, 4}, {1, 0, 0, 2, 4, 5}});
  // Absurd counts are the same as enough of them: no overflow of n x prefetch_factor, no array of
  // 2^40 workers.
  const std::int64_t huge = std::int64_t{1} << 40;
  expect_timeline(feed_timeline({3, 2}, 1, huge), {{0, 0, 0, 3, 3, 4}, {1, 0, 0, 2, 4, 5}});
  expect_timeline(feed_timeline({3, 2, 1}, 1, 2, std::numeric_limits<std::int64_t>::max()),
                  {{0, 0, 0, 3, 3, 4}, {1, 0, 0, 2, 4, 5}, {0, 0, 3, 4, 5, 6}});
}

// Every rule of the protocol, batch by batch, on random epochs.
TEST(week04_feed_timeline, RandomEpochsFollowEveryRuleOfTheProtocol) {
  std::mt19937 gen(2024);
  std::uniform_real_distribution<double> load(0.0, 9.0), step(0.0, 4.0);
  std::uniform_int_distribution<int> batches(0, 40), workers(0, 6), prefetch(1, 4);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t b = static_cast<std::size_t>(batches(gen));
    std::vector<double> loads(b);
    for (double& l : loads) l = trial % 5 == 0 ? std::round(load(gen)) : load(gen);  // some ties
    const double s = step(gen);
    const std::int64_t n = workers(gen), p = prefetch(gen);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + std::to_string(b) + " batches, " + std::to_string(n) +
                 " workers, prefetch_factor " + std::to_string(p));
    const auto t = feed_timeline(loads, s, n, p);
    ASSERT_EQ(t.size(), b);
    const std::size_t cap = static_cast<std::size_t>(n * p);
    for (std::size_t k = 0; k < b; ++k) {
      const FedBatch& x = t[k];
      const double loop_free = k == 0 ? 0.0 : t[k - 1].done;
      ASSERT_DOUBLE_EQ(x.ready, x.begin + loads[k]) << "batch " << k;
      ASSERT_DOUBLE_EQ(x.taken, std::max(loop_free, x.ready))
          << "batch " << k << ": taken once ready and the loop free";
      ASSERT_DOUBLE_EQ(x.done, x.taken + s) << "batch " << k;
      if (n == 0) {
        ASSERT_EQ(x.worker, -1) << "batch " << k;
        ASSERT_DOUBLE_EQ(x.sent, loop_free) << "batch " << k;
        ASSERT_DOUBLE_EQ(x.begin, loop_free) << "batch " << k;
        continue;
      }
      ASSERT_EQ(x.worker, static_cast<std::int64_t>(k) % n) << "batch " << k << " goes to worker k mod n";
      ASSERT_DOUBLE_EQ(x.sent, k < cap ? 0.0 : t[k - cap].taken)
          << "batch " << k << ": the first n x p go out at once, then one each time the loop takes one";
      const double worker_free = k < static_cast<std::size_t>(n) ? 0.0 : t[k - static_cast<std::size_t>(n)].ready;
      ASSERT_DOUBLE_EQ(x.begin, std::max(x.sent, worker_free))
          << "batch " << k << ": its worker starts it once sent and done with its batch before";
    }
  }
}

TEST(week04_feed_timeline, WorkersToFeedIsTheSmallestCountThatKeepsUp) {
  EXPECT_EQ(workers_to_feed(12, 3), 4);
  EXPECT_EQ(workers_to_feed(10, 3), 4);
  EXPECT_EQ(workers_to_feed(9.5, 3), 4);
  EXPECT_EQ(workers_to_feed(3, 3), 1);
  EXPECT_EQ(workers_to_feed(1, 4), 1);
  EXPECT_EQ(workers_to_feed(0, 4), 0);
  EXPECT_EQ(workers_to_feed(0, 0), 0);
  EXPECT_EQ(workers_to_feed(40, 2.5), 16);
  // The definition is n x step >= load in double: 2.1 / 0.3 is 7.000000000000001, yet 7 x 0.3 is
  // 2.1 exactly; 0.9 / 0.3 is 3, yet 3 x 0.3 is 0.8999999999999999, short of 0.9.
  EXPECT_EQ(workers_to_feed(2.1, 0.3), 7);
  EXPECT_EQ(workers_to_feed(0.9, 0.3), 4);
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> ms(0.01, 50.0);
  for (int trial = 0; trial < 2000; ++trial) {
    const double l = ms(gen), s = ms(gen);
    const std::int64_t n = workers_to_feed(l, s);
    ASSERT_GE(static_cast<double>(n) * s, l) << l << " / " << s;
    ASSERT_LT(static_cast<double>(n - 1) * s, l) << l << " / " << s;
  }
}

// The rule behind "how many workers": with equal batches, workers_to_feed(L, S) workers keep the
// loop busy after the first batch, whatever prefetch_factor; one worker fewer does not.
TEST(week04_feed_timeline, TheRuleIsWhatTheTimelineShows) {
  for (const auto& [l, s] :
       std::vector<std::pair<double, double>>{{12, 3}, {10, 3}, {7, 7}, {2, 5}, {20, 1.5}, {2.1, 0.3}, {4.0, 0.8}}) {
    const std::int64_t n = workers_to_feed(l, s);
    const std::vector<double> loads(64, l);
    for (const std::int64_t p : {1, 2, 4}) {
      SCOPED_TRACE("load " + std::to_string(l) + ", step " + std::to_string(s) + ", prefetch_factor " +
                   std::to_string(p));
      EXPECT_EQ(waits_after_first(feed_timeline(loads, s, n, p)), 0) << n << " workers";
      if (n > 1) {
        EXPECT_GT(waits_after_first(feed_timeline(loads, s, n - 1, p)), 0) << n - 1 << " workers";
      }
    }
    // With no workers the loop pays load and step for every batch.
    EXPECT_NEAR(feed_timeline(loads, s, 0).back().done, 64 * (l + s), 1e-9);
  }
}

TEST(week04_feed_timeline, BadArgumentsAreValueErrors) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const auto expect = [](const std::function<void()>& fn, const std::string& message) {
    expect_error<ValueError>(fn, message);
  };
  expect([] { feed_timeline({1, -1}, 1, 2); }, "load_ms should be a finite, non-negative time in ms, but got -1");
  expect([&] { feed_timeline({1, nan}, 1, 2); }, "load_ms should be a finite, non-negative time in ms, but got nan");
  expect([] { feed_timeline({1}, -2, 2); }, "step_ms should be a finite, non-negative time in ms, but got -2");
  expect([&] { feed_timeline({1}, inf, 0); }, "step_ms should be a finite, non-negative time in ms, but got inf");
  expect([] { feed_timeline({1}, 1, -1); },
         "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.");
  expect([] { feed_timeline({1}, 1, 2, 0); }, "prefetch_factor should be a positive integer value, but got 0");
  expect([] { feed_timeline({1}, 1, 0, 0); }, "prefetch_factor should be a positive integer value, but got 0");
  expect([] { feed_timeline({}, -1, 2); }, "step_ms should be a finite, non-negative time in ms, but got -1");
  expect([] { workers_to_feed(-1, 1); }, "load_ms should be a finite, non-negative time in ms, but got -1");
  expect([&] { workers_to_feed(1, nan); }, "step_ms should be a finite, non-negative time in ms, but got nan");
  expect([] { workers_to_feed(1, 0); },
         "no number of workers keeps up with a loop that takes no time (step_ms 0, load_ms 1)");
  expect([] { workers_to_feed(1e300, 1e-300); }, "load_ms 1e+300 over step_ms 1e-300 asks for more than 10^12 workers");
}

}  // namespace
}  // namespace kindling::testing
