// The simulator's scheduler: a block's threads as fibers, barriers and warp operations as
// rendezvous checked for the mistakes that hang or silently corrupt a GPU, and each launch
// replayed in several thread orders to find results that depend on the order.
//
// Note on fibers: each CUDA thread runs on a stack of its own (Boost.Context's fiber, switched
// in user space in tens of nanoseconds; glibc's swapcontext takes microseconds, as it saves
// the signal mask with a system call). Stacks come from a pool, each with a guard page below
// it, so that a kernel whose recursion overflows its stack crashes instead of writing over
// its neighbour's.

#include "simulator_internal.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define KINDLING_SIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KINDLING_SIM_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define KINDLING_SIM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KINDLING_SIM_TSAN 1
#endif
#endif
#if defined(KINDLING_SIM_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(KINDLING_SIM_TSAN)
extern "C" {
void* __tsan_get_current_fiber();
void* __tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void* fiber);
void __tsan_switch_to_fiber(void* fiber, unsigned flags);
}
#endif

#include <sys/mman.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <boost/context/fiber.hpp>
#include <deque>
#include <exception>
#include <mutex>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kindling::cuda::sim {

namespace ctx = boost::context;

namespace {

// ---- telling the sanitizers about switches between stacks (no-ops elsewhere) -------------------
// Boost 1.74's fcontext fibers tell neither AddressSanitizer nor ThreadSanitizer. Without
// this, ASan takes an exception thrown on a fiber's stack for a stack overflow.
struct FiberMarks {
  void* tsan = nullptr;          // ThreadSanitizer's handle of the fiber
  void* asan_fake = nullptr;     // AddressSanitizer's fake stack, while the fiber is away
  const void* bottom = nullptr;  // the fiber's stack
  std::size_t size = 0;
};
#if defined(KINDLING_SIM_TSAN)
thread_local void* tl_sched_tsan = nullptr;
#endif
#if defined(KINDLING_SIM_ASAN)
thread_local void* tl_sched_asan_fake = nullptr;
thread_local const void* tl_sched_bottom = nullptr;
thread_local std::size_t tl_sched_size = 0;
#endif

#if defined(KINDLING_SIM_TSAN)
// ThreadSanitizer's fibers, pooled like the stacks: creating one maps and clears a thread's
// state, and destroying it unmaps that again, which cost more than the kernels (a week-6 test
// took minutes). A fiber's clock carries over to its next simulated thread; since every switch
// synchronises with the scheduler anyway, that orders nothing that was not already ordered. So
// does its shadow stack, which must be empty when a thread ends: see FiberMain.
class TsanFiberPool {
 public:
  void* take() {
    if (free_.empty()) return __tsan_create_fiber(0);
    void* f = free_.back();
    free_.pop_back();
    return f;
  }
  void give(void* f) { free_.push_back(f); }
  ~TsanFiberPool() {
    for (void* f : free_) __tsan_destroy_fiber(f);
  }

