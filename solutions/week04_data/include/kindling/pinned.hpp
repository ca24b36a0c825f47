#pragma once
/// @file pinned.hpp
/// Page-locked ("pinned") host memory, and a pool that recycles it.
///
/// A GPU copies from host memory by DMA, which needs pages that cannot be
/// swapped out or moved. From ordinary (pageable) memory the driver first copies
/// into a pinned staging buffer of its own, then to the device; from pinned
/// memory it copies directly, and asynchronously (`non_blocking`). Locking pages
/// is a system call per allocation and counts against RLIMIT_MEMLOCK (8 MiB by
/// default for non-root users), so the pool locks a buffer once and reuses it.
///
/// Where the pages come from: with a CUDA build and a CUDA device, from
/// cudaHostAlloc, which locks them and registers them with the driver so that
/// copies to the GPU can use DMA directly. Without one, from page-aligned memory
/// locked with mlock(2): exactly what page-locked means, minus the registration,
/// which only matters once there is a GPU.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <kindling/tensor.hpp>

namespace kindling::data {

/// Where a pool's page-locked buffers come from.
enum class PinnedBackend {
  kMlock,          ///< page-aligned host memory locked with mlock(2); counts against RLIMIT_MEMLOCK
  kCudaHostAlloc,  ///< cudaHostAlloc / cudaFreeHost: pinned and registered with the CUDA driver
};

/// Whether cudaHostAlloc can be used here, and if not, why.
struct CudaHostStatus {
  bool available = false;  ///< built with CUDA and cudaGetDeviceCount() found a device
  std::string reason;      ///< empty when available; else "built without CUDA" or the CUDA runtime's answer
};
/// Asks the CUDA runtime once per process (cudaGetDeviceCount) and remembers the answer.
const CudaHostStatus& cuda_host_status();
/// kCudaHostAlloc when cuda_host_status().available, else kMlock.
PinnedBackend default_pinned_backend();

/// A pool of page-locked buffers, recycled by size.
///
/// pinned_copy() returns tensors whose storage comes from the pool; when the
/// last handle to such a tensor goes, its buffer returns to the pool (still
/// locked) for the next batch of the same size. The pool unlocks and frees
/// everything it holds when it is destroyed; buffers still in use outlive it
/// and are unlocked when their tensors go.
class PinnedMemoryPool : public std::enable_shared_from_this<PinnedMemoryPool> {
 public:
  /// A pool that locks at most `max_locked_bytes` in total (nullopt: no limit
  /// of its own; with kMlock the system's RLIMIT_MEMLOCK still applies), taking
  /// its buffers from `backend`. Throws kindling::Error for kCudaHostAlloc when
  /// cuda_host_status() says it is not available.
  static std::shared_ptr<PinnedMemoryPool> create(std::optional<std::size_t> max_locked_bytes = std::nullopt,
                                                  PinnedBackend backend = default_pinned_backend());
  ~PinnedMemoryPool();
  PinnedMemoryPool(const PinnedMemoryPool&) = delete;
  PinnedMemoryPool& operator=(const PinnedMemoryPool&) = delete;

  /// A contiguous copy of `t` in a pinned buffer from the pool. When no buffer
  /// can be locked (the pool's budget or the system's limit), prints one warning
  /// per pool and returns an ordinary contiguous copy (is_pinned() false).
  Tensor pinned_copy(const Tensor& t);

  /// Bytes locked by this pool now (cached and in use).
  std::size_t locked_bytes() const;
  /// Buffers allocated and locked so far (not counting reuse).
  std::int64_t allocations() const;
  /// Times a cached buffer was reused instead of locking a new one.
  std::int64_t reuses() const;
  /// True once a lock was refused (and the warning printed).
  bool fell_back() const;
  /// Where this pool's buffers come from.
  PinnedBackend backend() const { return backend_; }

 private:
  PinnedMemoryPool(std::optional<std::size_t> max_locked_bytes, PinnedBackend backend)
      : max_locked_(max_locked_bytes), backend_(backend) {}
  /// A page-locked buffer of at least `nbytes`: its size rounded up to whole pages
  /// goes to `capacity`. A cached buffer of exactly that capacity is reused (and
  /// counted in reuses()); otherwise, if the pool's budget allows, a new one comes
  /// from allocate() (and is counted in allocations() and locked_bytes()). Null when
  /// the budget or the system refuses. Called without the mutex held: lock it while
  /// touching the cache and the counters.
  void* acquire(std::size_t nbytes, std::size_t& capacity);
  /// A new page-locked buffer of `bytes` (a multiple of the page size) from this
  /// pool's backend; null when the system refuses.
  void* allocate(std::size_t bytes) const;
  /// Returns a buffer to the cache (or frees it if the pool is gone).
  void release(void* p, std::size_t capacity);

  mutable std::mutex mutex_;
  std::multimap<std::size_t, void*> free_;  // capacity -> cached locked buffer
  std::optional<std::size_t> max_locked_;
  std::size_t locked_ = 0;
  std::int64_t allocations_ = 0, reuses_ = 0;
  bool warned_ = false;
  PinnedBackend backend_;
};

/// A page-locked buffer of `bytes` (a multiple of the page size) from `backend`:
/// page-aligned memory locked with mlock(2), or cudaHostAlloc. Null when the
/// system refuses; nothing is left allocated then.
void* allocate_pinned(PinnedBackend backend, std::size_t bytes);
/// Gives back a buffer from allocate_pinned(backend, bytes).
void free_pinned(PinnedBackend backend, void* p, std::size_t bytes);
/// The system page size.
std::size_t page_size();

}  // namespace kindling::data
