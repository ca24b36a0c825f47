#pragma once
/// @file sim.hpp
/// The CUDA simulator's side of a kernel file: CUDA's built-ins for the host compiler, a
/// checked device pointer, and `launch`. Included through <kindling/cuda/kernel.hpp> when
/// nvcc is not the compiler; never under nvcc.
///
/// How a launch runs: one block at a time; each CUDA thread of the block is a fiber (its own
/// stack, switched in user space), and the kit's scheduler resumes the block's threads one
/// after another until each exits or waits (at `__syncthreads`, or at a warp operation). When
/// every thread waits, the scheduler checks that they wait at the same barrier, and releases
/// them. A launch is run several times, in different thread orders (forward, reverse,
/// shuffled), from the same snapshot of device memory: a result that depends on the order is
/// a race, reported as one. While it runs in the first order, every access is also checked
/// against the others of its barrier interval (compute-sanitizer racecheck's definition, on
/// global and shared memory): two threads, at least one writing, no __syncthreads (or, within a
/// warp, no warp operation of the whole warp) between them, and neither an atomic, is a data
/// race, reported with both accesses, even where every order happens to give the same result
/// (a lost update such as `count[0] = count[0] + 1`). What it cannot tell you: speed,
/// occupancy, the memory model.
///
/// Static shared arrays are declared with `KINDLING_SHARED(float[32][32], tile);` (under nvcc
/// `__shared__ float tile[32][32];`): each block gets its own, unwritten at the start of the
/// block, bounds-checked in every dimension. A plain `__shared__` does not compile here: the
/// simulator could not check it.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <source_location>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <kindling/cuda/launch_config.hpp>
#include <kindling/cuda/runtime.hpp>
#include <kindling/error.hpp>

