// Collate, the DataLoader (single thread and worker threads), and pinned memory.

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>
#include <typeinfo>

#include <kindling/data.hpp>

#if KINDLING_HAS_CUDA
#include <cuda_runtime_api.h>
#endif

#include "oracle_json.hpp"
#include "sanitizers.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {

using data::Batch;
using data::DataLoader;
using data::DataLoaderOptions;
using data::Example;

// Items {x = [i, i, i] float, y = i (0-d int64)}, with optional per-item delays and a failing index.
struct SlowDataset : data::Dataset {
  explicit SlowDataset(std::int64_t n, int max_delay_us = 0, std::int64_t fail_at = -1, int stall_ms_at_5 = 0)
      : n_(n), max_delay_us_(max_delay_us), fail_at_(fail_at), stall_ms_at_5_(stall_ms_at_5) {}
  Example get(std::int64_t i) override {
    calls.fetch_add(1);
    std::int64_t seen = max_index.load();
    while (i > seen && !max_index.compare_exchange_weak(seen, i)) {
    }
    if (max_delay_us_ > 0)  // a different, fixed delay per index: workers finish out of order
      std::this_thread::sleep_for(std::chrono::microseconds((i * 7919) % max_delay_us_));
    if (i == 5 && stall_ms_at_5_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(stall_ms_at_5_));
    if (i == fail_at_) throw ValueError("item " + std::to_string(i) + " is corrupt");
    if (const auto* info = data::get_worker_info()) {
      std::lock_guard lock(mutex);
      workers_seen.insert(info->id);
      seeds_seen.insert(info->seed);
    }
    return {full({3}, static_cast<double>(i)), scalar_tensor(i, kInt64)};
  }
  std::int64_t size() const override { return n_; }

  std::atomic<std::int64_t> calls{0}, max_index{-1};
  std::mutex mutex;
  std::set<std::int64_t> workers_seen;
  std::set<std::uint64_t> seeds_seen;

 private:
  std::int64_t n_;
  int max_delay_us_;
  std::int64_t fail_at_;
  int stall_ms_at_5_;
};

std::vector<std::int64_t> labels_of(DataLoader& loader) {
  std::vector<std::int64_t> out;
  for (const Batch& b : loader) {
    const Tensor y = b.at(1).contiguous();
    for (std::int64_t i = 0; i < y.numel(); ++i) out.push_back(y.data_ptr<std::int64_t>()[i]);
  }
  return out;
}

// ---- week04.default_collate --------------------------------------------------------------------------
TEST(week04_default_collate, StacksEachFieldAlongANewFirstDim) {
  const Batch b =
      data::default_collate({{ones({2, 3}), scalar_tensor(4, kInt64)}, {zeros({2, 3}), scalar_tensor(7, kInt64)}});
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].sizes().vec(), (Shape{2, 2, 3}));
  EXPECT_TRUE(equal(b[0].select(0, 0), ones({2, 3})));
  EXPECT_TRUE(equal(b[0].select(0, 1), zeros({2, 3})));
  EXPECT_EQ(b[1].dtype(), kInt64);
  EXPECT_TRUE(equal(b[1], tensor(std::vector<std::int64_t>{4, 7})));
}

TEST(week04_default_collate, OneExampleGivesABatchOfOne) {
  const Batch b = data::default_collate({{arange(3, kFloat32)}});
  EXPECT_EQ(b[0].sizes().vec(), (Shape{1, 3}));
}

TEST(week04_default_collate, MismatchedShapesGetStacksMessage) {
  expect_error<Error>(
      [] {
        data::default_collate({{zeros({3})}, {zeros({4})}});
      },
      "stack expects each tensor to be equal size, but got [3] at entry 0 and [4] at entry 1");
}

TEST(week04_default_collate, MismatchedFieldCountsAndEmptyBatches) {
  expect_error<Error>(
      [] {
        data::default_collate({{zeros({3}), zeros({})}, {zeros({3})}});
      },
      "each element in list of batch should be of equal size");
  expect_error<Error>([] { data::default_collate({}); }, "default_collate: got an empty batch");
}

// default_collate([[torch.zeros(3)], [torch.zeros(3), torch.zeros(())]])
// -> RuntimeError: each element in list of batch should be of equal size
TEST(week04_default_collate, ALaterExampleWithExtraFieldsIsAnError) {
  SCOPED_TRACE("the second example has more fields than the first: that must throw, not drop its extra fields");
  expect_error<Error>(
      [] {
        data::default_collate({{zeros({3})}, {zeros({3}), zeros({})}});
      },
      "each element in list of batch should be of equal size");
}