 private:
  std::vector<void*> free_;
};
TsanFiberPool& tsan_fiber_pool() {
  thread_local TsanFiberPool pool;
  return pool;
}
#endif

void marks_create(FiberMarks& m) {
#if defined(KINDLING_SIM_TSAN)
  m.tsan = tsan_fiber_pool().take();
#else
  (void)m;
#endif
}
void marks_destroy(FiberMarks& m) {
#if defined(KINDLING_SIM_TSAN)
  tsan_fiber_pool().give(m.tsan);
#else
  (void)m;
#endif
}
// On the scheduler's stack, about to switch to the fiber, and back from it.
void before_entering(FiberMarks& m) {
#if defined(KINDLING_SIM_TSAN)
  tl_sched_tsan = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(m.tsan, 0);
#endif
#if defined(KINDLING_SIM_ASAN)
  __sanitizer_start_switch_fiber(&tl_sched_asan_fake, m.bottom, m.size);
#endif
  (void)m;
}
void after_returning() {
#if defined(KINDLING_SIM_ASAN)
  __sanitizer_finish_switch_fiber(tl_sched_asan_fake, nullptr, nullptr);
#endif
}
// On the fiber's stack, just in (first entry or back from a wait), and about to leave;
// `ending`: the fiber will not be resumed again.
void after_entering(FiberMarks& m) {
#if defined(KINDLING_SIM_ASAN)
  __sanitizer_finish_switch_fiber(m.asan_fake, &tl_sched_bottom, &tl_sched_size);
#endif
  (void)m;
}
void before_leaving(FiberMarks& m, bool ending) {
#if defined(KINDLING_SIM_TSAN)
  __tsan_switch_to_fiber(tl_sched_tsan, 0);
#endif
#if defined(KINDLING_SIM_ASAN)
  __sanitizer_start_switch_fiber(ending ? nullptr : &m.asan_fake, tl_sched_bottom, tl_sched_size);
#endif
  (void)m;
  (void)ending;
}

// ---- fiber stacks: pooled, each with a guard page ----------------------------------------------
#if defined(KINDLING_SIM_ASAN)
constexpr std::size_t kStackBytes = 512 * 1024;  // the sanitizer's frames are larger
#else
constexpr std::size_t kStackBytes = 64 * 1024;
#endif

class StackPool {
 public:
  ctx::stack_context allocate() {
    void* base = nullptr;
    if (!free_.empty()) {
      base = free_.back();
      free_.pop_back();
    } else {
      base = ::mmap(nullptr, kStackBytes + page(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                    -1, 0);
      if (base == MAP_FAILED) throw std::bad_alloc();
      ::mprotect(base, page(), PROT_NONE);  // the guard: stacks grow down onto it
    }
    ctx::stack_context s;
    s.size = kStackBytes;
    s.sp = static_cast<char*>(base) + page() + kStackBytes;
    last_bottom = static_cast<char*>(base) + page();
    return s;
  }
  void deallocate(ctx::stack_context& s) { free_.push_back(static_cast<char*>(s.sp) - kStackBytes - page()); }
  ~StackPool() {
    for (void* base : free_) ::munmap(base, kStackBytes + page());
  }

 private:
  static std::size_t page() {
    static const std::size_t p = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    return p;
  }
  std::vector<void*> free_;

 public:
  const void* last_bottom = nullptr;  // of the stack allocate() gave last
};

StackPool& stack_pool() {
  thread_local StackPool pool;
  return pool;
}

// The allocator Boost.Context takes by value: a handle on this thread's pool.
struct PooledStack {
  ctx::stack_context allocate() { return stack_pool().allocate(); }
  void deallocate(ctx::stack_context& s) { stack_pool().deallocate(s); }
};

// ---- the state of one block's threads --------------------------------------------------------------
enum class Wait { Running, Barrier, Warp, Exited };

struct SimThread {
  SimThread() { marks_create(marks); }
  SimThread(const SimThread&) = delete;
  SimThread& operator=(const SimThread&) = delete;
  ~SimThread() { marks_destroy(marks); }  // every fiber has ended by now (abort_block)
  Coordinates c{};
  unsigned linear = 0;
  FiberMarks marks;
  ctx::fiber fiber;  // resumes this thread
  ctx::fiber back;   // resumes the scheduler (held while this thread runs)
  Wait wait = Wait::Running;
  std::exception_ptr error;
  // at a barrier
  std::source_location site;
  int predicate = 0, mode = 0, result = 0;
  // at a warp operation
  unsigned mask = 0;
  int op = 0, arg = 0, width = 32;
  std::uint64_t value = 0, warp_result = 0;
  // for the race check: where its barrier interval began (the last __syncthreads it passed)
  const char* since_file = nullptr;
  unsigned since_line = 0;
  std::uint64_t shared_loads = 0;  // its own shared-memory reads (Counters::max_thread_shared_loads)
  int atomic_depth = 0;            // inside an atomic (AtomicScope)
  // its global and shared loads and stores so far: the i-th of each lane of a warp form a group
  std::uint32_t accesses[4] = {0, 0, 0, 0};
};

// The accesses of one warp-wide group (the i-th load or store of each lane): for global memory
// the bytes each lane touched, for shared memory the 4-byte words.
struct AccessGroup {
  // Global: (address, bytes). Shared: (4-byte word, lane * 256 + the access's bytes).
  std::vector<std::pair<std::uintptr_t, std::uint32_t>> spans;
};

struct Launch {
  const char* kernel = "";
  LaunchConfig config;
  void (*body)(void*) = nullptr;
  void* context = nullptr;
  Allocation shared;  // the block's dynamic shared memory, reset for each block
};

// Thrown on a fiber's stack when its block is torn down: the kernel's frames unwind by an
// ordinary exception, and the fiber ends normally (never Boost's forced unwinding).
struct BlockAborted {};

// A static shared array of the running block (KINDLING_SHARED), found by its declaration's tag.
struct StaticShared {
  const void* tag = nullptr;
  std::vector<std::byte> bytes;
  Allocation allocation;
};

struct Block {
  bool aborting = false;
  Launch* launch = nullptr;
  unsigned linear = 0;                         // the block's index in the grid, x fastest
  std::deque<SimThread> threads;               // never moved: fibers hold their addresses
  std::uint32_t epoch = 0;                     // __syncthreads completed so far
  std::vector<std::uint32_t> warp_generation;  // per warp: warp operations of the whole warp completed
  std::deque<StaticShared> statics;            // never moved: Allocations are pointed to
  std::size_t static_bytes = 0;
  std::unordered_map<std::uint64_t, AccessGroup> groups;  // by (warp, kind, i): the memory counters
};

// ---- the race check: every access against the others of its barrier interval -------------------
// One record per element (allocation and byte offset) touched in the launch: its last write and
// its last reads by two different threads, each with the thread, its block and where its
// barrier interval stood. Two accesses conflict when neither is ordered before the other:
// different blocks (nothing orders them inside a launch), or the same block with no
// __syncthreads between them and, for two lanes of one warp, no warp operation of the whole
// warp either.
struct Access {
  bool valid = false;
  unsigned block = 0, thread = 0;
  std::uint32_t epoch = 0, warp_generation = 0;
  Coordinates::U3 block_idx{}, thread_idx{};
  const char* since_file = nullptr;
  unsigned since_line = 0;
};
struct Cell {
  Access write, read, other_read;  // other_read: the last read by a thread other than read's
};
struct RaceCheck {
  std::unordered_map<const Allocation*, std::unordered_map<std::int64_t, Cell>> global, shared;
};

thread_local SimThread* tl_thread = nullptr;
thread_local Block* tl_block = nullptr;
thread_local Counters tl_counters;
thread_local RaceCheck* tl_races = nullptr;  // while a launch's accesses are checked
thread_local bool tl_tracing = false;        // record_trace
thread_local std::vector<TracedEvent> tl_trace;

std::mutex& launch_mutex() {
  static std::mutex m;  // one launch at a time: static __shared__ arrays belong to the block running
  return m;
}
int g_orders = 3;
Counters g_last;

std::string xyz(const Coordinates::U3& u) {
  return "(" + std::to_string(u.x) + ", " + std::to_string(u.y) + ", " + std::to_string(u.z) + ")";
}
std::string site(const std::source_location& s) {
  std::string file = s.file_name();
  if (const auto slash = file.rfind('/'); slash != std::string::npos) file = file.substr(slash + 1);
  return file + ":" + std::to_string(s.line());
}
std::string hex(unsigned v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}
std::string block_name(const Block& b) {
  return std::string("kernel ") + b.launch->kernel + ", block " + xyz(b.threads[0].c.block);
}
std::string thread_name(const SimThread& t) { return "thread " + xyz(t.c.thread); }

// Suspends the running thread until the scheduler resumes it.
void yield_to_scheduler() {
  SimThread* t = tl_thread;
  ++tl_counters.switches;
  before_leaving(t->marks, false);
  t->back = std::move(t->back).resume();
  after_entering(t->marks);
  tl_thread = t;
  if (tl_block->aborting) throw BlockAborted{};
}

void resume(Block& b, SimThread& t) {
  tl_thread = &t;
  tl_block = &b;
  t.wait = Wait::Running;
  before_entering(t.marks);
  t.fiber = std::move(t.fiber).resume();
  after_returning();
  tl_thread = nullptr;
}

// Ends every fiber of the block that has not ended: each is resumed once more and unwinds
// (BlockAborted), or, never started, returns at once.
void abort_block(Block& b) {
  b.aborting = true;
  for (SimThread& t : b.threads)
    if (t.wait != Wait::Exited) resume(b, t);
  b.threads.clear();
}

// ---- warp operations -------------------------------------------------------------------------
unsigned lane_of(const SimThread& t) { return t.linear % 32; }

// Completes the operation of the lanes in `mask` of `first`'s warp when all of them wait at one.
bool try_complete_warp(Block& b, const SimThread& caller) {
  const unsigned warp_base = caller.linear - lane_of(caller);
  std::vector<SimThread*> lanes(32, nullptr);
  for (unsigned l = 0; l < 32; ++l) {
    if (!(caller.mask >> l & 1u)) continue;
    SimThread& t = b.threads[warp_base + l];
    const bool here = &t == &caller || (t.wait == Wait::Warp && t.mask == caller.mask);
    if (!here) return false;
    lanes[l] = &t;
  }
  for (unsigned l = 0; l < 32; ++l) {
    SimThread* t = lanes[l];
    if (!t) continue;
    if (t->op != caller.op)
      throw KernelError(block_name(b) + ": lanes of a warp meet with different warp operations (mask " +
                        hex(caller.mask) + "): " + thread_name(caller) + " at " + site(caller.site) + ", " +
                        thread_name(*t) + " at " + site(t->site));
    std::uint64_t out = 0;
    const int w = t->width;
    const int base = static_cast<int>(l) & ~(w - 1);
    int src = static_cast<int>(l);
    switch (t->op) {
      case 0:
        break;
      case 1:
        src = base + ((t->arg % w) + w) % w;
        break;
      case 2:
        src = static_cast<int>(l) - t->arg < base ? static_cast<int>(l) : static_cast<int>(l) - t->arg;
        break;
      case 3:
        src = static_cast<int>(l) + t->arg >= base + w ? static_cast<int>(l) : static_cast<int>(l) + t->arg;
        break;
      case 4:
        src = (static_cast<int>(l) ^ t->arg) >= base + w ? static_cast<int>(l) : static_cast<int>(l) ^ t->arg;
        break;
      case 5:
        for (unsigned k = 0; k < 32; ++k)
          if (lanes[k] && lanes[k]->value) out |= std::uint64_t{1} << k;
        break;
      default:
        break;
    }
    if (t->op >= 1 && t->op <= 4) {
      if (!lanes[static_cast<unsigned>(src)])
        throw KernelError(block_name(b) + ", " + thread_name(*t) + ": the shuffle at " + site(t->site) +
                          " reads lane " + std::to_string(src) + ", which is not in its mask " + hex(t->mask) +
                          " (its value is undefined on a GPU)");
      out = lanes[static_cast<unsigned>(src)]->value;
    }
    t->warp_result = out;
  }
  for (SimThread* t : lanes)
    if (t && t != &caller) t->wait = Wait::Running;  // runnable again
  // An operation of every lane that has not exited orders the warp's accesses before it before
  // those after it (for the race check).
  bool whole_warp = true;
  for (unsigned l = 0; l < 32 && warp_base + l < b.threads.size(); ++l)
    if (!lanes[l] && b.threads[warp_base + l].wait != Wait::Exited) whole_warp = false;
  if (whole_warp) ++b.warp_generation[warp_base / 32];
  return true;
}

std::string what_lane_does(const SimThread& t) {
  switch (t.wait) {
    case Wait::Exited:
      return "has exited";
    case Wait::Barrier:
      return "waits at __syncthreads (" + site(t.site) + ")";
    case Wait::Warp:
      return "waits at another warp operation (" + site(t.site) + ", mask " + hex(t.mask) + ")";
    case Wait::Running:
      return "is running";
  }
  return "?";
}

// ---- one block ---------------------------------------------------------------------------------
// Throws `message` after tearing the block down: the suspended fibers unwind their stacks
// here, before the exception travels (not while it is in flight).
[[noreturn]] void fail_block(Block& b, const std::string& message) {
  abort_block(b);
  throw KernelError(message);
}

void check_barrier_and_release(Block& b) {
  std::size_t exited = 0, waiting = 0;
  const SimThread* first = nullptr;
  const SimThread* other = nullptr;
  for (const SimThread& t : b.threads) {
    if (t.wait == Wait::Exited) {
      ++exited;
    } else if (t.wait == Wait::Barrier) {
      ++waiting;
      if (!first)
        first = &t;
      else if (!other &&
               (t.site.line() != first->site.line() || std::string(t.site.file_name()) != first->site.file_name()))
        other = &t;
    }
  }
  if (exited > 0)
    fail_block(b, block_name(b) + ": __syncthreads at " + site(first->site) + " is reached by " +
                      std::to_string(waiting) + " of the block's " + std::to_string(b.threads.size()) + " threads; " +
                      std::to_string(exited) +
                      " exited without reaching it (a __syncthreads inside an `if` that not every thread enters? On "
                      "a GPU this hangs or is undefined)");
  if (other)
    fail_block(b, block_name(b) + ": the block's threads wait at different __syncthreads: " + thread_name(*first) +
                      " at " + site(first->site) + ", " + thread_name(*other) + " at " + site(other->site) +
                      " (on a GPU this hangs or is undefined)");
  int count = 0, all = 1, any = 0;
  for (const SimThread& t : b.threads) {
    count += t.predicate != 0;
    all &= t.predicate != 0;
    any |= t.predicate != 0;
  }
  const int result = first->mode == 1 ? count : first->mode == 2 ? all : first->mode == 3 ? any : 0;
  ++tl_counters.barriers;
  ++b.epoch;
  for (SimThread& t : b.threads) {
    t.result = result;
    t.wait = Wait::Running;
    t.since_file = first->site.file_name();
    t.since_line = first->site.line();
  }
}

// Folds the block's access groups into the launch's sector and bank counters.
void count_groups(Block& b) {
  for (auto& [key, g] : b.groups) {
    auto& spans = g.spans;
    std::sort(spans.begin(), spans.end());
    spans.erase(std::unique(spans.begin(), spans.end()), spans.end());
    if ((key & 2u) == 0) {  // global: sectors touched, and the fewest the distinct bytes need
      std::vector<std::uintptr_t> sectors;
      std::uint64_t bytes = 0;
      std::uintptr_t covered_to = 0;
      for (const auto& [address, size] : spans) {
        for (std::uintptr_t s = address / 32; s <= (address + size - 1) / 32; ++s) sectors.push_back(s);
        const std::uintptr_t from = std::max(address, covered_to), to = address + size;
        if (to > from) bytes += to - from;
        covered_to = std::max(covered_to, to);
      }
      std::sort(sectors.begin(), sectors.end());
      tl_counters.global_sectors +=
          static_cast<std::uint64_t>(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
      tl_counters.global_sectors_min += (bytes + 31) / 32;
    } else {  // shared: per phase, the most distinct words in one bank
      // A phase serves 128 bytes: all 32 lanes of 4-byte accesses, 16 lanes of 8-byte ones, 8
      // lanes of 16-byte ones (each phase's lanes in order: lane / lanes_per_phase).
      std::uint32_t widest = 4;
      for (const auto& span : spans) widest = std::max(widest, span.second % 256);
      const std::uint32_t lanes_per_phase = 128 / std::min<std::uint32_t>(widest, 16);
      std::vector<std::pair<std::uint32_t, std::uintptr_t>> words;  // (phase, word), distinct
      words.reserve(spans.size());
      for (const auto& [word, lane_bytes] : spans) words.emplace_back(lane_bytes / 256 / lanes_per_phase, word);
      std::sort(words.begin(), words.end());
      words.erase(std::unique(words.begin(), words.end()), words.end());
      std::size_t i = 0;
      while (i < words.size()) {
        unsigned per_bank[32] = {};
        unsigned ways = 0;
        const std::uint32_t phase = words[i].first;
        for (; i < words.size() && words[i].first == phase; ++i)
          ways = std::max(ways, ++per_bank[words[i].second % 32]);
        tl_counters.shared_bank_conflicts += ways - 1;
      }
      ++tl_counters.shared_requests;
    }
  }
  b.groups.clear();
}

// A simulated thread's whole life on its fiber. Its last act is to switch TSan back to the
// scheduler's fiber (before_leaving), so the function entry and exit records of this file would not
// pair up (its own exit, and boost::context's frames around it, would be recorded on the
// scheduler's shadow stack, and a reused fiber state would keep the frames of the threads before):
// under ThreadSanitizer this file is built without them (CMakeLists.txt), its memory accesses still
// checked.
struct FiberMain {
  SimThread* t;
  Launch* l;
  Block* b;
  ctx::fiber operator()(ctx::fiber&& back) const {
    after_entering(t->marks);
    t->back = std::move(back);
    if (!b->aborting) {
      try {
        l->body(l->context);
      } catch (const BlockAborted&) {
        // torn down while it waited
      } catch (...) {
        t->error = std::current_exception();
      }
    }
    t->wait = Wait::Exited;
    before_leaving(t->marks, true);
    return std::move(t->back);
  }
};

void run_block(Launch& l, const Coordinates::U3& block_idx, const std::vector<unsigned>& order) {
  Block b;
  b.launch = &l;
  const LaunchConfig& cfg = l.config;
  const auto n = static_cast<unsigned>(cfg.block.count());
  b.linear = block_idx.x + cfg.grid.x * (block_idx.y + cfg.grid.y * block_idx.z);
  b.warp_generation.assign((n + 31) / 32, 0);
  if (tl_races) tl_races->shared.clear();  // this block's shared memory is its own
  for (unsigned i = 0; i < n; ++i) b.threads.emplace_back();
  for (unsigned i = 0; i < n; ++i) {
    SimThread& t = b.threads[i];
    t.linear = i;
    t.c.thread = {i % cfg.block.x, i / cfg.block.x % cfg.block.y, i / (cfg.block.x * cfg.block.y)};
    t.c.block = block_idx;
    t.c.block_dim = {cfg.block.x, cfg.block.y, cfg.block.z};
    t.c.grid_dim = {cfg.grid.x, cfg.grid.y, cfg.grid.z};
    t.fiber = ctx::fiber(std::allocator_arg, PooledStack{}, FiberMain{&t, &l, &b});
    t.marks.bottom = stack_pool().last_bottom;
    t.marks.size = kStackBytes;
  }
  tl_counters.threads += n;
  // The block's dynamic shared memory starts unwritten.
  if (l.shared.bytes) std::memset(l.shared.data, 0xff, l.shared.bytes);  // (memset of null is undefined)
  std::fill(l.shared.shadow.begin(), l.shared.shadow.end(), 0);
  for (;;) {
    // Resume the runnable threads in the order until none is left: a warp operation that
    // completes makes lanes runnable that the pass has gone by.
    bool ran = false;
    for (const unsigned i : order) {
      SimThread& t = b.threads[i];
      if (t.wait != Wait::Running) continue;
      ran = true;
      resume(b, t);
      if (t.error) {
        const std::exception_ptr error = t.error;
        abort_block(b);  // the other fibers end now, before the exception travels
        std::rethrow_exception(error);
      }
    }
    if (ran) continue;
    std::size_t exited = 0, at_warp = 0;
    const SimThread* stuck = nullptr;
    for (const SimThread& t : b.threads) {
      exited += t.wait == Wait::Exited;
      if (t.wait == Wait::Warp) {
        ++at_warp;
        if (!stuck) stuck = &t;
      }
    }
    if (exited == n) {
      for (const SimThread& t : b.threads)
        tl_counters.max_thread_shared_loads = std::max(tl_counters.max_thread_shared_loads, t.shared_loads);
      count_groups(b);
      return;
    }
    if (at_warp > 0) {
      // Some lane that the warp operation waits for will never come: name it.
      const unsigned base = stuck->linear - lane_of(*stuck);
      std::string why;
      for (unsigned l2 = 0; l2 < 32 && why.empty(); ++l2) {
        if (!(stuck->mask >> l2 & 1u)) continue;
        const SimThread& t = b.threads[base + l2];
        if (!(t.wait == Wait::Warp && t.mask == stuck->mask))
          why = "lane " + std::to_string(l2) + " (" + thread_name(t) + "), which " + what_lane_does(t);
      }
      fail_block(b, block_name(b) + ", " + thread_name(*stuck) + ": the warp operation at " + site(stuck->site) +
                        " has mask " + hex(stuck->mask) + ", which names " + why +
                        " (on a GPU this hangs or is undefined: is it inside an `if` that not every lane enters?)");
    }
    check_barrier_and_release(b);
  }
}

std::vector<unsigned> order_of(std::size_t n, int k) {
  std::vector<unsigned> order(n);
  std::iota(order.begin(), order.end(), 0u);
  if (k == 1) std::reverse(order.begin(), order.end());
  if (k >= 2) std::shuffle(order.begin(), order.end(), std::mt19937(static_cast<unsigned>(k)));
  return order;
}

std::string order_name(int k) {
  return k == 0 ? "forward order" : k == 1 ? "reverse order" : "shuffled order " + std::to_string(k - 1);
}

void run_all_blocks(Launch& l, int k) {
  const LaunchConfig& c = l.config;
  const auto blocks = order_of(static_cast<std::size_t>(c.grid.count()), k);
  const auto threads = order_of(static_cast<std::size_t>(c.block.count()), k);
  for (const unsigned i : blocks)
    run_block(l, {i % c.grid.x, i / c.grid.x % c.grid.y, i / (c.grid.x * c.grid.y)}, threads);
}

struct Snapshot {
  Allocation* a;
  std::vector<std::byte> data;
  std::vector<std::uint8_t> shadow;
};

std::vector<Snapshot> take_snapshot(const std::vector<Allocation*>& touched) {
  std::vector<Allocation*> which = touched.empty() ? live_allocations() : touched;
  std::sort(which.begin(), which.end());
  which.erase(std::unique(which.begin(), which.end()), which.end());
  std::vector<Snapshot> s;
  for (Allocation* a : which)
    if (!a->freed) s.push_back({a, std::vector<std::byte>(a->data, a->data + a->bytes), a->shadow});
  return s;
}

void restore(const std::vector<Snapshot>& s) {
  for (const auto& x : s) {
    std::copy(x.data.begin(), x.data.end(), x.a->data);
    x.a->shadow = x.shadow;
  }
}

std::string element_value(const Allocation& a, const std::byte* data, std::size_t element) {
  const std::byte* p = data + element * a.element_size;
  std::ostringstream s;
  if (a.type == "float") {
    float v;
    std::memcpy(&v, p, 4);
    s << v;
  } else if (a.type == "double") {
    double v;
    std::memcpy(&v, p, 8);
    s << v;
  } else if (a.type == "int") {
    int v;
    std::memcpy(&v, p, 4);
    s << v;
  } else {
    s << "0x" << std::hex;
    for (std::size_t b = 0; b < a.element_size; ++b) s << static_cast<int>(p[b]);
  }
  return s.str();
}

// ---- a signal inside a kernel names where it happened -------------------------------------------
// A kernel that divides an integer by zero, dereferences a host pointer or overflows its fiber's
// stack gets a signal, and the process dies with it. While a launch runs, a handler first writes
// one line naming the kernel, the block and the thread (async-signal-safe: write(2) of digits
// formatted by hand), then lets the signal take its course. It runs on a stack of its own, so that
// a fiber's overflowed stack can still report.
constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};

void write_text(const char* s) {
  std::size_t n = 0;
  while (s[n]) ++n;
  ssize_t ignored = ::write(2, s, n);
  (void)ignored;
}
void write_number(unsigned v) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v && n < 16);
  char out[16];
  for (int i = 0; i < n; ++i) out[i] = digits[n - 1 - i];
  out[n] = 0;
  write_text(out);
}
void write_xyz(const Coordinates::U3& u) {
  write_text("(");
  write_number(u.x);
  write_text(", ");
  write_number(u.y);
  write_text(", ");
  write_number(u.z);
  write_text(")");
}