/// @cond CUDA_BUILTINS
// CUDA's float4 (vector_types.h): four floats that one instruction loads or stores, aligned on
// 16 bytes. In the global namespace, as CUDA declares it.
struct alignas(16) float4 {
  float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
/// @endcond

namespace kindling::cuda {

/// A kernel did something CUDA leaves undefined (or that hangs a GPU): the message names
/// the kernel, the block, the thread and what happened.
class KernelError : public Error {
 public:
  using Error::Error;
};

namespace sim {

/// One device allocation of the simulated device. Records outlive the memory (a freed
/// allocation keeps its record, so that a later access is reported as a use after free).
/// A block's shared memory is an Allocation too (`shared`), made for the block.
struct Allocation {
  std::uint64_t id = 0;                        ///< 1, 2, ... in allocation order
  std::byte* data = nullptr;                   ///< the bytes (null once freed)
  std::size_t bytes = 0;                       ///< its size
  std::size_t element_size = 1;                ///< of the type it was allocated as
  std::string type;                            ///< that type's name ("float"), for messages
  bool freed = false;                          ///< cudaFree'd
  bool shared = false;                         ///< a block's shared memory (dynamic, or `name`)
  std::string name;                            ///< a static shared array's name and type ("tile, float[32][32]")
  std::vector<std::uint8_t> shadow;            ///< per byte: kWritten, kAtomic
  static constexpr std::uint8_t kWritten = 1;  ///< shadow bit: the byte was written
  static constexpr std::uint8_t kAtomic = 2;   ///< shadow bit: an atomic touched it (not compared for races)
  /// "allocation #3 (256 floats)", "the block's dynamic shared memory (64 floats)" or "the
  /// block's shared array tile (float[32][32])".
  std::string describe() const;
};

/// A new allocation of `bytes` (poisoned: never written), as `type`.
Allocation* allocate(std::size_t bytes, std::size_t element_size, const std::string& type);
/// Frees it (its record stays, marked freed; its bytes stay in a quarantine of 64 MiB, so that
/// a stale pointer into it is still found). Freeing twice is a KernelError.
void release(Allocation* a);
/// The allocation (live or quarantined) that holds the device address `address`, and the byte
/// offset into it; null when no allocation does. One past the end belongs to the allocation.
Allocation* find(const void* address, std::size_t* offset);
/// Throws KernelError when the host reads device memory while work is still queued on a
/// stream (the missing synchronisation that lazy streams make visible). `what` names the read.
void check_no_pending_work(const char* what);
/// Bytes allocated and not freed, and the cap beyond which allocate() fails with CUDA's
/// out-of-memory error.
std::size_t bytes_in_use();
/// Sets the simulated device's capacity (default 1 GiB).
void set_capacity(std::size_t bytes);
/// Copies host bytes into an allocation (they count as written).
void copy_to_device(Allocation* a, std::size_t offset, const void* src, std::size_t bytes);
/// Copies an allocation's bytes to the host; each must have been written.
void copy_to_host(void* dst, const Allocation* a, std::size_t offset, std::size_t bytes);
/// cudaMemset: `bytes` bytes of value `value` from `offset` (they count as written).
void set_bytes(Allocation* a, std::size_t offset, int value, std::size_t bytes);

/// Reports a bad access (out of bounds, freed, never written) from the running kernel or the
/// host. Never returns.
[[noreturn]] void access_error(const Allocation* a, std::int64_t offset, std::size_t bytes, bool write);
/// Reports an access of `bytes` bytes that does not start on a multiple of `align` (a float4
/// read through a pointer 4 bytes past a 16-byte boundary): CUDA's "misaligned address". Never
/// returns.
[[noreturn]] void misaligned_error(const Allocation* a, std::int64_t offset, std::size_t bytes, std::size_t align,
                                   bool write);
/// Marks bytes written (and, for an atomic, excluded from the race check's comparison).
void mark(Allocation* a, std::int64_t offset, std::size_t bytes, std::uint8_t bits);
/// Every checked access of a kernel passes here, before it happens: it counts the access
/// (counters()) and, while the launch's accesses are tracked, checks it against the other
/// threads' accesses of its barrier interval (a data race is a KernelError naming both).
/// `value`: the bytes a write stores (a write of the value already there by another thread is
/// no race: every order gives the same result).
void note_access(Allocation* a, std::int64_t offset, std::size_t bytes, bool write, const void* value);
/// For its lifetime, this simulated thread's accesses are an atomic's: not checked for races.
class AtomicScope {
 public:
  AtomicScope();
  ~AtomicScope();
  AtomicScope(const AtomicScope&) = delete;
  AtomicScope& operator=(const AtomicScope&) = delete;
};

/// The running thread's position, as CUDA's built-ins give it.
struct Coordinates {
  /// CUDA's uint3.
  struct U3 {
    unsigned x;  ///< along x
    unsigned y;  ///< along y
    unsigned z;  ///< along z
  };
  U3 thread;     ///< threadIdx
  U3 block;      ///< blockIdx
  U3 block_dim;  ///< blockDim
  U3 grid_dim;   ///< gridDim
};
/// Of the simulated thread running now; throws KernelError outside a kernel.
const Coordinates& coords();

/// __syncthreads and its counting forms: waits until every thread of the block arrives at this
/// barrier (the site identifies it). Returns the count, and or or of `predicate`.
int barrier(int predicate, int mode, const std::source_location& where);
/// A warp operation: waits until every lane in `mask` arrives at a warp operation with the
/// same mask, then returns this lane's result. `op`: 0 sync, 1 shfl (arg: src lane),
/// 2 shfl_up (delta), 3 shfl_down (delta), 4 shfl_xor (lane mask), 5 ballot.
std::uint64_t warp_op(unsigned mask, int op, std::uint64_t value, int arg, int width,
                      const std::source_location& where);
/// The lanes of the running thread's warp that have not exited.
unsigned active_mask();

/// The bytes and name of a launch, and its body (the kernel call with its arguments). `touched`
/// lists the allocations the kernel's pointer arguments name: the race check compares those
/// (all live allocations when empty).
/// `orders`: the thread orders to run (race_check_orders() when the launch was issued; 0: now).
/// `single_order`: the order a launch of one order runs in (thread_order() when it was issued).
void run_grid(const char* kernel, const LaunchConfig& config, void (*body)(void*), void* context,
              const std::vector<Allocation*>& touched = {}, int orders = 0, int single_order = 0);
/// Checks `config` (sets the runtime's last error and throws CudaError when it is beyond CUDA's
/// limits), then queues `run` on the stream of `config`: the runtime runs it when the stream's
/// mode says (at once, or when the host synchronises).
void enqueue_launch(const std::string& kernel, const LaunchConfig& config, std::function<void()> run);

/// How many thread orders each launch is run in (1: no race check). Default 3.
void set_race_check_orders(int orders);
/// The number of orders a launch issued now runs in: set_race_check_orders's, unless a
/// ScopedRaceCheckOrders on this thread says otherwise.
int race_check_orders();
/// For its lifetime, launches issued by this thread run in `orders` thread orders (the engine's
/// own kernels run in one: their results do not depend on the order, and they are many).
class ScopedRaceCheckOrders {
 public:
  /// Sets the number for this thread.
  explicit ScopedRaceCheckOrders(int orders);
  /// Restores the previous number.
  ~ScopedRaceCheckOrders();
  ScopedRaceCheckOrders(const ScopedRaceCheckOrders&) = delete;
  ScopedRaceCheckOrders& operator=(const ScopedRaceCheckOrders&) = delete;

