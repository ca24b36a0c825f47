// Page-locked memory: mlock'ed, page-aligned buffers and the recycling pool.

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

#include <kindling/factory.hpp>
#include <kindling/pinned.hpp>

#include "internal.hpp"

namespace kindling::data {

std::size_t page_size() {
  static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

void* allocate_locked(std::size_t bytes) {
  void* p = std::aligned_alloc(page_size(), bytes);
  if (!p) return nullptr;
  if (mlock(p, bytes) != 0) {
    std::free(p);
    return nullptr;
  }
  return p;
}

void unlock_and_free(void* p, std::size_t bytes) {
  munlock(p, bytes);
  std::free(p);
}

std::shared_ptr<PinnedMemoryPool> PinnedMemoryPool::create(std::optional<std::size_t> max_locked_bytes) {
  return std::shared_ptr<PinnedMemoryPool>(new PinnedMemoryPool(max_locked_bytes));
}

PinnedMemoryPool::~PinnedMemoryPool() {
  for (auto& [capacity, p] : free_) unlock_and_free(p, capacity);
}

void PinnedMemoryPool::release(void* p, std::size_t capacity) {
  std::lock_guard lock(mutex_);
  free_.emplace(capacity, p);
}

Tensor PinnedMemoryPool::pinned_copy(const Tensor& t) {
  const std::size_t nbytes = static_cast<std::size_t>(t.numel()) * element_size(t.dtype());
  std::size_t capacity = 0;
  void* p = acquire(nbytes, capacity);
  if (!p) {
    bool first = false;
    {
      std::lock_guard lock(mutex_);
      first = !warned_;
      warned_ = true;
    }
    if (first)
      std::cerr << "kindling: warning: pin_memory could not lock more memory (RLIMIT_MEMLOCK or the pool's budget); "
                   "continuing with pageable memory\n";
    return t.contiguous().clone();
  }
  // The buffer goes back to this pool when the last tensor using it goes; if the
  // pool is gone by then, it is unlocked and freed.
  std::weak_ptr<PinnedMemoryPool> weak = weak_from_this();
  Storage storage = Storage::from_pinned_blob(p, capacity, [weak, capacity](void* q) {
    if (auto pool = weak.lock())
      pool->release(q, capacity);
    else
      unlock_and_free(q, capacity);
  });
  Tensor out = Tensor::make(std::move(storage), t.sizes().vec(), contiguous_strides(t.sizes()), 0, t.dtype());
  kindling::detail::copy(out, t);
  return out;
}

std::size_t PinnedMemoryPool::locked_bytes() const {
  std::lock_guard lock(mutex_);
  return locked_;
}
std::int64_t PinnedMemoryPool::allocations() const {
  std::lock_guard lock(mutex_);
  return allocations_;
}
std::int64_t PinnedMemoryPool::reuses() const {
  std::lock_guard lock(mutex_);
  return reuses_;
}
bool PinnedMemoryPool::fell_back() const {
  std::lock_guard lock(mutex_);
  return warned_;
}

}  // namespace kindling::data

namespace kindling {

Tensor Tensor::pin_memory() const {
  if (is_pinned()) return *this;
  // A pool of its own: the buffer is unlocked and freed when the tensor goes.
  return data::PinnedMemoryPool::create()->pinned_copy(*this);
}

}  // namespace kindling
