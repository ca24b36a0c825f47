// Task week06.async_overlap: pipelined_scale, the next batch's copy overlapping this batch's
// work, checked on the simulated device in lazy mode (a missing wait or synchronisation fails
// the same way every run) and on its modelled timeline.

#include <cmath>
#include <string>
#include <vector>

#include <kindling/cuda/caching_allocator.hpp>
#include <kindling/cuda/kernels.hpp>
#include <kindling/cuda/runtime.hpp>
#include <kindling/cuda/sim.hpp>
#include <kindling/kindling.hpp>

#include "testing.hpp"

namespace kindling::testing {
namespace {
namespace cu = kindling::cuda;

struct Batches {
  Batches(int count, std::int64_t n) {
    for (int k = 0; k < count; ++k) {
      in.push_back((arange(n, kFloat32) + 1000.0 * k).pin_memory());
      out.push_back(zeros({n}).pin_memory());
    }
  }
  std::vector<Tensor> in, out;
};

void expect_results(const Batches& b, float s) {
  for (std::size_t k = 0; k < b.in.size(); ++k)
    EXPECT_TRUE(equal(b.out[k], b.in[k] * static_cast<double>(s))) << "batch " << k << ": " << b.out[k].slice(0, 0, 4);
}

bool overlaps(const cu::TimelineEntry& a, const cu::TimelineEntry& b) {
  return a.start_us < b.end_us && b.start_us < a.end_us;
}
}  // namespace

TEST(week06_async_overlap, EveryBatchIsScaledAndReadableWhenItReturns) {
  for (int count : {1, 2, 5}) {
    Batches b(count, 3000);
    cu::pipelined_scale(b.in, b.out, 0.5f);
    expect_results(b, 0.5f);
  }
}

TEST(week06_async_overlap, TheNextCopyOverlapsThisBatchsWorkOnTheTimeline) {
  Batches b(4, 4096);
  cu::sim::clear_timeline();
  cu::pipelined_scale(b.in, b.out, 2.0f);
  expect_results(b, 2.0f);
  std::vector<cu::TimelineEntry> h2d, work;
  for (const auto& e : cu::sim::timeline()) {
    if (e.what.find("HtoD") != std::string::npos) h2d.push_back(e);
    if (e.what.rfind("kernel", 0) == 0 || e.what.find("DtoH") != std::string::npos) work.push_back(e);
  }
  ASSERT_EQ(h2d.size(), 4u) << "one host-to-device copy per batch";
  ASSERT_EQ(work.size(), 8u) << "one kernel and one copy back per batch";
  for (const auto& c : h2d) EXPECT_NE(c.what.find("(pinned)"), std::string::npos) << c.what;
  EXPECT_NE(h2d[0].stream, work[0].stream) << "copies and kernels share one stream: nothing can overlap";
  for (std::size_t k = 0; k < 4; ++k)
    EXPECT_GE(work[2 * k].start_us, h2d[k].end_us) << "batch " << k << "'s kernel started before its data arrived";
  // Each later batch's copy runs while the compute stream works on an earlier batch.
  for (std::size_t k = 1; k < 4; ++k) {
    bool during_work = false;
    for (const auto& w : work) during_work = during_work || overlaps(h2d[k], w);
    EXPECT_TRUE(during_work) << "the copy of batch " << k << " [" << h2d[k].start_us << ", " << h2d[k].end_us
                             << "] us overlaps no work of the compute stream";
  }
}

TEST(week06_async_overlap, ItCleansUpAfterItself) {
  Batches b(3, 1000);
  const auto before = cu::memory_allocated();
  cu::pipelined_scale(b.in, b.out, 1.0f);
  EXPECT_EQ(cu::memory_allocated(), before) << "device buffers were not given back to the caching allocator";
  EXPECT_TRUE(cu::sim_runtime().query_stream(nullptr));
}

TEST(week06_async_overlap, MismatchedInputsAreRefusedBeforeAnyWork) {
  Batches b(2, 100);
  std::vector<Tensor> one_out{b.out[0]};
  try {
    cu::pipelined_scale(b.in, one_out, 1.0f);
    ADD_FAILURE() << "two batches and one output were accepted";
  } catch (const NotImplemented&) {
    throw;
  } catch (const Error&) {
  }
  std::vector<Tensor> ragged{b.in[0], b.in[1].slice(0, 0, 50)};
  try {
    cu::pipelined_scale(ragged, b.out, 1.0f);
    ADD_FAILURE() << "batches of different sizes were accepted";
  } catch (const NotImplemented&) {
    throw;
  } catch (const Error&) {
  }
  EXPECT_TRUE(cu::sim_runtime().query_stream(nullptr));
}

}  // namespace kindling::testing