 private:
  int saved_;
};

/// The order in which a launch of one thread order (the engine's own kernels) runs its blocks and
/// threads: 0 forward (the default), 1 reverse, k >= 2 a shuffle seeded by k. A GPU runs them in
/// an order of its own that changes from run to run; this is how a test shows what that does to a
/// result (an atomic float sum's last bits) on the simulator.
int thread_order();
/// For its lifetime, launches of one order issued by this thread run in `order` (thread_order()).
class ScopedThreadOrder {
 public:
  /// Sets the order for this thread.
  explicit ScopedThreadOrder(int order);
  /// Restores the previous one.
  ~ScopedThreadOrder();
  ScopedThreadOrder(const ScopedThreadOrder&) = delete;
  ScopedThreadOrder& operator=(const ScopedThreadOrder&) = delete;

 private:
  int saved_;
};

/// The running block's dynamic shared memory.
Allocation* dynamic_shared();
/// The running block's static shared array declared at `tag` (KINDLING_SHARED): made, unwritten,
/// the first time a thread of the block reaches the declaration. `name` "tile", `type`
/// "float[32][32]". Throws KernelError when the block's static shared arrays would exceed 48 KiB.
Allocation* static_shared(const void* tag, std::size_t bytes, std::size_t element_size, const char* element_type,
                          const char* name, const std::string& type);
/// Reports an index out of a static shared array's dimension. Never returns.
[[noreturn]] void shared_index_error(const Allocation* a, std::int64_t index, std::int64_t extent);

/// Counters of the last launch, for grading on traffic instead of time.
struct Counters {
  /// Reads of device memory: one per load instruction of a thread (a float4 read, 16 bytes, counts
  /// one, as it is one instruction on a GPU; a float counts one too).
  std::uint64_t global_loads = 0;
  std::uint64_t global_stores = 0;            ///< writes of device memory (instructions, as global_loads)
  std::uint64_t shared_loads = 0;             ///< reads of shared memory (dynamic and static), as global_loads
  std::uint64_t shared_stores = 0;            ///< writes of shared memory, as global_loads
  std::uint64_t max_thread_shared_loads = 0;  ///< the most shared-memory reads of any one thread
  /// 32-byte sectors of global memory that the warps' accesses touched. A warp's accesses are
  /// grouped as the hardware coalesces them: the i-th load (or store) of each of its lanes.
  /// Counted, with the bank conflicts below, in launches that run in several thread orders (a
  /// task's kernels and the fixtures; the engine's own kernels run in one and count neither).
  std::uint64_t global_sectors = 0;
  /// The fewest sectors those same groups could touch: each group's distinct bytes, in whole
  /// 32-byte sectors (global_sectors / global_sectors_min is 1 for coalesced access, up to 8 for
  /// a warp of floats each in a sector of its own).
  std::uint64_t global_sectors_min = 0;
  /// Shared-memory bank conflicts: for each group (the i-th shared load or store of a warp's
  /// lanes), the most distinct 4-byte words that fall in one of the 32 banks, less one (lanes that
  /// read the same word share it). 0 when no two lanes of a group ever need one bank. Wider
  /// accesses are served in phases, as the hardware does: a warp's 8-byte accesses in two of 16
  /// lanes, its 16-byte (float4) accesses in four of 8 lanes; each phase counts its own extra turns
  /// (a float4 access by 32 lanes of consecutive float4s has none).
  std::uint64_t shared_bank_conflicts = 0;
  std::uint64_t shared_requests = 0;  ///< those shared-memory groups (warp-wide requests)
  std::uint64_t barriers = 0;         ///< __syncthreads completed by a block
  std::uint64_t threads = 0;          ///< threads run
  std::uint64_t switches = 0;         ///< times a thread waited and was resumed
};
/// Of the last launch (one order's worth).
Counters last_counters();
/// The running launch's counters (for DevPtr's accesses).
Counters& counters();

/// One event of a kernel's thread, as the trace records it (record_trace): a load or store of
/// device or shared memory, or a warp operation. The lecture's figures are drawn from these.
struct TracedEvent {
  /// What the thread did.
  enum class Kind : std::uint8_t {
    Load,   ///< read an element
    Store,  ///< wrote one
    Warp    ///< took part in a warp operation (a shuffle, vote or __syncwarp)
  };
  Kind kind = Kind::Load;        ///< what happened
  Coordinates::U3 block{};       ///< blockIdx of the thread
  Coordinates::U3 thread{};      ///< threadIdx of the thread
  unsigned linear = 0;           ///< the thread's index in its block, x fastest (lane = linear % 32)
  std::uint32_t interval = 0;    ///< __syncthreads its block had passed
  bool shared = false;           ///< shared memory (else device memory); loads and stores
  std::uint64_t allocation = 0;  ///< Allocation::id of device memory (find() names a pointer's)
  std::string array;             ///< shared memory: the static array's name, "" for dynamic
  std::int64_t element = 0;      ///< the element's index in its allocation or array
  int op = 0;                    ///< a warp operation's op (warp_op's numbering)
  int arg = 0;                   ///< and its argument (a shuffle's lane, delta or mask)
};
/// While on, the launches that run on this host thread (the lazy and eager modes run them on the
/// thread that synchronises or issues) append each event of their first thread order
/// (the one that runs with the race check) to the trace; turning it on clears the trace.
/// Launches that run in one order (the engine's own kernels) are not traced.
void record_trace(bool on);
/// The events recorded since record_trace(true).
const std::vector<TracedEvent>& trace();

/// The name of T for messages: "float", "int", ...
template <class T>
std::string type_name() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, float>) return "float";
  if constexpr (std::is_same_v<U, double>) return "double";
  if constexpr (std::is_same_v<U, int>) return "int";
  if constexpr (std::is_same_v<U, unsigned>) return "unsigned";
  if constexpr (std::is_same_v<U, std::int64_t>) return "int64";
  if constexpr (std::is_same_v<U, std::uint8_t>) return "uint8";
  if constexpr (std::is_same_v<U, ::float4>) return "float4";
  return "element";
}

}  // namespace sim

