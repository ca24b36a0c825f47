// MUTANT: checks each new buffer against the budget on its own, not the total already locked
// Task week04.pin_memory. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week04.pin_memory`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/pinned.hpp>

namespace kindling::data {

/// A page-locked buffer of at least `nbytes`: its size rounded up to whole pages
/// goes to `capacity`. A cached buffer of exactly that capacity is reused (and
/// counted in reuses()); otherwise, if the pool's budget allows, a new one comes
/// from allocate() (and is counted in allocations() and locked_bytes()). Null when
/// the budget or the system refuses. Called without the mutex held: lock it while
/// touching the cache and the counters.
void* PinnedMemoryPool::acquire(std::size_t nbytes, std::size_t& capacity) {
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
  if (max_locked_ && capacity > *max_locked_) return nullptr;
  void* p = allocate(capacity);
  if (!p) return nullptr;
  locked_ += capacity;
  ++allocations_;
  return p;
  // END SOLUTION
}

}  // namespace kindling::data
