// Task week06.free_list (best fit, split and merge) and the caching allocator around it
// (engine tests: pools, segment sizes, streams, events, statistics, the retry before out of
// memory), on the simulated device.

#include <string>
#include <vector>

#include <kindling/cuda/caching_allocator.hpp>
#include <kindling/cuda/runtime.hpp>
#include <kindling/cuda/sim.hpp>
#include <kindling/kindling.hpp>

#include "testing.hpp"

namespace kindling::testing {
namespace {
namespace cu = kindling::cuda;
constexpr std::size_t KiB = 1024, MiB = 1024 * 1024;

// A pool over one hand-made segment of `size` bytes at a fake address (the free list only does
// arithmetic on addresses), freed at the end.
struct Segment {
  explicit Segment(std::size_t size, bool small = true, cu::Stream stream = nullptr) {
    pool.small = small;
    whole = new cu::Block;
    whole->size = size;
    whole->ptr = reinterpret_cast<char*>(std::uintptr_t{1} << 40);
    whole->small = small;
    whole->stream = stream;
    pool.blocks.insert(whole);
  }
  ~Segment() {
    std::vector<cu::Block*> all;
    for (cu::Block* b = first(); b; b = b->next) all.push_back(b);
    for (cu::Block* b : all) delete b;
  }
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  cu::Block* first() const {
    cu::Block* b = whole;
    while (b->prev) b = b->prev;
    return b;
  }
  // take + split, as the allocator does
  cu::Block* take(std::size_t size, cu::Stream stream = nullptr) {
    cu::Block* b = cu::take_best_fit(pool, stream, size);
    if (!b) return nullptr;
    cu::split_block(pool, b, size);
    b->allocated = true;
    whole = b;
    return b;
  }
  std::vector<std::size_t> sizes() const {
    std::vector<std::size_t> out;
    for (cu::Block* b = first(); b; b = b->next) out.push_back(b->size);
    return out;
  }
  cu::BlockPool pool;
  cu::Block* whole;
};
}  // namespace

// The rest of a split belongs where its block did: the same stream (another stream must not be
// handed bytes this one may still use) and the same pool kind. A Block's fields default to the
// default stream and the large pool, so a rest that copies neither looks right on stream 0 of
// the large pool only.
TEST(week06_free_list, TheRestOfASplitKeepsItsBlocksStreamAndPool) {
  int dummy = 0;
  const cu::Stream side = &dummy;
  Segment small(2 * MiB, /*small=*/true, side);
  ASSERT_NE(small.take(512 * KiB, side), nullptr);
  cu::Block* rest = small.whole->next;
  ASSERT_NE(rest, nullptr) << "1.5 MiB is worth keeping in a small pool";
  EXPECT_EQ(rest->stream, side) << "the rest of a block of another stream was filed under the default stream";
  EXPECT_TRUE(rest->small) << "the rest of a small-pool block must stay a small-pool block";
  EXPECT_EQ(cu::take_best_fit(small.pool, nullptr, 256 * KiB), nullptr)
      << "the default stream took the rest of a block of another stream";
  EXPECT_EQ(cu::take_best_fit(small.pool, side, 256 * KiB), rest);
  small.pool.blocks.insert(rest);
}

TEST(week06_free_list, BestFitTakesTheSmallestFreeBlockThatFitsOnTheSameStream) {
  cu::BlockPool pool;
  pool.small = true;
  std::vector<cu::Block> blocks(5);
  const std::size_t sizes[] = {4096, 1024, 2048, 1536, 8192};
  int dummy = 0;
  cu::Stream other = &dummy;
  for (std::size_t i = 0; i < 5; ++i) {
    blocks[i].size = sizes[i];
    blocks[i].ptr = reinterpret_cast<char*>((i + 1) << 20);
    blocks[i].stream = i == 3 ? other : nullptr;  // the 1536 block belongs to another stream
    pool.blocks.insert(&blocks[i]);
  }
  EXPECT_EQ(cu::take_best_fit(pool, nullptr, 1200), &blocks[2]) << "1536 is another stream's: 2048 is the best fit";
  EXPECT_EQ(pool.blocks.size(), 4u) << "the block taken leaves the pool";
  EXPECT_EQ(cu::take_best_fit(pool, nullptr, 1024), &blocks[1]) << "an exact fit";
  EXPECT_EQ(cu::take_best_fit(pool, other, 1024), &blocks[3]);
  EXPECT_EQ(cu::take_best_fit(pool, other, 512), nullptr) << "nothing left on that stream";
  EXPECT_EQ(cu::take_best_fit(pool, nullptr, 9000), nullptr) << "nothing large enough";
  EXPECT_EQ(cu::take_best_fit(pool, nullptr, 4097), &blocks[4]);
  EXPECT_EQ(pool.blocks.size(), 1u);
}

TEST(week06_free_list, SplitKeepsTheRequestAndFilesTheRestRightAfterIt) {
  Segment seg(2 * MiB);
  cu::Block* a = seg.take(512);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->size, 512u);
  EXPECT_EQ(seg.sizes(), (std::vector<std::size_t>{512, 2 * MiB - 512}));
  ASSERT_NE(a->next, nullptr);
  EXPECT_EQ(a->next->ptr, a->ptr + 512);
  EXPECT_EQ(a->next->prev, a);
  EXPECT_FALSE(a->next->allocated);
  EXPECT_EQ(seg.pool.blocks.size(), 1u) << "the rest is free, in the pool";
  cu::Block* b = seg.take(1536);
  ASSERT_NE(b, nullptr) << "the rest of the segment could not be taken: is it in the pool?";
  EXPECT_EQ(b->ptr, a->ptr + 512) << "best fit is the rest, at its start";
  EXPECT_EQ(seg.sizes(), (std::vector<std::size_t>{512, 1536, 2 * MiB - 2048}));
}