template <class T>
class DevPtr;

/// What `p[i]` gives in the simulator: a checked reference. Reading it checks that the bytes
/// were written; writing checks bounds and marks them written.
template <class T>
class Ref {
 public:
  /// The element of `a` at byte `offset`.
  Ref(sim::Allocation* a, std::int64_t offset) : a_(a), offset_(offset) {}
  /// Reads the value (a KernelError if out of bounds, freed or never written).
  operator std::remove_const_t<T>() const {  // NOLINT(google-explicit-constructor)
    check(false);
    sim::note_access(a_, offset_, sizeof(T), false, nullptr);
    std::remove_const_t<T> v;
    std::memcpy(&v, a_->data + offset_, sizeof(T));
    return v;
  }
  /// Writes `v`.
  Ref& operator=(const std::remove_const_t<T>& v) {
    static_assert(!std::is_const_v<T>, "writing through a pointer to const");
    check(true);
    sim::note_access(a_, offset_, sizeof(T), true, &v);
    std::memcpy(a_->data + offset_, &v, sizeof(T));
    sim::mark(a_, offset_, sizeof(T), sim::Allocation::kWritten);
    return *this;
  }
  /// Writes the value another reference reads (a[i] = b[j]).
  Ref& operator=(const Ref& other) { return *this = static_cast<std::remove_const_t<T>>(other); }
  /// Writes the value a reference of another element type reads (a[i] = b[j], b const).
  template <class U>
  Ref& operator=(const Ref<U>& other) {
    return *this = static_cast<std::remove_const_t<T>>(static_cast<std::remove_const_t<U>>(other));
  }
  /// Read-modify-write forms.
  Ref& operator+=(const std::remove_const_t<T>& v) { return *this = static_cast<std::remove_const_t<T>>(*this) + v; }
  /// Read, subtract, write.
  Ref& operator-=(const std::remove_const_t<T>& v) { return *this = static_cast<std::remove_const_t<T>>(*this) - v; }
  /// Read, multiply, write.
  Ref& operator*=(const std::remove_const_t<T>& v) { return *this = static_cast<std::remove_const_t<T>>(*this) * v; }
  /// Read, divide, write.
  Ref& operator/=(const std::remove_const_t<T>& v) { return *this = static_cast<std::remove_const_t<T>>(*this) / v; }
  /// &p[i]: a checked pointer to the element.
  DevPtr<T> operator&() const { return DevPtr<T>(a_, offset_); }  // NOLINT(google-runtime-operator)

