// The simulated device's memory: a capped heap of 256-byte-aligned allocations, each with a
// shadow byte per byte (written? touched by an atomic?), records that outlive the memory so
// that a use after free is named as one, and the checks' error messages.

#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <sstream>

#include "simulator_internal.hpp"

namespace kindling::cuda::sim {

namespace {
struct Heap {
  std::mutex mutex;
  std::deque<std::unique_ptr<Allocation>> records;  // never shrinks: freed records stay
  // Live and quarantined allocations by their first byte, so that a raw device address (what
  // the runtime's malloc returns) leads back to its record.
  std::map<const std::byte*, Allocation*> by_address;
  // Freed allocations keep their bytes for a while, so that an access through a stale pointer
  // is found to be a use after free instead of landing in a newer allocation.
  std::deque<Allocation*> quarantine;
  std::size_t quarantined = 0;
  std::size_t in_use = 0;
  std::size_t capacity = std::size_t{1} << 30;
  static constexpr std::size_t kQuarantineBytes = std::size_t{64} << 20;
};
Heap& heap() {
  static Heap* h = new Heap;  // never destroyed: pointers may be freed after main
  return *h;
}

std::string plural(std::size_t n, const std::string& type) {
  return std::to_string(n) + " " + type + (n == 1 ? "" : "s");
}
}  // namespace

std::string Allocation::describe() const {
  const std::string what = plural(bytes / element_size, type);
  if (shared && !name.empty())
    return "the block's shared array " + name.substr(0, name.find(',')) + " (" + name.substr(name.find(',') + 2) + ")";
  if (shared) return "the block's dynamic shared memory (" + what + ")";
  return "allocation #" + std::to_string(id) + " (" + what + (freed ? ", freed" : "") + ")";
}

Allocation* allocate(std::size_t bytes, std::size_t element_size, const std::string& type) {
  Heap& h = heap();
  std::lock_guard lock(h.mutex);
  if (bytes > h.capacity - h.in_use)
    throw Error("CUDA out of memory. Tried to allocate " + std::to_string(bytes) + " bytes (simulated device: " +
                std::to_string(h.capacity - h.in_use) + " of " + std::to_string(h.capacity) + " bytes free)");
  auto a = std::make_unique<Allocation>();
  a->id = h.records.size() + 1;
  a->bytes = bytes;
  a->element_size = element_size == 0 ? 1 : element_size;
  a->type = type;
  // Aligned to 256 bytes, as cudaMalloc's are; the bytes start as a poison pattern (0xff:
  // NaN for floats), and the shadow says that none was written.
  a->data = static_cast<std::byte*>(::operator new (bytes == 0 ? 1 : bytes, std::align_val_t{256}));
  std::memset(a->data, 0xff, bytes);
  a->shadow.assign(bytes, 0);
  h.in_use += bytes;
  h.by_address[a->data] = a.get();
  h.records.push_back(std::move(a));
  return h.records.back().get();
}

void release(Allocation* a) {
  Heap& h = heap();
  std::lock_guard lock(h.mutex);
  if (a->freed) throw KernelError("cudaFree: " + a->describe() + " was already freed");
  a->freed = true;
  h.in_use -= a->bytes;
  h.quarantine.push_back(a);
  h.quarantined += a->bytes;
  while (h.quarantined > Heap::kQuarantineBytes) {
    Allocation* old = h.quarantine.front();
    h.quarantine.pop_front();
    h.quarantined -= old->bytes;
    h.by_address.erase(old->data);
    ::operator delete (old->data, std::align_val_t{256});
    old->data = nullptr;
    old->shadow.clear();
    old->shadow.shrink_to_fit();
  }
}

Allocation* find(const void* address, std::size_t* offset) {
  Heap& h = heap();
  std::lock_guard lock(h.mutex);
  const auto* p = static_cast<const std::byte*>(address);
  auto it = h.by_address.upper_bound(p);
  if (it == h.by_address.begin()) return nullptr;
  --it;
  Allocation* a = it->second;
  if (p > a->data + a->bytes) return nullptr;  // one past the end still belongs to it
  if (offset) *offset = static_cast<std::size_t>(p - a->data);
  return a;
}

std::vector<Allocation*> live_allocations() {
  std::lock_guard lock(heap().mutex);
  std::vector<Allocation*> out;
  for (const auto& r : heap().records)
    if (!r->freed) out.push_back(r.get());
  return out;
}

std::size_t bytes_in_use() {
  std::lock_guard lock(heap().mutex);
  return heap().in_use;
}

void set_capacity(std::size_t bytes) {
  std::lock_guard lock(heap().mutex);
  heap().capacity = bytes;
}

namespace {
void check_host_range(const Allocation* a, std::size_t offset, std::size_t bytes, const char* what) {
  if (a->freed) throw KernelError(std::string(what) + ": " + a->describe() + " was freed");
  if (offset > a->bytes || bytes > a->bytes - offset)
    throw KernelError(std::string(what) + ": bytes [" + std::to_string(offset) + ", " + std::to_string(offset + bytes) +
                      ") are outside " + a->describe() + ", which has " + std::to_string(a->bytes) + " bytes");
}
}  // namespace

void copy_to_device(Allocation* a, std::size_t offset, const void* src, std::size_t bytes) {
  check_host_range(a, offset, bytes, "cudaMemcpy to the device");
  if (bytes) std::memcpy(a->data + offset, src, bytes);  // (a null source is undefined even for 0 bytes)
  mark(a, static_cast<std::int64_t>(offset), bytes, Allocation::kWritten);
}

std::size_t capacity() {
  std::lock_guard lock(heap().mutex);
  return heap().capacity;
}

void copy_to_host(void* dst, const Allocation* a, std::size_t offset, std::size_t bytes) {
  check_no_pending_work("cudaMemcpy to the host");
  copy_to_host_unsynchronized(dst, a, offset, bytes);
}

void copy_to_host_unsynchronized(void* dst, const Allocation* a, std::size_t offset, std::size_t bytes) {
  check_host_range(a, offset, bytes, "cudaMemcpy to the host");
  for (std::size_t b = 0; b < bytes; ++b)
    if (!(a->shadow[offset + b] & Allocation::kWritten))
      throw KernelError("cudaMemcpy to the host: byte " + std::to_string(offset + b) + " of " + a->describe() +
                        " was never written (no kernel or copy stored it: a memset or copy of too few bytes, or "
                        "a kernel that skips some elements?)");
  if (bytes) std::memcpy(dst, a->data + offset, bytes);
}

void set_bytes(Allocation* a, std::size_t offset, int value, std::size_t bytes) {
  check_host_range(a, offset, bytes, "cudaMemset");
  std::memset(a->data + offset, value, bytes);
  mark(a, static_cast<std::int64_t>(offset), bytes, Allocation::kWritten);
}

void mark(Allocation* a, std::int64_t offset, std::size_t bytes, std::uint8_t bits) {
  for (std::size_t b = 0; b < bytes; ++b) a->shadow[static_cast<std::size_t>(offset) + b] |= bits;
}

void misaligned_error(const Allocation* a, std::int64_t offset, std::size_t bytes, std::size_t align, bool write) {
  std::ostringstream m;
  m << where_now() << ": misaligned address: a " << bytes << "-byte " << (write ? "write" : "read")
    << " at byte offset " << offset << " of " << a->describe() << ", which is not a multiple of " << align << " (a "
    << bytes << "-byte access must start on a " << align << "-byte boundary; on a GPU the kernel faults with "
    << "cudaErrorMisalignedAddress, \"misaligned address\")";
  throw KernelError(m.str());
}

void access_error(const Allocation* a, std::int64_t offset, std::size_t bytes, bool write) {
  std::ostringstream m;
  m << where_now() << ": ";
  const char* verb = write ? "write" : "read";
  if (!a) {
    m << "a " << verb << " through a null device pointer";
  } else if (a->freed) {
    m << "a " << verb << " of " << a->describe() << " after cudaFree (use after free)";
  } else if (offset < 0 || static_cast<std::size_t>(offset) + bytes > a->bytes) {
    const std::int64_t element = offset / static_cast<std::int64_t>(a->element_size);
    m << "out-of-bounds " << verb << " at element " << element << " (byte offset " << offset << ") of " << a->describe()
      << ", which has " << a->bytes / a->element_size << " elements (" << a->bytes
      << " bytes): is the bounds guard missing, or off by one?";
  } else if (a->shared) {
    m << "a read of element " << offset / static_cast<std::int64_t>(a->element_size) << " of " << a->describe()
      << ", which no thread of this block has written yet (shared memory starts undefined in every block and "
         "every launch: a __syncthreads missing between the writes and the read, or an element that no thread "
         "writes?)";
  } else {
    m << "a read of element " << offset / static_cast<std::int64_t>(a->element_size) << " of " << a->describe()
      << ", which was never written (a memset or copy of too few bytes, a copy on another stream not waited for, "
         "or a thread that reads before another writes?)";
  }
  throw KernelError(m.str());
}

}  // namespace kindling::cuda::sim