TEST(week04_default_collate, DataLoaderBatchesATensorDataset) {
  auto ds = std::make_shared<data::TensorDataset>(TensorList{arange(10, kFloat32).view({5, 2}), arange(5, kInt64)});
  DataLoader loader(ds, {.batch_size = 2});
  std::vector<Shape> shapes;
  for (const Batch& b : loader) shapes.push_back(b[0].sizes().vec());
  EXPECT_EQ(shapes, (std::vector<Shape>{{2, 2}, {2, 2}, {1, 2}}));
  EXPECT_EQ(loader.size(), 3);
}

// ---- week04.multi_worker -------------------------------------------------------------------------------
TEST(week04_multi_worker, BatchesArriveInSamplerOrderWhateverTheTiming) {
  for (std::int64_t workers : {1, 2, 4}) {
    auto ds = std::make_shared<SlowDataset>(60, 3000);
    DataLoader loader(ds, {.batch_size = 4, .num_workers = workers});
    std::vector<std::int64_t> expected(60);
    std::iota(expected.begin(), expected.end(), std::int64_t{0});
    EXPECT_EQ(labels_of(loader), expected) << workers << " workers";
    EXPECT_EQ(ds->calls.load(), 60);
  }
}

TEST(week04_multi_worker, WorkersShareTheLoadAndKnowWhoTheyAre) {
  auto ds = std::make_shared<SlowDataset>(40, 2000);
  Generator g(5);
  DataLoader loader(ds, {.batch_size = 2, .num_workers = 3, .generator = &g});
  labels_of(loader);
  EXPECT_EQ(ds->workers_seen, (std::set<std::int64_t>{0, 1, 2}));
  ASSERT_EQ(ds->seeds_seen.size(), 3u);  // base_seed + id: three consecutive seeds
  EXPECT_EQ(*ds->seeds_seen.rbegin() - *ds->seeds_seen.begin(), 2u);
  EXPECT_EQ(data::get_worker_info(), nullptr);  // not a worker
}

TEST(week04_multi_worker, ShufflingIsReproducibleAndIndependentOfWorkers) {
  std::vector<std::vector<std::int64_t>> orders;
  for (std::int64_t workers : {0, 1, 3}) {
    Generator g(11);
    DataLoader loader(std::make_shared<SlowDataset>(30, 500),
                      {.batch_size = 4, .shuffle = true, .num_workers = workers, .generator = &g});
    orders.push_back(labels_of(loader));
  }
  EXPECT_EQ(orders[0], orders[1]);
  EXPECT_EQ(orders[0], orders[2]);
  std::vector<std::int64_t> sorted = orders[0];
  std::sort(sorted.begin(), sorted.end());
  EXPECT_NE(orders[0], sorted);  // it did shuffle
}

TEST(week04_multi_worker, ExceptionReachesTheConsumerWithWorkerAndIndex) {
  auto ds = std::make_shared<SlowDataset>(40, 0, 17);
  DataLoader loader(ds, {.batch_size = 4, .num_workers = 3});
  std::vector<std::int64_t> got;
  try {
    for (const Batch& b : loader) got.push_back(b[1].data_ptr<std::int64_t>()[0]);
    FAIL() << "the worker's exception was lost";
  } catch (const data::WorkerError& e) {
    EXPECT_EQ(e.index, 17);
    EXPECT_EQ(e.batch, 4);          // 17 / 4
    EXPECT_EQ(e.worker_id, 4 % 3);  // batch k goes to worker k % num_workers
    EXPECT_EQ(e.original, "item 17 is corrupt");
    EXPECT_EQ(e.kind, "ValueError");
    EXPECT_EQ(std::string(e.what()),
              "Caught ValueError in DataLoader worker process 1.\nOriginal error while loading index 17 of batch 4:\n"
              "ValueError: item 17 is corrupt");
  }
  EXPECT_EQ(got, (std::vector<std::int64_t>{0, 4, 8, 12}));  // every batch before the failing one arrived
}

// A dataset that raises `kind` ("bad item i") at index `bad`, as tools/oracle/week04.py's Failing.
struct FailingDataset : data::Dataset {
  FailingDataset(std::int64_t n, std::int64_t bad, std::string kind) : n_(n), bad_(bad), kind_(std::move(kind)) {}
  Example get(std::int64_t i) override {
    if (i == bad_) {
      const std::string message = "bad item " + std::to_string(i);
      if (kind_ == "ValueError") throw ValueError(message);
      if (kind_ == "IndexError") throw IndexError(message);
      if (kind_ == "TypeError") throw TypeError(message);
      throw Error(message);
    }
    return {scalar_tensor(i, kInt64)};
  }
  std::int64_t size() const override { return n_; }