 private:
  void check(bool write) const {
    if (a_->freed || offset_ < 0 || static_cast<std::size_t>(offset_) + sizeof(T) > a_->bytes)
      sim::access_error(a_, offset_, sizeof(T), write);
    if (offset_ % static_cast<std::int64_t>(alignof(T)) != 0)  // allocations start on 256 bytes
      sim::misaligned_error(a_, offset_, sizeof(T), alignof(T), write);
    if (!write)
      for (std::size_t b = 0; b < sizeof(T); ++b)
        if (!(a_->shadow[static_cast<std::size_t>(offset_) + b] & sim::Allocation::kWritten))
          sim::access_error(a_, offset_, sizeof(T), write);
  }
  sim::Allocation* a_;
  std::int64_t offset_;
};

/// A pointer to device memory. In the device build it is a plain `T*`; here it remembers its
/// allocation, so that every access through it is checked.
template <class T>
class DevPtr {
 public:
  /// A null pointer.
  DevPtr() = default;
  /// Byte `offset` into allocation `a`.
  DevPtr(sim::Allocation* a, std::int64_t offset) : a_(a), offset_(offset) {}
  /// To a pointer to const.
  operator DevPtr<const T>() const { return DevPtr<const T>(a_, offset_); }  // NOLINT(google-explicit-constructor)
  /// Element i (checked when read or written).
  Ref<T> operator[](std::int64_t i) const { return Ref<T>(checked(), offset_ + i * std::int64_t{sizeof(T)}); }
  /// The element pointed to.
  Ref<T> operator*() const { return (*this)[0]; }
  /// i elements further.
  DevPtr operator+(std::int64_t i) const { return DevPtr(a_, offset_ + i * std::int64_t{sizeof(T)}); }
  /// i elements back.
  DevPtr operator-(std::int64_t i) const { return DevPtr(a_, offset_ - i * std::int64_t{sizeof(T)}); }
  /// i elements further.
  DevPtr& operator+=(std::int64_t i) { return *this = *this + i; }
  /// i elements back.
  DevPtr& operator-=(std::int64_t i) { return *this = *this - i; }
  /// One element further.
  DevPtr& operator++() { return *this += 1; }
  /// Elements between two pointers into the same allocation.
  std::int64_t operator-(const DevPtr& o) const { return (offset_ - o.offset_) / std::int64_t{sizeof(T)}; }
  /// The same element of the same allocation.
  bool operator==(const DevPtr& o) const { return a_ == o.a_ && offset_ == o.offset_; }
  /// Not null.
  explicit operator bool() const { return a_ != nullptr; }
  /// The allocation and the byte offset (the runtime's copies use them).
  sim::Allocation* allocation() const { return a_; }
  /// The byte offset into allocation().
  std::int64_t byte_offset() const { return offset_; }

