// Page-locked memory: cudaHostAlloc'ed or mlock'ed page-aligned buffers, and the
// recycling pool.

#include <sys/mman.h>
#include <unistd.h>

#if KINDLING_HAS_CUDA
#include <cuda_runtime_api.h>
#endif

#include <cstdlib>
#include <cstring>
#include <iostream>

#include <kindling/device_hooks.hpp>
#include <kindling/factory.hpp>
#include <kindling/pinned.hpp>

#include "internal.hpp"

namespace kindling::data {

std::size_t page_size() {
  static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

namespace {

// The kMlock backend: page-aligned memory, locked; freed again if the lock is refused.
void* allocate_locked(std::size_t bytes) {
  void* p = std::aligned_alloc(page_size(), bytes);
  if (!p) return nullptr;
  if (mlock(p, bytes) != 0) {
    std::free(p);
    return nullptr;
  }
  // Tell the device runtime (week 6: the simulated device's registry of pinned ranges, or
  // cudaHostRegister) so that copies from these pages may be asynchronous. Pinning does not
  // depend on it: a runtime that refuses leaves the pages locked, and copies synchronous.
  try {
    device_backend(DeviceType::CUDA).register_host(p, bytes);
  } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): see above
  }
  return p;
}

void unlock_and_free(void* p, std::size_t bytes) {
  try {
    device_backend(DeviceType::CUDA).unregister_host(p);
  } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): it was never registered
  }
  munlock(p, bytes);
  std::free(p);
}

}  // namespace

const CudaHostStatus& cuda_host_status() {
  static const CudaHostStatus status = [] {
    CudaHostStatus s;
#if KINDLING_HAS_CUDA
    int devices = 0;
    const cudaError_t err = cudaGetDeviceCount(&devices);
    if (err != cudaSuccess) {
      s.reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(err);
      cudaGetLastError();  // clear the runtime's sticky error state
    } else if (devices == 0) {
      s.reason = "no CUDA device";
    } else {
      s.available = true;
    }
#else
    s.reason = "Kindling was built without CUDA";
#endif
    return s;
  }();
  return status;
}

PinnedBackend default_pinned_backend() {
  return cuda_host_status().available ? PinnedBackend::kCudaHostAlloc : PinnedBackend::kMlock;
}

void* allocate_pinned(PinnedBackend backend, std::size_t bytes) {
#if KINDLING_HAS_CUDA
  if (backend == PinnedBackend::kCudaHostAlloc) {
    void* p = nullptr;
    if (cudaHostAlloc(&p, bytes, cudaHostAllocDefault) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    return p;
  }
#else
  // create() refuses kCudaHostAlloc in a build without CUDA.
  KINDLING_CHECK(backend == PinnedBackend::kMlock, "cudaHostAlloc: Kindling was built without CUDA");
#endif
  return allocate_locked(bytes);
}

void free_pinned(PinnedBackend backend, void* p, std::size_t bytes) {
#if KINDLING_HAS_CUDA
  if (backend == PinnedBackend::kCudaHostAlloc) {
    cudaFreeHost(p);
    return;
  }
#else
  (void)backend;
#endif
  unlock_and_free(p, bytes);
}

std::shared_ptr<PinnedMemoryPool> PinnedMemoryPool::create(std::optional<std::size_t> max_locked_bytes,
                                                           PinnedBackend backend) {
  if (backend == PinnedBackend::kCudaHostAlloc)
    KINDLING_CHECK(cuda_host_status().available, "pin_memory: cudaHostAlloc needs a CUDA device (",
                   cuda_host_status().reason, ")");
  return std::shared_ptr<PinnedMemoryPool>(new PinnedMemoryPool(max_locked_bytes, backend));
}

PinnedMemoryPool::~PinnedMemoryPool() {
  for (auto& [capacity, p] : free_) free_pinned(backend_, p, capacity);
}

void* PinnedMemoryPool::allocate(std::size_t bytes) const { return allocate_pinned(backend_, bytes); }

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
      std::cerr << "kindling: warning: pin_memory could not lock more memory ("
                << (backend_ == PinnedBackend::kMlock ? "RLIMIT_MEMLOCK" : "cudaHostAlloc")
                << " or the pool's budget); continuing with pageable memory\n";
    return t.contiguous().clone();
  }
  // The buffer goes back to this pool when the last tensor using it goes; if the
  // pool is gone by then, it is given back to the system.
  std::weak_ptr<PinnedMemoryPool> weak = weak_from_this();
  Storage storage = Storage::from_pinned_blob(p, capacity, [weak, capacity, backend = backend_](void* q) {
    if (auto pool = weak.lock())
      pool->release(q, capacity);
    else
      free_pinned(backend, q, capacity);
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
