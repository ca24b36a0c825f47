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

#include <algorithm>
#include <boost/context/fiber.hpp>
#include <deque>
#include <exception>
#include <mutex>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>

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

void marks_create(FiberMarks& m) {
#if defined(KINDLING_SIM_TSAN)
  m.tsan = __tsan_create_fiber(0);
#else
  (void)m;
#endif
}
void marks_destroy(FiberMarks& m) {
#if defined(KINDLING_SIM_TSAN)
  __tsan_destroy_fiber(m.tsan);
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

struct Block {
  bool aborting = false;
  Launch* launch = nullptr;
  std::deque<SimThread> threads;  // never moved: fibers hold their addresses
};

thread_local SimThread* tl_thread = nullptr;
thread_local Block* tl_block = nullptr;
thread_local Counters tl_counters;

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
  for (SimThread& t : b.threads) {
    t.result = result;
    t.wait = Wait::Running;
  }
}

void run_block(Launch& l, const Coordinates::U3& block_idx, const std::vector<unsigned>& order) {
  Block b;
  b.launch = &l;
  const LaunchConfig& cfg = l.config;
  const auto n = static_cast<unsigned>(cfg.block.count());
  for (unsigned i = 0; i < n; ++i) b.threads.emplace_back();
  for (unsigned i = 0; i < n; ++i) {
    SimThread& t = b.threads[i];
    t.linear = i;
    t.c.thread = {i % cfg.block.x, i / cfg.block.x % cfg.block.y, i / (cfg.block.x * cfg.block.y)};
    t.c.block = block_idx;
    t.c.block_dim = {cfg.block.x, cfg.block.y, cfg.block.z};
    t.c.grid_dim = {cfg.grid.x, cfg.grid.y, cfg.grid.z};
    t.fiber = ctx::fiber(std::allocator_arg, PooledStack{}, [&t, &l, &b](ctx::fiber&& back) {
      after_entering(t.marks);
      t.back = std::move(back);
      if (!b.aborting) {
        try {
          l.body(l.context);
        } catch (const BlockAborted&) {
          // torn down while it waited
        } catch (...) {
          t.error = std::current_exception();
        }
      }
      t.wait = Wait::Exited;
      before_leaving(t.marks, true);
      return std::move(t.back);
    });
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
    if (exited == n) return;
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
Counters last_counters() {
  std::lock_guard lock(launch_mutex());
  return g_last;
}

Allocation* dynamic_shared() {
  if (!tl_block) throw KernelError("dynamic shared memory exists only inside a kernel");
  return &tl_block->launch->shared;
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
                        "), which has exited (on a GPU this hangs or is undefined: is the shuffle inside an `if` "
                        "that not every lane enters?)");
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
  // GCC: "... [with auto Kernel = add; Args = {...}]"; Clang: "... [Kernel = &add, Args = <...>]".
  std::string s = pretty;
  const auto at = s.find("Kernel = ");
  if (at == std::string::npos) return "a kernel";
  std::size_t begin = at + 9;
  if (begin < s.size() && s[begin] == '&') ++begin;
  const auto end = s.find_first_of(";,]", begin);
  return s.substr(begin, end - begin);
}

void run_grid(const char* kernel, const LaunchConfig& config, void (*body)(void*), void* context,
              const std::vector<Allocation*>& touched, int orders_at_launch) {
  if (const std::string why = check_launch_config(config); !why.empty())
    throw Error(std::string("kernel ") + kernel + ": invalid launch configuration: " + why);
  if (tl_thread) throw KernelError(where_now() + ": a kernel cannot launch another kernel here");
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
    }
  } restore_tl;
  const int orders = orders_at_launch > 0 ? orders_at_launch : g_orders;
  tl_counters = {};
  if (orders <= 1) {
    run_all_blocks(l, 0);
    g_last = tl_counters;
    return;
  }
  const std::vector<Snapshot> before = take_snapshot(touched);
  run_all_blocks(l, 0);
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