void on_fault(int sig) {
  const SimThread* t = tl_thread;
  const Block* b = tl_block;
  if (!t || !b) {  // not inside a kernel's thread: nothing to add
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  write_text("\nkindling: signal ");
  write_text(sig == SIGSEGV  ? "SIGSEGV (an invalid memory access: a host pointer, or a fiber's stack overflowed?)"
             : sig == SIGFPE ? "SIGFPE (an integer divided by zero?)"
             : sig == SIGBUS ? "SIGBUS (a misaligned or invalid memory access)"
                             : "SIGILL (an illegal instruction)");
  write_text(" inside kernel ");
  write_text(b->launch->kernel);
  write_text(", block ");
  write_xyz(t->c.block);
  write_text(", thread ");
  write_xyz(t->c.thread);
  write_text("\n");
  std::signal(sig, SIG_DFL);  // then the default action: the process dies of this signal
  std::raise(sig);
}

// Installs on_fault for the launches of this process (once), with an alternate stack per thread.
struct FaultReport {
  FaultReport() {
    static std::once_flag once;
    std::call_once(once, [] {
      struct sigaction sa {};
      sa.sa_handler = on_fault;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
      for (const int sig : kFaultSignals) {
        struct sigaction previous {};
        ::sigaction(sig, nullptr, &previous);
        if (previous.sa_handler == SIG_DFL) ::sigaction(sig, &sa, nullptr);  // a sanitizer's own stays
      }
    });
    thread_local std::vector<char> alt(static_cast<std::size_t>(64 * 1024));
    thread_local bool installed = false;
    if (!installed) {
      // Only where the thread has none: a sanitizer gives each thread its own, and unmaps
      // whatever stack is installed when the thread ends (ASan aborted on this vector).
      stack_t current{};
      ::sigaltstack(nullptr, &current);
      if (current.ss_flags & SS_DISABLE) {
        stack_t ss{};
        ss.ss_sp = alt.data();
        ss.ss_size = alt.size();
        ::sigaltstack(&ss, nullptr);
      }
      installed = true;
    }
  }
};

}  // namespace