 private:
  std::int64_t n_, bad_;
  std::string kind_;
};

// The exception's kind as PyTorch would name it.
std::string kind_of(const std::exception& e) {
  if (dynamic_cast<const ValueError*>(&e)) return "ValueError";
  if (dynamic_cast<const IndexError*>(&e)) return "IndexError";
  if (dynamic_cast<const TypeError*>(&e)) return "TypeError";
  if (dynamic_cast<const Error*>(&e)) return "RuntimeError";
  return typeid(e).name();
}

// PyTorch 1.13 re-raises a worker's exception as the same type, its text beginning "Caught
// ValueError in DataLoader worker process 1."; without workers the original comes through as
// it is. The batches before the failing one arrive in both. Scenarios from the oracle.
TEST(week04_multi_worker, FailuresKeepTheirKindAsInPyTorch) {
  const nlohmann::json& cases = oracle_json("loader_failures");
  ASSERT_EQ(cases.size(), 16u);
  for (const auto& c : cases) {
    SCOPED_TRACE("scenario " + c.dump() + " (tools/oracle/week04.py, loader_failures)");
    const auto workers = c.at("num_workers").get<std::int64_t>();
    const auto bad = c.at("bad").get<std::int64_t>();
    auto ds = std::make_shared<FailingDataset>(c.at("n").get<std::int64_t>(), bad, c.at("kind").get<std::string>());
    DataLoader loader(ds, {.batch_size = c.at("batch_size").get<std::int64_t>(), .num_workers = workers});
    std::vector<std::vector<std::int64_t>> delivered;
    try {
      for (const Batch& b : loader) delivered.push_back(b[0].to_vector<std::int64_t>());
      ADD_FAILURE() << "the loader did not fail";
    } catch (const NotImplemented&) {
      throw;
    } catch (const std::exception& e) {
      EXPECT_EQ(kind_of(e), c.at("type").get<std::string>());
      const std::string what = e.what();
      EXPECT_EQ(what.substr(0, what.find('\n')), c.at("first_line").get<std::string>());
      const auto* details = dynamic_cast<const data::WorkerError*>(&e);
      if (workers > 0) {
        ASSERT_NE(details, nullptr) << "not a data::WorkerError";
        EXPECT_EQ(details->index, bad);
        EXPECT_EQ(details->original, "bad item " + std::to_string(bad));
      } else {
        EXPECT_EQ(details, nullptr) << "without workers the dataset's own exception comes through";
      }
    }
    EXPECT_EQ(delivered, c.at("delivered").get<std::vector<std::vector<std::int64_t>>>());
  }
}

// A student's `catch (const ValueError&)` works around a loader with workers exactly as without.
TEST(week04_multi_worker, CatchByTheDatasetsKindWorksWithWorkers) {
  for (const std::int64_t workers : {0, 2}) {
    DataLoader loader(std::make_shared<FailingDataset>(8, 3, "ValueError"), {.batch_size = 2, .num_workers = workers});
    bool caught = false;
    try {
      for (const Batch& b : loader) (void)b;
    } catch (const ValueError&) {
      caught = true;
    }
    EXPECT_TRUE(caught) << workers << " workers";
  }
}

TEST(week04_multi_worker, AtMostWorkersTimesPrefetchBatchesInFlight) {
  auto ds = std::make_shared<SlowDataset>(200);
  DataLoader loader(ds, {.batch_size = 2, .num_workers = 2, .prefetch_factor = 3});
  std::int64_t consumed = 0;
  for (const Batch& b : loader) {
    (void)b;
    ++consumed;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // a slow consumer: workers run ahead
    // Batches 0 .. consumed - 1 are done; at most 2 * 3 more may have been handed out.
    EXPECT_LE(ds->max_index.load(), (consumed + 2 * 3) * 2 - 1) << "after " << consumed << " batches";
    if (consumed == 20) break;
  }
}