TEST(week06_free_list, SplitLeavesRestsTooSmallToKeep) {
  Segment small(4096);
  cu::Block* a = small.take(3584);  // leaves exactly 512: kept in the small pool
  EXPECT_EQ(small.sizes(), (std::vector<std::size_t>{3584, 512}));
  (void)a;
  Segment tiny(1024);
  tiny.take(1024);
  EXPECT_EQ(tiny.sizes(), (std::vector<std::size_t>{1024}));
  Segment large(20 * MiB, /*small=*/false);
  cu::Block* l = large.take(19 * MiB);  // 1 MiB left: not more than 1 MiB, not split
  EXPECT_EQ(l->size, 20 * MiB);
  EXPECT_EQ(large.sizes(), (std::vector<std::size_t>{20 * MiB}));
  EXPECT_TRUE(large.pool.blocks.empty());
  Segment large2(20 * MiB, false);
  large2.take(18 * MiB);  // 2 MiB left: split
  EXPECT_EQ(large2.sizes(), (std::vector<std::size_t>{18 * MiB, 2 * MiB}));
}

TEST(week06_free_list, FreeingMergesWithFreeNeighboursOnBothSides) {
  Segment seg(2 * MiB);
  cu::Block* a = seg.take(512);
  cu::Block* b = seg.take(1024);
  cu::Block* c = seg.take(2048);
  ASSERT_TRUE(a && b && c) << "three blocks could not be taken from a fresh 2 MiB segment: is the rest of a split put "
                              "into the pool?";
  EXPECT_EQ(seg.sizes(), (std::vector<std::size_t>{512, 1024, 2048, 2 * MiB - 3584}));
  cu::Block* fa = cu::free_block(seg.pool, a);  // no free neighbour: stays alone
  EXPECT_EQ(fa, a);
  EXPECT_FALSE(a->allocated);
  EXPECT_EQ(seg.sizes(), (std::vector<std::size_t>{512, 1024, 2048, 2 * MiB - 3584}));
  seg.whole = c;
  cu::Block* fc = cu::free_block(seg.pool, c);  // merges with the free rest after it
  EXPECT_EQ(fc, c);
  EXPECT_EQ(seg.sizes(), (std::vector<std::size_t>{512, 1024, 2 * MiB - 1536}));
  cu::Block* fb = cu::free_block(seg.pool, b);  // merges with both: the whole segment again
  seg.whole = fb;
  EXPECT_EQ(fb->ptr, a->ptr - 0) << "the merged block starts at the lowest address";
  EXPECT_EQ(seg.sizes(), (std::vector<std::size_t>{2 * MiB}));
  EXPECT_EQ(fb->prev, nullptr);
  EXPECT_EQ(fb->next, nullptr);
  ASSERT_EQ(seg.pool.blocks.size(), 1u);
  EXPECT_EQ(*seg.pool.blocks.begin(), fb);
  EXPECT_EQ(fb->size, 2 * MiB) << "its key in the pool is its merged size";
  EXPECT_EQ(cu::take_best_fit(seg.pool, nullptr, 2 * MiB), fb) << "the whole segment fits again";
  seg.whole = fb;
}

TEST(week06_free_list, ABlockWaitingForAnotherStreamIsNotMergedYet) {
  Segment seg(2 * MiB);
  cu::Block* a = seg.take(512);
  cu::Block* b = seg.take(512);
  ASSERT_TRUE(a && b) << "two blocks could not be taken from a fresh 2 MiB segment: is the rest of a split put into "
                         "the pool?";
  b->allocated = false;
  b->pending_events = 1;  // freed, but another stream may still use it: not in the pool
  seg.pool.blocks.erase(b);
  cu::free_block(seg.pool, a);
  EXPECT_EQ(seg.sizes(), (std::vector<std::size_t>{512, 512, 2 * MiB - 1024}));
  b->pending_events = 0;
  seg.whole = cu::free_block(seg.pool, b);
  EXPECT_EQ(seg.sizes(), (std::vector<std::size_t>{2 * MiB}));
}