// ---- the interface -----------------------------------------------------------------------------
std::string where_now() {
  if (!tl_thread || !tl_block) return "host code";
  return block_name(*tl_block) + ", " + thread_name(*tl_thread);
}

const Coordinates& coords() {
  if (!tl_thread) throw KernelError("threadIdx, blockIdx, blockDim and gridDim exist only inside a kernel");
  return tl_thread->c;
}

Counters& counters() { return tl_counters; }
void record_trace(bool on) {
  tl_tracing = on;
  if (on) tl_trace.clear();
}
const std::vector<TracedEvent>& trace() { return tl_trace; }

Counters last_counters() {
  std::lock_guard lock(launch_mutex());
  return g_last;
}

Allocation* dynamic_shared() {
  if (!tl_block) throw KernelError("dynamic shared memory exists only inside a kernel");
  return &tl_block->launch->shared;
}

Allocation* static_shared(const void* tag, std::size_t bytes, std::size_t element_size, const char* element_type,
                          const char* name, const std::string& type) {
  Block* b = tl_block;
  if (!b || !tl_thread) throw KernelError(std::string("the shared array ") + name + " exists only inside a kernel");
  for (StaticShared& s : b->statics)
    if (s.tag == tag) return &s.allocation;
  // CUDA's limit: 48 KiB of static shared memory per block.
  constexpr std::size_t kStaticLimit = 48 * 1024;
  if (b->static_bytes + bytes > kStaticLimit)
    throw KernelError(where_now() + ": the shared array " + name + " (" + type + ", " + std::to_string(bytes) +
                      " bytes) takes the block's static shared memory to " + std::to_string(b->static_bytes + bytes) +
                      " bytes, beyond CUDA's 48 KiB (49152 bytes) per block");
  b->static_bytes += bytes;
  StaticShared& s = b->statics.emplace_back();
  s.tag = tag;
  s.bytes.assign(bytes, std::byte{0xff});  // unwritten: a read before a write is reported
  s.allocation.data = s.bytes.data();
  s.allocation.bytes = bytes;
  s.allocation.element_size = element_size;
  s.allocation.type = element_type;
  s.allocation.shared = true;
  s.allocation.name = std::string(name) + ", " + type;
  s.allocation.shadow.assign(bytes, 0);
  return &s.allocation;
}

