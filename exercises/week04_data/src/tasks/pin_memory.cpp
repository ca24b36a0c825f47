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
  // BEGIN TASK week04.pin_memory (replace the stub below with your code)
  KINDLING_TODO("week04.pin_memory");
  // END TASK
}

}  // namespace kindling::data