// PyTorch 1.13 refills as it hands a batch out: _MultiProcessingDataLoaderIter._process_data is
// "self._rcvd_idx += 1; self._try_put_index(); ...", so the workers keep busy while the loop trains.
TEST(week04_multi_worker, TakingABatchSendsTheNextOneAtOnce) {
  auto ds = std::make_shared<SlowDataset>(20);
  DataLoader loader(ds, {.batch_size = 2, .num_workers = 1, .prefetch_factor = 2});
  auto it = loader.begin();  // batch 0 is taken; its slot goes to batch 2 (indices 4, 5) straight away
  EXPECT_EQ((*it)[1].data_ptr<std::int64_t>()[0], 0);
  // No more calls to next(): the training loop is busy with batch 0. Wait (at most 5 s) for the
  // worker to reach batch 2, which it does within milliseconds once batch 2 has been sent.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (ds->max_index.load() < 5 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(ds->max_index.load(), 5)
      << "with 1 worker and prefetch_factor 2, taking batch 0 frees a slot: batch 2 must be sent right away "
         "(dispatch after receiving), not only when next() is called again; and batch 3 must wait";
}

TEST(week04_multi_worker, BreakingOutEarlyStopsTheWorkers) {
  auto ds = std::make_shared<SlowDataset>(10000, 200);
  {
    DataLoader loader(ds, {.batch_size = 8, .num_workers = 4});
    int n = 0;
    for (const Batch& b : loader) {
      (void)b;
      if (++n == 3) break;
    }
  }  // the epoch's workers are joined here
  const std::int64_t calls = ds->calls.load();
  EXPECT_LT(calls, 200);  // only what was in flight was ever loaded
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(ds->calls.load(), calls);  // and nothing runs any more
}

TEST(week04_multi_worker, DestroyingTheIteratorAndLoaderMidEpochIsClean) {
  auto ds = std::make_shared<SlowDataset>(1000, 500);
  auto loader = std::make_unique<DataLoader>(ds, DataLoaderOptions{.batch_size = 4, .num_workers = 3});
  auto it = std::make_unique<DataLoader::Iterator>(loader->begin());
  ++*it;
  EXPECT_EQ((**it)[1].data_ptr<std::int64_t>()[0], 4);
  loader.reset();  // the loader goes first; the epoch's workers belong to the iterator
  it.reset();      // joins them
  const std::int64_t calls = ds->calls.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(ds->calls.load(), calls);
}

TEST(week04_multi_worker, TimeoutThrowsWhenNoBatchArrives) {
  auto ds = std::make_shared<SlowDataset>(8, 0, -1, 2000);  // index 5 takes 2 s
  DataLoader loader(ds, {.batch_size = 2, .num_workers = 2, .timeout = 0.2});
  auto it = loader.begin();
  ++it;  // batch 1: indices 2, 3
  expect_error<Error>([&] { ++it; }, "DataLoader timed out after 0.2 seconds");
}

TEST(week04_multi_worker, AWorkerInitFailureReachesTheConsumerInsteadOfAHang) {
  // Worker 1's worker_init_fn throws, so batch 1 (and every batch sent to worker 1) never comes.
  // A next() that waits only for batches would wait for ever; the timeout turns that hang into a
  // "timed out" failure of this test rather than of the whole run.
  auto ds = std::make_shared<SlowDataset>(20);
  DataLoader loader(ds, {.batch_size = 5, .num_workers = 2, .timeout = 5.0, .worker_init_fn = [](std::int64_t id) {
                           if (id == 1) throw ValueError("no shard for worker 1");
                         }});
  std::size_t batches = 0;
  try {
    for (const Batch& b : loader) batches += b.size() > 0 ? 1 : 0;
    FAIL() << "the epoch ended although worker 1 never started";
  } catch (const data::WorkerError& e) {
    EXPECT_EQ(e.worker_id, 1);
    EXPECT_EQ(e.batch, -1);
    EXPECT_EQ(std::string(e.what()),
              "Caught ValueError in DataLoader worker process 1.\nOriginal error in worker_init_fn:\n"
              "ValueError: no shard for worker 1");
  } catch (const Error& e) {
    FAIL() << "the consumer waited for a batch that worker 1 could never send: " << e.what();
  }
  EXPECT_LE(batches, 1u);  // at most worker 0's batch 0 came first
}

TEST(week04_multi_worker, WorkerInitRunsOncePerWorkerAndPersistentWorkersStay) {
  std::atomic<int> inits{0};
  auto ds = std::make_shared<SlowDataset>(20);
  DataLoader loader(ds, {.batch_size = 5,
                         .num_workers = 2,
                         .worker_init_fn = [&](std::int64_t) { ++inits; },
                         .persistent_workers = true});
  EXPECT_EQ(labels_of(loader).size(), 20u);
  EXPECT_EQ(labels_of(loader).size(), 20u);
  EXPECT_EQ(inits.load(), 2);  // two epochs, the same two workers
  DataLoader fresh(ds, {.batch_size = 5, .num_workers = 2, .worker_init_fn = [&](std::int64_t) { ++inits; }});
  labels_of(fresh);
  labels_of(fresh);
  EXPECT_EQ(inits.load(), 6);  // new workers every epoch
}