void shared_index_error(const Allocation* a, std::int64_t index, std::int64_t extent) {
  throw KernelError(where_now() + ": index " + std::to_string(index) + " is out of bounds for a dimension of size " +
                    std::to_string(extent) + " of " + a->describe() +
                    ": is the bounds guard missing, or off by one? (On a GPU it reads or writes another element, "
                    "or another array, silently.)");
}

AtomicScope::AtomicScope() {
  if (tl_thread) ++tl_thread->atomic_depth;
}
AtomicScope::~AtomicScope() {
  if (tl_thread) --tl_thread->atomic_depth;
}

namespace {

Access access_now(const Block& b, const SimThread& t) {
  Access a;
  a.valid = true;
  a.block = b.linear;
  a.thread = t.linear;
  a.epoch = b.epoch;
  a.warp_generation = b.warp_generation[t.linear / 32];
  a.block_idx = t.c.block;
  a.thread_idx = t.c.thread;
  a.since_file = t.since_file;
  a.since_line = t.since_line;
  return a;
}

// Whether `earlier` is ordered before the running thread's access `now` (no race between them).
bool ordered(const Access& earlier, const Access& now, const Block& b) {
  if (earlier.block != now.block) return false;  // blocks are never ordered inside a launch
  if (earlier.thread == now.thread) return true;
  if (earlier.epoch != b.epoch) return true;  // a __syncthreads between them
  return earlier.thread / 32 == now.thread / 32 && earlier.warp_generation != b.warp_generation[now.thread / 32];
}

std::string who(const Access& a) { return "thread " + xyz(a.thread_idx) + " of block " + xyz(a.block_idx); }
std::string interval(const Access& a) {
  if (!a.since_file) return "since the kernel began";
  std::string file = a.since_file;
  if (const auto slash = file.rfind('/'); slash != std::string::npos) file = file.substr(slash + 1);
  return "after the __syncthreads at " + file + ":" + std::to_string(a.since_line);
}

enum class Hazard { ReadAfterWrite, WriteAfterRead, WriteAfterWrite };

[[noreturn]] void report_race(const Allocation& a, std::int64_t offset, Hazard h, const Access& first,
                              const Access& second) {
  const char* first_verb = h == Hazard::WriteAfterRead ? "read" : "wrote";
  const char* second_verb = h == Hazard::ReadAfterWrite ? "reads" : "writes";
  const char* kind = h == Hazard::ReadAfterWrite   ? "a read after a write"
                     : h == Hazard::WriteAfterRead ? "a write after a read"
                                                   : "two writes of different values";
  std::string where = interval(first) == interval(second)
                          ? "both " + interval(first)
                          : "the first " + interval(first) + ", the second " + interval(second);
  std::string fix;
  if (first.block != second.block)
    fix =
        "threads of different blocks are never ordered inside a launch: give each element one block, use an "
        "atomic, or split the work into two launches";
  else if (h == Hazard::ReadAfterWrite)
    fix =
        "a __syncthreads missing between the write and the read? If every thread adds into the element "
        "(x = x + v), updates are lost on a GPU: use atomicAdd, or a reduction";
  else if (h == Hazard::WriteAfterRead)
    fix =
        "a __syncthreads missing after the reads, before the next writes? A slower thread may still read "
        "the old value when it is overwritten";
  else
    fix = "which value remains depends on the order: give each element one writer, or use an atomic";
  throw KernelError(std::string("kernel ") + tl_block->launch->kernel + ": a data race on element " +
                    std::to_string(offset / static_cast<std::int64_t>(a.element_size)) + " of " + a.describe() + ": " +
                    who(first) + " " + first_verb + " it, then " + who(second) + " " + second_verb +
                    " it, with nothing between them that orders the two (" + where + "): " + kind +
                    ". On a GPU the threads run in any order (" + fix + ")");
}

// The race check of one access (note_access): against the other threads' accesses of the same
// bytes in this barrier interval.
void check_race(const SimThread& t, Allocation* a, std::int64_t offset, std::size_t bytes, bool write,
                const void* value) {
  const Block& b = *tl_block;
  Cell& cell = (a->shared ? tl_races->shared : tl_races->global)[a][offset];
  const Access now = access_now(b, t);
  if (!write) {
    if (cell.write.valid && !ordered(cell.write, now, b))
      report_race(*a, offset, Hazard::ReadAfterWrite, cell.write, now);
    if (cell.read.valid && cell.read.thread != now.thread) cell.other_read = cell.read;
    cell.read = now;
    return;
  }
  for (const Access* r : {&cell.read, &cell.other_read})
    if (r->valid && !ordered(*r, now, b)) report_race(*a, offset, Hazard::WriteAfterRead, *r, now);
  if (cell.write.valid && !ordered(cell.write, now, b) &&
      std::memcmp(a->data + offset, value, bytes) != 0)  // the same value again changes nothing
    report_race(*a, offset, Hazard::WriteAfterWrite, cell.write, now);
  cell.write = now;
  cell.read.valid = cell.other_read.valid = false;
}

}  // namespace