 private:
  sim::Allocation* checked() const {
    if (!a_) sim::access_error(nullptr, offset_, sizeof(T), false);
    return a_;
  }
  sim::Allocation* a_ = nullptr;
  std::int64_t offset_ = 0;
};

namespace sim {
/// The running block's dynamic shared memory as a T array.
template <class T>
DevPtr<T> dynamic_shared_as() {
  Allocation* a = dynamic_shared();
  if (a->type == "byte") {  // name the elements in messages as the kernel sees them
    a->type = type_name<T>();
    a->element_size = sizeof(T);
  }
  return DevPtr<T>(a, 0);
}

/// An array type's extents for messages: "[32][33]".
template <class A>
std::string extents_name() {
  if constexpr (std::is_array_v<A>)
    return "[" + std::to_string(std::extent_v<A>) + "]" + extents_name<std::remove_extent_t<A>>();
  else
    return "";
}

/// "add_kernel" from __PRETTY_FUNCTION__ of launch<add_kernel>.
std::string kernel_name_from(const char* pretty);
}  // namespace sim

/// A static shared array in the simulator (KINDLING_SHARED): `A` is its array type, such as
/// `float[32][32]`. Indexing checks each dimension and gives a sub-array or, in the last one, a
/// checked reference into the running block's own copy; a one-dimensional array converts to a
/// DevPtr to its first element, as a C array decays to a pointer.
template <class A>
class SharedArray {
  static_assert(std::is_array_v<A> && std::extent_v<A> > 0, "KINDLING_SHARED takes an array type with its sizes");
  using Sub = std::remove_extent_t<A>;
  static constexpr std::int64_t kExtent = std::extent_v<A>;

 public:
  /// The array at byte `offset` of the block's allocation `a`.
  SharedArray(sim::Allocation* a, std::int64_t offset) : a_(a), offset_(offset) {}
  /// Element (or sub-array) i.
  auto operator[](std::int64_t i) const {
    if (i < 0 || i >= kExtent) sim::shared_index_error(a_, i, kExtent);
    if constexpr (std::is_array_v<Sub>)
      return SharedArray<Sub>(a_, offset_ + i * std::int64_t{sizeof(Sub)});
    else
      return Ref<Sub>(a_, offset_ + i * std::int64_t{sizeof(Sub)});
  }
  /// A one-dimensional array as a pointer to its first element.
  operator DevPtr<Sub>() const  // NOLINT(google-explicit-constructor)
      requires(!std::is_array_v<Sub>) {
    return DevPtr<Sub>(a_, offset_);
  }
  /// The same, to const.
  operator DevPtr<const Sub>() const  // NOLINT(google-explicit-constructor)
      requires(!std::is_array_v<Sub>) {
    return DevPtr<const Sub>(a_, offset_);
  }

 private:
  sim::Allocation* a_;
  std::int64_t offset_;
};

namespace sim {
/// The running block's copy of the static shared array declared at `tag`, as a SharedArray.
template <class A>
SharedArray<A> static_shared_as(const void* tag, const char* name) {
  using E = std::remove_all_extents_t<A>;
  static const std::string element = type_name<E>(), type = element + extents_name<A>();
  return SharedArray<A>(static_shared(tag, sizeof(A), sizeof(E), element.c_str(), name, type), 0);
}
}  // namespace sim

namespace sim {
/// Adds the allocation that a kernel argument points into (a DevPtr) to `out`; other
/// arguments add nothing. The race check compares those allocations.
template <class T>
void collect_allocation(std::vector<Allocation*>& out, const T& arg) {
  if constexpr (requires { arg.allocation(); })
    if (arg.allocation() != nullptr) out.push_back(arg.allocation());
}
}  // namespace sim

