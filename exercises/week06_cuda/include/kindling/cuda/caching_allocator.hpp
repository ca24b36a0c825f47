#pragma once
/// @file caching_allocator.hpp
/// The caching allocator: PyTorch's design (c10/cuda/CUDACachingAllocator.cpp) on the runtime
/// interface, so that it runs in full on the simulated device.
///
/// cudaMalloc and cudaFree are slow (cudaFree waits for the whole device), so freed blocks are
/// kept and handed out again. Requests are rounded up to 512 bytes. Requests up to 1 MiB come
/// from the small pool, whose segments are 2 MiB; larger ones from the large pool, whose
/// segments are 20 MiB below 10 MiB and the request rounded up to 2 MiB from there. A request
/// takes the smallest free block of its pool on its stream that fits (best fit), split when
/// the rest is worth keeping; a freed block merges with free neighbours of its segment. A
/// block used on another stream (record_stream) is reused only after the events recorded on
/// those streams at its free have completed. When the device has no memory left, the
/// allocator frees its unused segments and tries once more before raising PyTorch's
/// out-of-memory error.

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <unordered_map>
#include <vector>

#include <kindling/cuda/runtime.hpp>

namespace kindling::cuda {

/// One block of a segment: allocated or free. Blocks of one segment are a doubly linked list
/// in address order (prev, next).
struct Block {
  Stream stream = nullptr;       ///< the stream it was allocated on (and may be reused on)
  std::size_t size = 0;          ///< bytes
  char* ptr = nullptr;           ///< first byte (device address)
  bool allocated = false;        ///< handed out, not yet freed
  bool small = false;            ///< of the small pool
  Block* prev = nullptr;         ///< the block before it in its segment (null: the segment's first)
  Block* next = nullptr;         ///< the block after it in its segment (null: the segment's last)
  std::set<Stream> stream_uses;  ///< other streams it was used on (record_stream)
  int pending_events = 0;        ///< events still to complete before it can be reused
};

/// Orders blocks by (stream, size, address): a pool's set, where lower_bound finds the best fit.
struct BlockOrder {
  /// True when `a` comes before `b`.
  bool operator()(const Block* a, const Block* b) const;
};

/// The free blocks of one pool.
struct BlockPool {
  std::set<Block*, BlockOrder> blocks;  ///< free blocks, best fit first for each (stream, size)
  bool small = false;                   ///< the small pool (else the large)
};

/// Sizes of PyTorch's allocator.
struct AllocatorSizes {
  static constexpr std::size_t kMinBlockSize = 512;                     ///< every size is a multiple of this
  static constexpr std::size_t kSmallSize = std::size_t{1} << 20;       ///< largest request of the small pool
  static constexpr std::size_t kSmallBuffer = std::size_t{2} << 20;     ///< a small pool's segment
  static constexpr std::size_t kLargeBuffer = std::size_t{20} << 20;    ///< a segment for 1-10 MiB requests
  static constexpr std::size_t kMinLargeAlloc = std::size_t{10} << 20;  ///< from here, segments fit the request
  static constexpr std::size_t kRoundLarge = std::size_t{2} << 20;      ///< ...rounded up to this
};

/// A request rounded up to a multiple of 512 bytes (at least 512).
std::size_t round_size(std::size_t bytes);
/// The size of a new segment for a (rounded) request: 2 MiB, 20 MiB, or the request rounded up
/// to 2 MiB.
std::size_t segment_size(std::size_t rounded);

// ---- the free list: the task week06.free_list (src/tasks/free_list.cpp) ---------------------
/// The smallest free block of `pool` on `stream` with at least `size` bytes, removed from the
/// pool; null when there is none.
Block* take_best_fit(BlockPool& pool, Stream stream, std::size_t size);
/// `block` (just taken, `size` <= its size) keeps `size` bytes; the rest becomes a new free
/// block right after it in its segment, put into `pool`, when the rest is worth keeping (at
/// least 512 bytes in the small pool, more than 1 MiB in the large). Returns that new block or null.
Block* split_block(BlockPool& pool, Block* block, std::size_t size);
/// Marks `block` free, merges it with a free neighbour on either side (deleting the neighbour's
/// Block), and puts the result into `pool`. Returns the block that holds its bytes now.
Block* free_block(BlockPool& pool, Block* block);

/// Counters of an allocator, as torch.cuda.memory_stats() names them.
struct AllocatorStats {
  std::size_t allocated = 0;       ///< bytes of blocks handed out (rounded sizes)
  std::size_t reserved = 0;        ///< bytes of segments taken from the device
  std::size_t peak_allocated = 0;  ///< largest `allocated` since the last reset_peak_stats
  std::size_t peak_reserved = 0;   ///< largest `reserved` since the last reset_peak_stats
  std::size_t segments = 0;        ///< segments held
  std::size_t device_mallocs = 0;  ///< calls of the runtime's malloc
  std::size_t retries = 0;         ///< allocations that freed the cache and tried again
  std::size_t ooms = 0;            ///< out-of-memory errors raised
};

/// PyTorch's caching allocator on a Runtime.
class CachingAllocator {
 public:
  /// An allocator over `runtime`'s memory.
  explicit CachingAllocator(Runtime& runtime);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  /// `bytes` of device memory for use on `stream` (0 bytes: null).
  void* allocate(std::size_t bytes, Stream stream = nullptr);
  /// Returns memory from allocate() to the cache.
  void free(void* ptr);
  /// Records that `ptr`'s memory is used on `stream` too: when freed, it is reused only after
  /// that stream's work at the time of the free has completed.
  void record_stream(void* ptr, Stream stream);
  /// Returns every unused segment to the device.
  void empty_cache();
  /// The counters.
  AllocatorStats stats() const;
  /// Peaks start again from the current values.
  void reset_peak_stats();
  /// The runtime underneath.
  Runtime& runtime() const { return runtime_; }

 private:
  Block* malloc_segment(std::size_t size, Stream stream, bool small);
  void release_cached_segments();
  void process_events();
  [[noreturn]] void throw_oom(std::size_t size);

  Runtime& runtime_;
  mutable std::recursive_mutex mutex_;
  BlockPool small_;
  BlockPool large_;
  std::unordered_map<void*, Block*> active_;
  std::vector<std::pair<Event, Block*>> events_;
  std::vector<Event> spare_events_;
  AllocatorStats stats_;
};

/// The allocator that CUDA tensors use (on runtime()). PYTORCH_NO_CUDA_MEMORY_CACHING=1 turns
/// caching off (each tensor its own cudaMalloc, as with PyTorch), which the simulator's bounds
/// checks are exact with.
CachingAllocator& caching_allocator();
/// True unless PYTORCH_NO_CUDA_MEMORY_CACHING=1.
bool caching_enabled();
/// torch.cuda.memory_allocated().
std::size_t memory_allocated();
/// torch.cuda.memory_reserved().
std::size_t memory_reserved();
/// torch.cuda.max_memory_allocated().
std::size_t max_memory_allocated();
/// torch.cuda.empty_cache().
void empty_cache();

}  // namespace kindling::cuda