void note_access(Allocation* a, std::int64_t offset, std::size_t bytes, bool write, const void* value) {
  SimThread* t = tl_thread;
  if (a->shared) {
    ++(write ? tl_counters.shared_stores : tl_counters.shared_loads);
    if (t && !write) ++t->shared_loads;
  } else {
    ++(write ? tl_counters.global_stores : tl_counters.global_loads);
  }
  if (t && tl_races && tl_tracing) {
    TracedEvent e;
    e.kind = write ? TracedEvent::Kind::Store : TracedEvent::Kind::Load;
    e.block = t->c.block;
    e.thread = t->c.thread;
    e.linear = t->linear;
    e.interval = tl_block->epoch;
    e.shared = a->shared;
    if (a->shared)
      e.array = a->name.substr(0, a->name.find(','));
    else
      e.allocation = a->id;
    e.element = offset / static_cast<std::int64_t>(a->element_size);
    tl_trace.push_back(std::move(e));
  }
  if (t && tl_races) {
    // The i-th load (or store) of each lane of the warp: one group, as the hardware coalesces.
    // (Counted with the race check, in a launch's first order: the engine's own kernels, which
    // run in one order, pay for neither.)
    const unsigned kind = (a->shared ? 2u : 0u) | (write ? 1u : 0u);
    const std::uint64_t key = (std::uint64_t{t->accesses[kind]++} << 32) | (std::uint64_t{t->linear / 32} << 2) | kind;
    auto& spans = tl_block->groups[key].spans;
    if (a->shared) {  // the 4-byte words, from the start of the array (arrays start at bank 0)
      const auto lane_bytes = static_cast<std::uint32_t>((t->linear % 32) * 256 + std::min<std::size_t>(bytes, 255));
      for (std::int64_t w = offset / 4; w <= (offset + static_cast<std::int64_t>(bytes) - 1) / 4; ++w)
        spans.emplace_back(static_cast<std::uintptr_t>(w), lane_bytes);
    } else {
      spans.emplace_back(reinterpret_cast<std::uintptr_t>(a->data) + static_cast<std::uintptr_t>(offset),
                         static_cast<std::uint32_t>(bytes));
    }
  }
  if (!tl_races || !t || t->atomic_depth > 0) return;
  if (bytes == 16) {  // a float4: each of its floats against the other threads' accesses of it
    for (std::int64_t w = 0; w < 4; ++w)
      check_race(*t, a, offset + 4 * w, 4, write, write ? static_cast<const std::byte*>(value) + 4 * w : nullptr);
    return;
  }
  check_race(*t, a, offset, bytes, write, value);
}