/// Launches `Kernel` on the simulator: every block of `config.grid`, every thread of
/// `config.block`, in the thread orders set by sim::set_race_check_orders, on the stream of
/// `config` (run when the stream's mode says: at once in eager mode, when the host
/// synchronises in lazy mode). Throws CudaError for a configuration beyond CUDA's limits;
/// what a kernel does wrong is a KernelError, thrown where the launch runs.
template <auto Kernel, class... Args>
void launch(const LaunchConfig& config, Args... args) {
  static const std::string name = sim::kernel_name_from(__PRETTY_FUNCTION__);
  struct Call {
    std::tuple<Args...> args;
    static void run(void* self) { std::apply(Kernel, static_cast<Call*>(self)->args); }
  };
  std::vector<sim::Allocation*> touched;
  (sim::collect_allocation(touched, args), ...);
  const int orders = sim::race_check_orders(), order = sim::thread_order();
  sim::enqueue_launch(name, config,
                      [config, touched, orders, order, call = Call{std::tuple<Args...>(args...)}]() mutable {
                        sim::run_grid(name.c_str(), config, &Call::run, &call, touched, orders, order);
                      });
}

/// `p` as a pointer to float4 (under nvcc, `reinterpret_cast<const float4*>(p)`): `as_float4(p)[i]`
/// reads or writes the four floats from p + 4 i in one access, which must start on a 16-byte
/// boundary (a misaligned one is a KernelError, as it is a fault on a GPU).
inline DevPtr<const ::float4> as_float4(DevPtr<const float> p) {
  return DevPtr<const ::float4>(p.allocation(), p.byte_offset());
}
/// The same, writable.
inline DevPtr<::float4> as_float4(DevPtr<float> p) { return DevPtr<::float4>(p.allocation(), p.byte_offset()); }

/// The device address `p` (what Runtime::malloc returned, plus an offset) as a pointer to T
/// that the simulator checks; null stays null. Throws CudaError for an address that is not
/// device memory.
template <class T>
DevPtr<T> device_ptr(const void* p) {
  if (p == nullptr) return DevPtr<T>();
  std::size_t offset = 0;
  sim::Allocation* a = sim::find(p, &offset);
  KINDLING_CHECK_AS(CudaError, a != nullptr && !a->shared, "device_ptr: ", p,
                    " is not device memory (a host pointer?)");
  if (a->type == "byte") {  // name the elements in messages as the kernel sees them
    a->type = sim::type_name<T>();
    a->element_size = sizeof(T);
  }
  return DevPtr<T>(a, static_cast<std::int64_t>(offset));
}

}  // namespace kindling::cuda

// ---- CUDA's built-ins, for the kernel files compiled by the host compiler ------------------
// (CUDA's own API, as NVIDIA's CUDA C++ Programming Guide documents it: not in the kit's reference.)
/// @cond CUDA_BUILTINS
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
// A plain `__shared__` array would be a function-local static here, which the simulator could
// neither bounds-check, poison nor give each block afresh: the kit's form is required.
#define __shared__                                                                                      \
  static_assert(false,                                                                                  \
                "the simulator checks static shared arrays declared as KINDLING_SHARED(float[32][32], " \
                "tile); (under nvcc that is __shared__ float tile[32][32];), not plain __shared__");
#define threadIdx (::kindling::cuda::sim::coords().thread)
#define blockIdx (::kindling::cuda::sim::coords().block)
#define blockDim (::kindling::cuda::sim::coords().block_dim)
#define gridDim (::kindling::cuda::sim::coords().grid_dim)
#define KINDLING_DYNAMIC_SHARED(T, name) \
  ::kindling::cuda::DevPtr<T> name = ::kindling::cuda::sim::dynamic_shared_as<T>()
#define KINDLING_SHARED(Type, name)                \
  static char kindling_shared_##name;              \
  const ::kindling::cuda::SharedArray<Type> name = \
      ::kindling::cuda::sim::static_shared_as<Type>(&kindling_shared_##name, #name)

inline constexpr int warpSize = 32;

inline void __syncthreads(const std::source_location& where = std::source_location::current()) {
  ::kindling::cuda::sim::barrier(0, 0, where);
}
inline int __syncthreads_count(int p, const std::source_location& where = std::source_location::current()) {
  return ::kindling::cuda::sim::barrier(p, 1, where);
}
inline int __syncthreads_and(int p, const std::source_location& where = std::source_location::current()) {
  return ::kindling::cuda::sim::barrier(p, 2, where);
}
inline int __syncthreads_or(int p, const std::source_location& where = std::source_location::current()) {
  return ::kindling::cuda::sim::barrier(p, 3, where);
}
inline void __syncwarp(unsigned mask = 0xffffffffu,
                       const std::source_location& where = std::source_location::current()) {
  ::kindling::cuda::sim::warp_op(mask, 0, 0, 0, warpSize, where);
}
inline unsigned __activemask() { return ::kindling::cuda::sim::active_mask(); }

namespace kindling::cuda::sim {
template <class T>
T shuffle(unsigned mask, T var, int op, int arg, int width, const std::source_location& where) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "warp shuffles move up to 8 bytes");
  std::uint64_t bits = 0;
  std::memcpy(&bits, &var, sizeof(T));
  bits = warp_op(mask, op, bits, arg, width, where);
  T out;
  std::memcpy(&out, &bits, sizeof(T));
  return out;
}
}  // namespace kindling::cuda::sim

