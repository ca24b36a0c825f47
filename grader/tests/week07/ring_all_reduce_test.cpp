// Task week07.ring_all_reduce: the sum reaches every rank, for any length and 2 to 4 ranks, with
// 2 (N - 1) / N of the buffer sent per rank and only through send and recv.

#include <string>
#include <vector>

#include <kindling/kindling.hpp>
#include <kindling/ring.hpp>

#include "ranks.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {
using distributed::ProcessGroup;

// Rank r's buffer: element i is (r + 1) * 100 + i % 97 (integers: every order of adding is exact).
Tensor buffer_of(int rank, std::int64_t n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>((rank + 1) * 100 + i % 97);
  return tensor(v);
}

// Checks the sum on this rank, and what it sent.
void expect_ring_sum(ProcessGroup& group, std::int64_t n) {
  const Tensor x = buffer_of(group.rank(), n);
  const std::int64_t before = group.bytes_sent();
  distributed::ring_all_reduce(group, x);
  const int ranks = group.size();
  Tensor want = zeros({n});
  for (int r = 0; r < ranks; ++r) want = want + buffer_of(r, n);
  ASSERT_TRUE(equal(x, want)) << "rank " << group.rank() << " of " << ranks << ", " << n
                              << " elements: the result is not the sum over the ranks (first elements: "
                              << x.slice(0, 0, std::min<std::int64_t>(n, 6)) << ", want "
                              << want.slice(0, 0, std::min<std::int64_t>(n, 6)) << ")";
  // Each rank sends N - 1 chunks in each phase: all but its own, twice over 2 (N - 1) chunks.
  std::int64_t chunks = 0;
  for (int s = 0; s < ranks - 1; ++s) {
    const int out1 = ((group.rank() - s) % ranks + ranks) % ranks,
              out2 = ((group.rank() + 1 - s) % ranks + ranks) % ranks;
    chunks += ((out1 + 1) * n / ranks - out1 * n / ranks) + ((out2 + 1) * n / ranks - out2 * n / ranks);
  }
  const std::int64_t sent = group.bytes_sent() - before;
  EXPECT_EQ(sent, chunks * 4) << "rank " << group.rank() << " of " << ranks << " sent " << sent << " bytes for a "
                              << n * 4 << "-byte buffer; the ring sends 2 (N - 1) chunks of about n / N elements each ("
                              << chunks * 4 << " bytes here), through group.send";
}
}  // namespace

TEST(week07_ring_all_reduce, SumsAcrossTwoRanks) {
  run_ranks(2, [](ProcessGroup& g) {
    expect_ring_sum(g, 8);
    expect_ring_sum(g, 1000);
  });
}

TEST(week07_ring_all_reduce, SumsAcrossFourRanksForLengthsTheRanksDoNotDivide) {
  run_ranks(4, [](ProcessGroup& g) {
    expect_ring_sum(g, 4096);  // 1024 a chunk: 2 (N - 1) / N = 1.5 buffers sent per rank
    expect_ring_sum(g, 1001);  // chunks of 250 and 251
    expect_ring_sum(g, 3);     // fewer elements than ranks: one chunk is empty
    expect_ring_sum(g, 1);
  });
}

TEST(week07_ring_all_reduce, SumsAcrossThreeRanksTwiceInARow) {
  // Two calls back to back: the second's messages must not be taken for the first's.
  run_ranks(3, [](ProcessGroup& g) {
    expect_ring_sum(g, 300);
    expect_ring_sum(g, 301);
  });
}

TEST(week07_ring_all_reduce, ASingleRankKeepsItsBufferAndSendsNothing) {
  run_ranks(1, [](ProcessGroup& g) { expect_ring_sum(g, 10); });
}

TEST(week07_ring_all_reduce, KeepsTheShapeOfAMatrix) {
  run_ranks(2, [](ProcessGroup& g) {
    const Tensor x = full({3, 5}, static_cast<double>(g.rank() + 1));
    distributed::ring_all_reduce(g, x);
    ASSERT_EQ(x.sizes().vec(), (std::vector<std::int64_t>{3, 5}));
    EXPECT_TRUE(equal(x, full({3, 5}, 3.0)));
  });
}

TEST(week07_ring_all_reduce, ATensorItCannotSendIsRefusedBeforeAnythingIsSent) {
  run_ranks(2, [](ProcessGroup& g) {
    const std::int64_t before = g.bytes_sent();
    EXPECT_THROW(distributed::ring_all_reduce(g, zeros({4, 4}).t()), distributed::DistributedError)
        << "a transposed view is not contiguous";
    EXPECT_THROW(distributed::ring_all_reduce(g, zeros({4}, TensorOptions(kFloat64))), distributed::DistributedError)
        << "float64: the contract is float32";
    EXPECT_EQ(g.bytes_sent(), before);
  });
}

}  // namespace kindling::testing