int barrier(int predicate, int mode, const std::source_location& where) {
  SimThread* t = tl_thread;
  if (!t) throw KernelError("__syncthreads called outside a kernel");
  t->wait = Wait::Barrier;
  t->site = where;
  t->predicate = predicate;
  t->mode = mode;
  yield_to_scheduler();
  return t->result;
}

std::uint64_t warp_op(unsigned mask, int op, std::uint64_t value, int arg, int width,
                      const std::source_location& where) {
  SimThread* t = tl_thread;
  Block* b = tl_block;
  if (!t) throw KernelError("warp operations exist only inside a kernel");
  const unsigned lane = lane_of(*t);
  if (!(mask >> lane & 1u))
    throw KernelError(where_now() + ": the warp operation at " + site(where) + " has mask " + hex(mask) +
                      ", which leaves out the calling lane " + std::to_string(lane));
  if (width < 1 || width > 32 || (width & (width - 1)) != 0)
    throw KernelError(where_now() + ": the shuffle at " + site(where) + " has width " + std::to_string(width) +
                      ", which is not a power of 2 from 1 to 32");
  const unsigned base = t->linear - lane;
  for (unsigned l = 0; l < 32; ++l) {
    if (!(mask >> l & 1u)) continue;
    if (base + l >= b->threads.size())
      throw KernelError(where_now() + ": the warp operation at " + site(where) + " has mask " + hex(mask) +
                        ", which names lane " + std::to_string(l) + ", but the block has only " +
                        std::to_string(b->threads.size()) + " threads");
    if (b->threads[base + l].wait == Wait::Exited)
      throw KernelError(where_now() + ": the warp operation at " + site(where) + " has mask " + hex(mask) +
                        ", which names lane " + std::to_string(l) + " (" + thread_name(b->threads[base + l]) +
                        "), which has exited: a lane reading its value gets an undefined one on a GPU (CUDA asks "
                        "only the mask's lanes that have not exited to take part; the simulator refuses the mask: is "
                        "the shuffle inside an `if` that not every lane enters?)");
  }
  if (tl_races && tl_tracing) {
    TracedEvent e;
    e.kind = TracedEvent::Kind::Warp;
    e.block = t->c.block;
    e.thread = t->c.thread;
    e.linear = t->linear;
    e.interval = b->epoch;
    e.op = op;
    e.arg = arg;
    tl_trace.push_back(std::move(e));
  }
  t->mask = mask;
  t->op = op;
  t->value = value;
  t->arg = arg;
  t->width = width;
  t->site = where;
  if (!try_complete_warp(*b, *t)) {
    t->wait = Wait::Warp;
    yield_to_scheduler();
  }
  return t->warp_result;
}