template <class T>
T __shfl_sync(unsigned mask, T var, int src, int width = warpSize,
              const std::source_location& where = std::source_location::current()) {
  return ::kindling::cuda::sim::shuffle(mask, var, 1, src, width, where);
}
template <class T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize,
                 const std::source_location& where = std::source_location::current()) {
  return ::kindling::cuda::sim::shuffle(mask, var, 2, static_cast<int>(delta), width, where);
}
template <class T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize,
                   const std::source_location& where = std::source_location::current()) {
  return ::kindling::cuda::sim::shuffle(mask, var, 3, static_cast<int>(delta), width, where);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize,
                  const std::source_location& where = std::source_location::current()) {
  return ::kindling::cuda::sim::shuffle(mask, var, 4, lane_mask, width, where);
}
inline unsigned __ballot_sync(unsigned mask, int predicate,
                              const std::source_location& where = std::source_location::current()) {
  return static_cast<unsigned>(::kindling::cuda::sim::warp_op(mask, 5, predicate != 0, 0, warpSize, where));
}
inline int __any_sync(unsigned mask, int predicate, const std::source_location& w = std::source_location::current()) {
  return __ballot_sync(mask, predicate, w) != 0;
}
inline int __all_sync(unsigned mask, int predicate, const std::source_location& w = std::source_location::current()) {
  return __ballot_sync(mask, predicate, w) == __ballot_sync(mask, 1, w);
}

// Atomics: the simulator runs one thread at a time, so a read-modify-write is atomic. Bytes
// an atomic touched are left out of the race check's comparison (atomic float sums differ in
// rounding with the order, which is no race).
namespace kindling::cuda::sim {
template <class T, class F>
T atomic_rmw(DevPtr<T> p, F f) {
  const AtomicScope atomic;
  const T old = p[0];
  p[0] = f(old);
  mark(p.allocation(), p.byte_offset(), sizeof(T), Allocation::kAtomic);
  return old;
}
template <class T, class F>
T atomic_rmw(T* p, F f) {
  const T old = *p;
  *p = f(old);
  return old;
}
}  // namespace kindling::cuda::sim

template <class P, class T>
auto atomicAdd(P p, T v) {
  return ::kindling::cuda::sim::atomic_rmw(p, [v](auto old) { return static_cast<decltype(old)>(old + v); });
}
template <class P, class T>
auto atomicSub(P p, T v) {
  return ::kindling::cuda::sim::atomic_rmw(p, [v](auto old) { return static_cast<decltype(old)>(old - v); });
}
template <class P, class T>
auto atomicMax(P p, T v) {
  return ::kindling::cuda::sim::atomic_rmw(p, [v](auto old) { return old < v ? static_cast<decltype(old)>(v) : old; });
}
template <class P, class T>
auto atomicMin(P p, T v) {
  return ::kindling::cuda::sim::atomic_rmw(p, [v](auto old) { return v < old ? static_cast<decltype(old)>(v) : old; });
}
template <class P, class T>
auto atomicExch(P p, T v) {
  return ::kindling::cuda::sim::atomic_rmw(p, [v](auto) { return v; });
}
template <class P, class T>
auto atomicCAS(P p, T compare, T v) {
  return ::kindling::cuda::sim::atomic_rmw(p, [compare, v](auto old) { return old == compare ? v : old; });
}

// Math intrinsics: the fast forms are the exact ones here.
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
/// @endcond