// ---- week04.pin_memory -------------------------------------------------------------------------------------
std::int64_t vm_locked_kb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmLck:", 0) == 0) return std::stoll(line.substr(6));
  return -1;
}

TEST(week04_pin_memory, PinnedCopyIsPinnedContiguousAndEqual) {
  auto pool = data::PinnedMemoryPool::create();
  const Tensor src = arange(12, kFloat32).view({3, 4}).t();  // not contiguous
  const Tensor p = pool->pinned_copy(src);
  EXPECT_TRUE(p.is_pinned());
  EXPECT_FALSE(src.is_pinned());
  EXPECT_TRUE(p.is_contiguous());
  EXPECT_TRUE(equal(p, src));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p.data_ptr()) % 4096, 0u);  // page-aligned
}

TEST(week04_pin_memory, BuffersAreRecycledNotLockedAnew) {
  auto pool = data::PinnedMemoryPool::create();
  for (int i = 0; i < 5; ++i) {
    const Tensor p = pool->pinned_copy(full({256, 256}, static_cast<double>(i)));
    EXPECT_EQ(p.data_ptr<float>()[0], static_cast<float>(i));
  }  // each batch's tensor is gone before the next: one buffer serves all five
  EXPECT_EQ(pool->allocations(), 1);
  EXPECT_EQ(pool->reuses(), 4);
}

TEST(week04_pin_memory, VmLckRisesWhilePinnedAndFallsAfter) {
#if defined(KINDLING_SANITIZED)
  GTEST_SKIP() << "the sanitizers intercept mlock and do nothing, so VmLck cannot rise under them";
#endif
  const std::int64_t before = vm_locked_kb();
  ASSERT_GE(before, 0) << "no VmLck in /proc/self/status";
  {
    // mlock'ed pages show in VmLck; cudaHostAlloc's are pinned by the driver and do not.
    auto pool = data::PinnedMemoryPool::create(std::nullopt, data::PinnedBackend::kMlock);
    const Tensor a = pool->pinned_copy(zeros({1024, 256}));  // 1 MiB
    EXPECT_GE(vm_locked_kb() - before, 1024);
  }
  EXPECT_EQ(vm_locked_kb(), before);
}

TEST(week04_pin_memory, RefusedLockWarnsAndContinuesUnpinned) {
  auto pool = data::PinnedMemoryPool::create(64 * 1024);  // a 64 KiB budget, like a tight RLIMIT_MEMLOCK
  const Tensor small = pool->pinned_copy(ones({16}));
  EXPECT_TRUE(small.is_pinned());
  const Tensor big = pool->pinned_copy(ones({1024, 1024}));  // 4 MiB: refused
  EXPECT_FALSE(big.is_pinned());
  EXPECT_TRUE(equal(big, ones({1024, 1024})));  // nothing lost
  EXPECT_TRUE(pool->fell_back());
}

// The pool's budget and its counters are Kindling's own (PyTorch exposes neither); these follow the contract.
TEST(week04_pin_memory, ABufferThatFillsTheBudgetExactlyIsAllowed) {
  const std::size_t page = data::page_size();
  const auto floats_per_page = static_cast<std::int64_t>(page / sizeof(float));
  auto pool = data::PinnedMemoryPool::create(2 * page);
  const Tensor a = pool->pinned_copy(ones({floats_per_page}, kFloat32));
  const Tensor b = pool->pinned_copy(ones({floats_per_page}, kFloat32));
  EXPECT_TRUE(a.is_pinned());
  EXPECT_TRUE(b.is_pinned()) << "two one-page buffers fill a two-page budget exactly: locked + capacity == budget "
                                "is within the budget, only more than the budget is refused";
  EXPECT_EQ(pool->locked_bytes(), 2 * page);
  EXPECT_FALSE(pool->fell_back());
}

TEST(week04_pin_memory, TheBudgetCountsBuffersAlreadyLocked) {
  const std::size_t page = data::page_size();
  const auto floats_per_page = static_cast<std::int64_t>(page / sizeof(float));
  auto pool = data::PinnedMemoryPool::create(2 * page);
  const Tensor a = pool->pinned_copy(ones({floats_per_page}, kFloat32));  // 1 page locked, in use
  ASSERT_TRUE(a.is_pinned());
  const Tensor b = pool->pinned_copy(ones({2 * floats_per_page}, kFloat32));  // 1 + 2 pages > 2
  EXPECT_FALSE(b.is_pinned()) << "a two-page buffer fits the two-page budget on its own, but one page is already "
                                 "locked: the budget is for the total (locked_bytes() + the new capacity)";
  EXPECT_TRUE(equal(b, ones({2 * floats_per_page}, kFloat32)));
  EXPECT_EQ(pool->locked_bytes(), page);
  EXPECT_EQ(pool->allocations(), 1);
}