unsigned active_mask() {
  SimThread* t = tl_thread;
  if (!t) throw KernelError("__activemask called outside a kernel");
  const unsigned base = t->linear - lane_of(*t);
  unsigned m = 0;
  for (unsigned l = 0; l < 32 && base + l < tl_block->threads.size(); ++l)
    if (tl_block->threads[base + l].wait != Wait::Exited) m |= 1u << l;
  return m;
}

void set_race_check_orders(int orders) {
  std::lock_guard lock(launch_mutex());
  g_orders = std::max(1, orders);
}
namespace {
thread_local int tl_orders_override = 0;
}
int race_check_orders() {
  if (tl_orders_override > 0) return tl_orders_override;
  std::lock_guard lock(launch_mutex());
  return g_orders;
}
ScopedRaceCheckOrders::ScopedRaceCheckOrders(int orders) : saved_(tl_orders_override) {
  tl_orders_override = std::max(1, orders);
}
ScopedRaceCheckOrders::~ScopedRaceCheckOrders() { tl_orders_override = saved_; }

std::string kernel_name_from(const char* pretty) {
  // GCC: "... [with auto Kernel = fixtures::add; Args = {...}]", the name as the launch wrote it;
  // Clang: "... [Kernel = &kindling::cuda::fixtures::add, Args = <...>]", the whole name, of which
  // the kit's own namespace is dropped so that both name the kit's kernels alike.
  std::string s = pretty;
  const auto at = s.find("Kernel = ");
  if (at == std::string::npos) return "a kernel";
  std::size_t begin = at + 9;
  if (begin < s.size() && s[begin] == '&') ++begin;
  const auto end = s.find_first_of(";,]", begin);
  std::string name = s.substr(begin, end - begin);
  if (constexpr std::string_view kit = "kindling::cuda::"; name.starts_with(kit) && name.size() > kit.size())
    name.erase(0, kit.size());
  return name;
}

static thread_local int tl_thread_order = 0;
int thread_order() { return tl_thread_order; }
ScopedThreadOrder::ScopedThreadOrder(int order) : saved_(tl_thread_order) { tl_thread_order = std::max(0, order); }
ScopedThreadOrder::~ScopedThreadOrder() { tl_thread_order = saved_; }

void run_grid(const char* kernel, const LaunchConfig& config, void (*body)(void*), void* context,
              const std::vector<Allocation*>& touched, int orders_at_launch, int single_order) {
  if (const std::string why = check_launch_config(config); !why.empty())
    throw Error(std::string("kernel ") + kernel + ": invalid launch configuration: " + why);
  if (tl_thread) throw KernelError(where_now() + ": a kernel cannot launch another kernel here");
  const FaultReport fault_report;
  std::lock_guard lock(launch_mutex());
  Launch l;
  l.kernel = kernel;
  l.config = config;
  l.body = body;
  l.context = context;
  std::vector<std::byte> shared_bytes(config.shared_bytes);
  l.shared.data = shared_bytes.data();
  l.shared.bytes = config.shared_bytes;
  l.shared.shadow.assign(config.shared_bytes, 0);
  l.shared.shared = true;
  l.shared.type = "byte";
  struct Restore {
    ~Restore() {
      tl_thread = nullptr;
      tl_block = nullptr;
      tl_races = nullptr;
    }
  } restore_tl;
  const int orders = orders_at_launch > 0 ? orders_at_launch : g_orders;
  tl_counters = {};
  if (orders <= 1) {
    run_all_blocks(l, single_order);
    g_last = tl_counters;
    return;
  }
  const std::vector<Snapshot> before = take_snapshot(touched);
  {
    // The first order also checks every access against the others of its barrier interval.
    RaceCheck races;
    tl_races = &races;
    run_all_blocks(l, 0);
    tl_races = nullptr;
  }
  g_last = tl_counters;
  const std::vector<Snapshot> first = take_snapshot(touched);
  for (int k = 1; k < orders; ++k) {
    restore(before);
    run_all_blocks(l, k);
    for (const Snapshot& f : first) {
      const Allocation& a = *f.a;
      for (std::size_t i = 0; i < a.bytes; ++i) {
        const bool written = (f.shadow[i] | a.shadow[i]) & Allocation::kWritten;
        const bool atomic = (f.shadow[i] | a.shadow[i]) & Allocation::kAtomic;
        if (!written || atomic) continue;
        if (f.shadow[i] == a.shadow[i] && f.data[i] == a.data[i]) continue;
        const std::size_t e = i / a.element_size;
        const bool f_written = f.shadow[i] & Allocation::kWritten, a_written = a.shadow[i] & Allocation::kWritten;
        throw KernelError(
            std::string("kernel ") + kernel + ": its result depends on the order in which threads run: element " +
            std::to_string(e) + " of " + a.describe() + " is " +
            (f_written ? element_value(a, f.data.data(), e) : std::string("not written")) + " when they run in " +
            order_name(0) + " and " + (a_written ? element_value(a, a.data, e) : std::string("not written")) + " in " +
            order_name(k) +
            " (a __syncthreads missing between a write to shared memory and a read of it, or "
            "threads of different blocks writing the same element?)");
      }
    }
  }
}

}  // namespace kindling::cuda::sim