// ---- the allocator around the free list (engine) --------------------------------------------
TEST(EngineCachingAllocator, RoundsRequestsAndChoosesSegmentsAsPyTorch) {
  EXPECT_EQ(cu::round_size(1), 512u);
  EXPECT_EQ(cu::round_size(512), 512u);
  EXPECT_EQ(cu::round_size(513), 1024u);
  EXPECT_EQ(cu::segment_size(512), 2 * MiB);
  EXPECT_EQ(cu::segment_size(MiB), 2 * MiB);
  EXPECT_EQ(cu::segment_size(MiB + 512), 20 * MiB);
  EXPECT_EQ(cu::segment_size(10 * MiB - 512), 20 * MiB);
  EXPECT_EQ(cu::segment_size(10 * MiB), 10 * MiB);
  EXPECT_EQ(cu::segment_size(11 * MiB + 1), 12 * MiB);
}

TEST(EngineCachingAllocator, FreedMemoryIsReusedWithoutAskingTheDevice) {
  cu::CachingAllocator a(cu::sim_runtime());
  void* p = a.allocate(1000);
  EXPECT_EQ(a.stats().allocated, 1024u);
  EXPECT_EQ(a.stats().reserved, 2 * MiB);
  void* q = a.allocate(3000);
  EXPECT_EQ(static_cast<char*>(q), static_cast<char*>(p) + 1024) << "carved from the same segment";
  a.free(p);
  a.free(q);
  EXPECT_EQ(a.stats().allocated, 0u);
  EXPECT_EQ(a.stats().reserved, 2 * MiB) << "kept in the cache";
  void* r = a.allocate(MiB);  // the small pool's largest request: fits the merged segment
  EXPECT_EQ(r, p);
  EXPECT_EQ(a.stats().device_mallocs, 1u);
  void* big = a.allocate(3 * MiB);  // large pool: a 20 MiB segment
  EXPECT_EQ(a.stats().reserved, 22 * MiB);
  a.free(r);
  a.free(big);
  EXPECT_EQ(a.stats().peak_allocated, MiB + 3 * MiB);
  a.empty_cache();
  EXPECT_EQ(a.stats().reserved, 0u);
  EXPECT_EQ(a.stats().segments, 0u);
}

TEST(EngineCachingAllocator, ABlockUsedOnAnotherStreamWaitsForThatStream) {
  cu::CachingAllocator a(cu::sim_runtime());
  cu::Runtime& rt = cu::sim_runtime();
  cu::Stream s = rt.create_stream();
  void* p = a.allocate(4096);
  rt.memset_async(p, 0, 4096, s);  // queued on s (lazy): not done
  a.record_stream(p, s);
  a.free(p);
  void* q = a.allocate(4096);
  EXPECT_NE(q, p) << "reused while stream s may still write it";
  rt.synchronize_stream(s);
  a.free(q);
  void* r = a.allocate(8192);
  EXPECT_EQ(r, p) << "after s finished, the block merged back and is reused";
  a.free(r);
  rt.destroy_stream(s);
  a.empty_cache();
}

TEST(EngineCachingAllocator, OutOfMemoryFreesTheCacheRetriesThenRaisesPyTorchsError) {
  cu::sim::set_capacity(64 * MiB);  // a small device, so that the test needs little host memory
  struct Restore {
    ~Restore() { cu::sim::set_capacity(std::size_t{1} << 30); }
  } restore;
  cu::CachingAllocator a(cu::sim_runtime());
  const std::size_t total = cu::sim_runtime().mem_info().second;
  ASSERT_EQ(total, 64 * MiB);
  void* big = a.allocate(total / 2 + MiB);
  a.free(big);                                    // cached: half the device reserved and unused
  void* again = a.allocate(total / 2 + 3 * MiB);  // does not fit beside it: the cache is freed first
  EXPECT_EQ(a.stats().retries, 1u);
  EXPECT_EQ(a.stats().reserved, cu::segment_size(total / 2 + 3 * MiB));
  try {
    (void)a.allocate(total);
    ADD_FAILURE() << "allocated more than the device has";
  } catch (const cu::OutOfMemoryError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("CUDA out of memory. Tried to allocate 64.00 MiB (GPU 0; 64.00 MiB total capacity; ", 0), 0u)
        << m;
    EXPECT_NE(m.find("reserved in total by Kindling) If reserved memory is >> allocated memory"), std::string::npos)
        << m;
  }
  EXPECT_EQ(a.stats().ooms, 1u);
  a.free(again);
  a.empty_cache();
}

TEST(EngineCachingAllocator, TensorsOnCudaGoThroughTheCache) {
  cu::empty_cache();
  const std::size_t before = cu::memory_allocated();
  {
    const Tensor t = ones({256}, kCUDA);  // 1 KiB
    EXPECT_EQ(cu::memory_allocated(), before + KiB);
    EXPECT_GE(cu::memory_reserved(), 2 * MiB);
  }
  EXPECT_EQ(cu::memory_allocated(), before);
  EXPECT_GE(cu::memory_reserved(), 2 * MiB) << "freed into the cache, not to the device";
  cu::empty_cache();
}

}  // namespace kindling::testing