TEST(week04_pin_memory, OnlyABufferOfTheSameRoundedSizeIsReused) {
  const std::size_t page = data::page_size();
  const auto floats_per_page = static_cast<std::int64_t>(page / sizeof(float));
  auto pool = data::PinnedMemoryPool::create();
  {
    const Tensor big = pool->pinned_copy(ones({2 * floats_per_page}, kFloat32));
    ASSERT_TRUE(big.is_pinned());
  }  // the two-page buffer is back in the cache
  const Tensor small = pool->pinned_copy(ones({floats_per_page}, kFloat32));
  EXPECT_TRUE(small.is_pinned());
  EXPECT_EQ(pool->reuses(), 0) << "a one-page request reused the cached two-page buffer: only a cached buffer of "
                                  "exactly the rounded capacity may be reused";
  EXPECT_EQ(pool->allocations(), 2);
  EXPECT_EQ(pool->locked_bytes(), 3 * page);
}

TEST(week04_pin_memory, BatchesOfNearlyTheSameSizeShareOneRoundedBuffer) {
  auto pool = data::PinnedMemoryPool::create();
  {
    const Tensor first = pool->pinned_copy(ones({100}, kFloat32));  // 400 bytes: one page
    ASSERT_TRUE(first.is_pinned());
  }
  const Tensor second = pool->pinned_copy(ones({101}, kFloat32));  // 404 bytes: the same page
  EXPECT_TRUE(second.is_pinned());
  EXPECT_EQ(pool->reuses(), 1) << "a 404-byte batch did not reuse the cached buffer of a 400-byte one: capacities are "
                                  "rounded up to whole pages, so both need one page";
  EXPECT_EQ(pool->allocations(), 1);
}

TEST(week04_pin_memory, TensorPinMemoryWorksOnItsOwn) {
  const Tensor t = randn({33, 7});
  const Tensor p = t.pin_memory();
  EXPECT_TRUE(p.is_pinned());
  EXPECT_TRUE(equal(p, t));
  EXPECT_EQ(&p.pin_memory().impl(), &p.impl());  // already pinned: itself
}

TEST(week04_pin_memory, DataLoaderDeliversPinnedBatches) {
  auto ds = std::make_shared<SlowDataset>(12);
  DataLoader loader(ds, {.batch_size = 4, .num_workers = 2, .pin_memory = true});
  int n = 0;
  for (const Batch& b : loader) {
    EXPECT_TRUE(b[0].is_pinned());
    EXPECT_TRUE(b[1].is_pinned());
    ++n;
  }
  EXPECT_EQ(n, 3);
}

