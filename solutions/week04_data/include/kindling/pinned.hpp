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
/// Note: without CUDA, Kindling's pinned memory is page-aligned memory locked
/// with mlock(2). That is exactly what page-locked means; cudaHostAlloc also
/// registers the pages with the driver, which only matters once there is a GPU.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include <kindling/tensor.hpp>

namespace kindling::data {

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
  /// of its own; the system's RLIMIT_MEMLOCK still applies).
  static std::shared_ptr<PinnedMemoryPool> create(std::optional<std::size_t> max_locked_bytes = std::nullopt);
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

 private:
  explicit PinnedMemoryPool(std::optional<std::size_t> max_locked_bytes) : max_locked_(max_locked_bytes) {}
  /// A locked buffer of at least `nbytes` (rounded up to whole pages), reused when
  /// one is cached; null when locking fails.
  void* acquire(std::size_t nbytes, std::size_t& capacity);
  /// Returns a buffer to the cache (or frees it if the pool is gone).
  void release(void* p, std::size_t capacity);

  mutable std::mutex mutex_;
  std::multimap<std::size_t, void*> free_;  // capacity -> cached locked buffer
  std::optional<std::size_t> max_locked_;
  std::size_t locked_ = 0;
  std::int64_t allocations_ = 0, reuses_ = 0;
  bool warned_ = false;
};

/// Locks a page-aligned buffer of `bytes` (a multiple of the page size); null if
/// mlock fails. Frees nothing on failure. unlock_and_free() undoes it.
void* allocate_locked(std::size_t bytes);
/// munlock + free of a buffer from allocate_locked.
void unlock_and_free(void* p, std::size_t bytes);
/// The system page size.
std::size_t page_size();

inline void* PinnedMemoryPool::acquire(std::size_t nbytes, std::size_t& capacity) {
  // BEGIN SOLUTION week04.pin_memory
  const std::size_t page = page_size();
  capacity = (std::max<std::size_t>(nbytes, 1) + page - 1) / page * page;
  std::lock_guard lock(mutex_);
  if (auto it = free_.find(capacity); it != free_.end()) {  // same size as a cached buffer: reuse it
    void* p = it->second;
    free_.erase(it);
    ++reuses_;
    return p;
  }
  if (max_locked_ && locked_ + capacity > *max_locked_) return nullptr;
  void* p = allocate_locked(capacity);
  if (!p) return nullptr;
  locked_ += capacity;
  ++allocations_;
  return p;
  // END SOLUTION
}

}  // namespace kindling::data