// On a machine with a CUDA device (and a CUDA build) pinned buffers come from cudaHostAlloc: the CUDA
// runtime itself must see them as page-locked host memory, recycled as the mlock'ed ones are, and a
// non-blocking copy to the device and back must return the same values. Skipped without a device.
TEST(week04_pin_memory, WithACudaDeviceBuffersComeFromCudaHostAlloc) {
  const data::CudaHostStatus& cuda = data::cuda_host_status();
  if (!cuda.available) GTEST_SKIP() << "no CUDA device here: " << cuda.reason;
#if KINDLING_HAS_CUDA
  auto pool = data::PinnedMemoryPool::create();
  EXPECT_EQ(pool->backend(), data::PinnedBackend::kCudaHostAlloc);
  // Two buffers of one size circulate (each batch's and each copy-back's); the pool may hand
  // either back, since it promises recycling, not an order among buffers of equal size.
  std::set<const void*> buffers;
  for (int i = 0; i < 3; ++i) {
    const Tensor src = arange(4096, kFloat32).view({64, 64}) * static_cast<double>(i + 1);
    const Tensor p = pool->pinned_copy(src);
    EXPECT_TRUE(p.is_pinned());
    EXPECT_TRUE(equal(p, src));
    cudaPointerAttributes attr{};
    ASSERT_EQ(cudaPointerGetAttributes(&attr, p.data_ptr()), cudaSuccess);
    EXPECT_EQ(attr.type, cudaMemoryTypeHost) << "not memory from cudaHostAlloc";
    buffers.insert(p.data_ptr());

    // The point of pinning: an asynchronous copy to the device and back.
    const std::size_t bytes = static_cast<std::size_t>(p.numel()) * sizeof(float);
    void* device = nullptr;
    ASSERT_EQ(cudaMalloc(&device, bytes), cudaSuccess);
    const Tensor back = pool->pinned_copy(zeros({64, 64}));
    buffers.insert(back.data_ptr());
    EXPECT_EQ(buffers.size(), 2u) << "the buffers were not recycled";
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    EXPECT_EQ(cudaMemcpyAsync(device, p.data_ptr(), bytes, cudaMemcpyHostToDevice, stream), cudaSuccess);
    EXPECT_EQ(cudaMemcpyAsync(back.data_ptr(), device, bytes, cudaMemcpyDeviceToHost, stream), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_TRUE(equal(back, src));
    cudaStreamDestroy(stream);
    cudaFree(device);
  }
  EXPECT_EQ(pool->allocations(), 2);  // one buffer for the batches, one for the copies back
  EXPECT_EQ(pool->reuses(), 4);

  // The DataLoader's pin_memory stage and Tensor::pin_memory use it too.
  auto ds = std::make_shared<SlowDataset>(8);
  DataLoader loader(ds, {.batch_size = 4, .num_workers = 1, .pin_memory = true});
  for (const Batch& b : loader) {
    cudaPointerAttributes attr{};
    ASSERT_EQ(cudaPointerGetAttributes(&attr, b[0].data_ptr()), cudaSuccess);
    EXPECT_EQ(attr.type, cudaMemoryTypeHost);
  }
  const Tensor alone = randn({5, 5}).pin_memory();
  cudaPointerAttributes attr{};
  ASSERT_EQ(cudaPointerGetAttributes(&attr, alone.data_ptr()), cudaSuccess);
  EXPECT_EQ(attr.type, cudaMemoryTypeHost);
#endif
}

// ---- pinned memory backends (given) ---------------------------------------------------------------------------
TEST(EnginePinnedBackend, WithoutACudaDeviceMemoryIsMlocked) {
  const data::CudaHostStatus& cuda = data::cuda_host_status();
  if (cuda.available) GTEST_SKIP() << "a CUDA device is present: this test is for machines without one";
  EXPECT_FALSE(cuda.reason.empty());
#if KINDLING_HAS_CUDA
  // What the runtime answered, e.g. "cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version".
  EXPECT_TRUE(cuda.reason.rfind("cudaGetDeviceCount: ", 0) == 0 || cuda.reason == "no CUDA device") << cuda.reason;
#else
  EXPECT_EQ(cuda.reason, "Kindling was built without CUDA");
#endif
  EXPECT_EQ(data::default_pinned_backend(), data::PinnedBackend::kMlock);
  EXPECT_EQ(data::PinnedMemoryPool::create()->backend(), data::PinnedBackend::kMlock);
  expect_error<Error>([] { data::PinnedMemoryPool::create(std::nullopt, data::PinnedBackend::kCudaHostAlloc); },
                      "pin_memory: cudaHostAlloc needs a CUDA device (" + cuda.reason + ")");
}

TEST(EnginePinnedBackend, AllocatePinnedGivesPageAlignedLockedMemory) {
  const std::size_t bytes = 3 * data::page_size();
  void* p = data::allocate_pinned(data::PinnedBackend::kMlock, bytes);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % data::page_size(), 0u);
  std::memset(p, 0xab, bytes);  // the whole buffer is ours
  EXPECT_EQ(static_cast<unsigned char*>(p)[bytes - 1], 0xab);
  data::free_pinned(data::PinnedBackend::kMlock, p, bytes);
}

// ---- options and datasets (given) ------------------------------------------------------------------------------
TEST(EngineDataLoaderOptions, ChecksFollowPyTorch) {
  auto ds = std::make_shared<SlowDataset>(10);
  const auto& c = oracle_json("loader_errors");
  auto check = [&](const char* key, const DataLoaderOptions& o) {
    expect_error<ValueError>([&] { DataLoader(ds, o); }, c[key]["message"].get<std::string>());
  };
  check("num_workers", {.num_workers = -1});
  check("timeout", {.timeout = -1});
  check("prefetch_factor", {.prefetch_factor = 4});
  check("persistent_workers", {.persistent_workers = true});
  check("sampler_shuffle", {.shuffle = true, .sampler = std::make_shared<data::SequentialSampler>(10)});
  check("batch_sampler", {.batch_size = 3,
                          .batch_sampler = std::make_shared<data::BatchSampler>(
                              std::make_shared<data::SequentialSampler>(10), 2, false)});
  check("batch_size_none", {.batch_size = std::nullopt, .drop_last = true});
  check("batch_size_zero", {.batch_size = 0});
}

TEST(EngineDataLoaderOptions, CustomCollateAndNoBatching) {
  auto ds = std::make_shared<SlowDataset>(6);
  // A custom collate_fn: sum the labels of each batch instead of stacking them.
  DataLoader sums(ds, {.batch_size = 3, .collate_fn = [](std::vector<Example> examples) {
                         std::int64_t total = 0;
                         for (const auto& e : examples) total += e[1].item<std::int64_t>();
                         return Batch{scalar_tensor(total, kInt64)};
                       }});
  std::vector<std::int64_t> got;
  for (const Batch& b : sums) got.push_back(b[0].item<std::int64_t>());
  EXPECT_EQ(got, (std::vector<std::int64_t>{0 + 1 + 2, 3 + 4 + 5}));
  // batch_size = nullopt: one example at a time, not collated.
  DataLoader single(ds, {.batch_size = std::nullopt, .num_workers = 2});
  std::int64_t n = 0;
  for (const Batch& b : single) {
    EXPECT_EQ(b[0].sizes().vec(), (Shape{3}));
    EXPECT_EQ(b[1].item<std::int64_t>(), n++);
  }
  EXPECT_EQ(n, 6);
}

TEST(EngineDataLoaderOptions, LengthFollowsPyTorch) {
  auto ds = std::make_shared<data::TensorDataset>(TensorList{arange(10, kFloat32)});
  EXPECT_EQ(DataLoader(ds, {.batch_size = 3}).size(), oracle_json("loader_len")["keep"].get<std::int64_t>());
  EXPECT_EQ(DataLoader(ds, {.batch_size = 3, .drop_last = true}).size(),
            oracle_json("loader_len")["drop"].get<std::int64_t>());
  EXPECT_EQ(DataLoader(ds, {.batch_size = std::nullopt}).size(), 10);
}

TEST(EngineDatasets, TensorSubsetAndConcat) {
  auto a = std::make_shared<data::TensorDataset>(TensorList{arange(5, kFloat32)});
  auto b = std::make_shared<data::TensorDataset>(TensorList{arange(5, 8, 1, kFloat32)});
  // TensorDataset indexes its tensors, as PyTorch's does.
  const auto& index = oracle_json("tensor_dataset_index");
  EXPECT_EQ(a->get(-1)[0].item<float>(), 4.0f);
  auto three = std::make_shared<data::TensorDataset>(TensorList{arange(3, kFloat32), arange(3, kInt64)});
  EXPECT_EQ(three->get(-1)[0].item<float>(), index["last"].get<float>());
  expect_error_json([&] { three->get(5); }, index.at("too_big"));
  expect_error_json([&] { three->get(-4); }, index.at("too_negative"));
  data::ConcatDataset both({a, b});
  EXPECT_EQ(both.size(), 8);
  EXPECT_EQ(both.get(6)[0].item<float>(), 6.0f);
  EXPECT_EQ(both.get(-1)[0].item<float>(), 7.0f);
  data::Subset odd(a, {1, 3});
  EXPECT_EQ(odd.get(1)[0].item<float>(), 3.0f);
  expect_error<IndexError>([&] { odd.get(2); }, "index 2 is out of range for a dataset of 2 items");
  expect_error<Error>(
      [] {
        data::TensorDataset({zeros({3}), zeros({4})});
      },
      oracle_json("tensor_dataset_mismatch")["message"].get<std::string>());
}

TEST(EngineDatasets, ToTensorAndNormalize) {
  const Tensor hwc = tensor(std::vector<std::uint8_t>{0, 255, 51, 102}).view({1, 2, 2});  // H=1, W=2, C=2
  const Tensor chw = data::transforms::to_tensor(hwc);
  EXPECT_EQ(chw.sizes().vec(), (Shape{2, 1, 2}));
  EXPECT_TRUE(allclose(chw, tensor({{{0.0f, 0.2f}}, {{1.0f, 0.4f}}})));
  const Tensor n = data::transforms::normalize(chw, {0.5, 0.5}, {0.5, 0.25});
  EXPECT_TRUE(allclose(n, tensor({{{-1.0f, -0.6f}}, {{2.0f, -0.4f}}})));
}

}  // namespace
}  // namespace kindling::testing
