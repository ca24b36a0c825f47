// Tensor and Storage basics: construction, metadata, as_strided, element writes and copies.

#include <pthread.h>
#include <sys/mman.h>
#include <array>
#include <atomic>

#include <cstdlib>
#ifdef __AVX2__
#include <immintrin.h>
#endif
#include <cstring>
#include <mutex>
#include <new>
#include <sstream>
#include <unordered_map>
#include <vector>

#include <kindling/checked.hpp>
#include <kindling/deterministic.hpp>
#include <kindling/device_hooks.hpp>
#include <kindling/factory.hpp>
#include <kindling/linalg.hpp>
#include <kindling/ops.hpp>
#include <kindling/parallel.hpp>
#include <kindling/tensor.hpp>

#include "autograd_hooks.hpp"
#include "internal.hpp"
#include "loop.hpp"

// Under AddressSanitizer (GCC says so with a macro, Clang through __has_feature) freed
// buffers go back to the allocator at once, so that a use after free is reported.
#if defined(__SANITIZE_ADDRESS__)
#define KINDLING_ENGINE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KINDLING_ENGINE_ASAN 1
#endif
#endif

namespace kindling {

std::string to_string(IntArrayRef list) {
  std::string s = "[";
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(list[i]);
  }
  return s + "]";
}

std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim) {
  const std::int64_t n = ndim <= 0 ? 1 : ndim;  // a 0-d tensor accepts -1 and 0
  KINDLING_CHECK_AS(IndexError, dim >= -n && dim < n, "Dimension out of range (expected to be in range of [", -n, ", ",
                    n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

void check_sizes_nonnegative(IntArrayRef sizes) {
  for (auto s : sizes)
    KINDLING_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", to_string(sizes));
}

void check_sizes_fit(IntArrayRef sizes, std::size_t element_size) {
  KINDLING_CHECK(checked_extent_bytes(sizes, element_size).has_value(),
                 "Storage size calculation overflowed with sizes=", to_string(sizes));
}

// ---- Storage ------------------------------------------------------------------------
namespace {

// Large CPU buffers are recycled. A freshly mapped page costs a page fault on first
// touch, where the kernel zeroes it, and glibc gives large freed blocks back to the
// system; so a training step that allocates the same activations and gradients
// every iteration would fault all of them in again (measured on the week-3 CNN
// benchmark: about a quarter of the forward pass). Freed buffers of at least 256 KiB
// wait here, keyed by their rounded size, for the next allocation of that size, up
// to 256 MiB in all; beyond that they are freed. `empty` promises nothing about the
// contents, and every other factory writes its values, so a reused buffer is safe.
// Under AddressSanitizer the cache is off, so that a use after free is still caught.
class BufferCache {
 public:
  // 256 KiB, not 1 MiB: Linear(784, 256)'s 800 KB weight gradient was mapped, faulted
  // in and unmapped on every step (with 2 threads each unmap also stops the other
  // core); recycling it halved that benchmark's time at 1 and at 2 threads.
  static constexpr std::size_t kMinBytes = std::size_t{256} << 10;
  static constexpr std::size_t kMaxCachedBytes = std::size_t{256} << 20;

  void* take(std::size_t rounded) {
    std::lock_guard lock(mutex_);
    auto it = free_.find(rounded);
    if (it == free_.end()) return nullptr;
    void* p = it->second;
    free_.erase(it);
    cached_ -= rounded;
    return p;
  }
  void give(void* p, std::size_t rounded) {
    {
      std::lock_guard lock(mutex_);
      if (cached_ + rounded <= kMaxCachedBytes) {
        free_.emplace(rounded, p);
        cached_ += rounded;
        return;
      }
    }
    std::free(p);
  }

 private:
  std::mutex mutex_;
  std::unordered_multimap<std::size_t, void*> free_;  // rounded size -> buffer
  std::size_t cached_ = 0;
};

BufferCache* buffer_cache() {
#if defined(KINDLING_ENGINE_ASAN)
  return nullptr;
#else
  // Never destroyed: tensors held by other static objects may be freed after main.
  static BufferCache* cache = new BufferCache;
  return cache;
#endif
}

// Small buffers (a scalar, a bias, an autograd temporary of a few floats) come from a
// free list of the thread that frees them: for a 5-op forward and backward over 16
// floats, malloc and free of 64-byte aligned blocks were about 40% of the time
// (perf, BM_TinyForwardBackward). Blocks of 64, 128, 192 and 256 bytes, at most 512
// of each per thread; the rest go back to free(). Off under AddressSanitizer.
class SmallBlocks {
 public:
  static constexpr std::size_t kStep = 64, kClasses = 4, kMaxPerClass = 512;
  static constexpr std::size_t kMaxBytes = kStep * kClasses;
  ~SmallBlocks() {
    for (auto& list : free_)
      for (void* p : list) std::free(p);
    dead_ = true;
  }
  void* take(std::size_t rounded) {
    auto& list = free_[rounded / kStep - 1];
    if (list.empty()) return nullptr;
    void* p = list.back();
    list.pop_back();
    return p;
  }
  bool give(void* p, std::size_t rounded) {
    auto& list = free_[rounded / kStep - 1];
    if (list.size() >= kMaxPerClass) return false;
    list.push_back(p);
    return true;
  }
  // This thread's lists; null once they are gone (a tensor freed by a thread-exit or
  // static destructor that runs after them).
  static SmallBlocks* mine() {
#if defined(KINDLING_ENGINE_ASAN)
    return nullptr;
#else
    if (dead_) return nullptr;
    thread_local SmallBlocks blocks;
    return &blocks;
#endif
  }

 private:
  std::array<std::vector<void*>, kClasses> free_;
  static thread_local bool dead_;
};
thread_local bool SmallBlocks::dead_ = false;

// An allocator for std::allocate_shared that takes its blocks from SmallBlocks too:
// every tensor makes a TensorImpl, a VersionCounter and a Storage buffer record, and
// for small tensors glibc's malloc and free of those (its per-thread cache holds only
// 7 blocks of a size) were the largest cost left in BM_TinyForwardBackward.
template <class T>
struct SmallBlockAllocator {
  using value_type = T;
  SmallBlockAllocator() = default;
  template <class U>
  SmallBlockAllocator(const SmallBlockAllocator<U>& /*other*/) {}  // NOLINT(google-explicit-constructor)
  static std::size_t rounded(std::size_t n) {
    return (n * sizeof(T) + SmallBlocks::kStep - 1) / SmallBlocks::kStep * SmallBlocks::kStep;
  }
  T* allocate(std::size_t n) {
    static_assert(alignof(T) <= SmallBlocks::kStep);
    const std::size_t bytes = rounded(n);
    SmallBlocks* blocks = bytes <= SmallBlocks::kMaxBytes ? SmallBlocks::mine() : nullptr;
    void* p = blocks ? blocks->take(bytes) : nullptr;
    if (!p) p = std::aligned_alloc(SmallBlocks::kStep, bytes);
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) {
    const std::size_t bytes = rounded(n);
    SmallBlocks* blocks = bytes <= SmallBlocks::kMaxBytes ? SmallBlocks::mine() : nullptr;
    if (!blocks || !blocks->give(p, bytes)) std::free(p);
  }
  friend bool operator==(const SmallBlockAllocator&, const SmallBlockAllocator&) { return true; }
};

}  // namespace

namespace {
// Storage::allocated_bytes() is a sum of per-thread counters: one shared atomic made
// every allocation and every free a locked read-modify-write (a third of allocate()'s
// time in a tiny graph). Each thread adds to its own counter with a plain load and
// store (only that thread writes it); a counter whose thread has ended, or a free made
// during thread or program exit after the thread's counter is gone, goes to `retired`.
// A buffer freed by another thread than the one that made it makes one counter
// negative and the other positive, and the sum stays exact.
struct ByteCounter;
struct ByteCounters {
  std::mutex mutex;
  std::vector<ByteCounter*> live;
  std::int64_t retired = 0;
};
ByteCounters& byte_counters() {
  static auto* counters = new ByteCounters;  // never destroyed: threads may end after main
  return *counters;
}
struct ByteCounter {
  std::atomic<std::int64_t> value{0};
  ByteCounter() {
    ByteCounters& all = byte_counters();
    std::lock_guard lock(all.mutex);
    all.live.push_back(this);
  }
  ByteCounter(const ByteCounter&) = delete;
  ByteCounter& operator=(const ByteCounter&) = delete;
  ~ByteCounter() {
    ByteCounters& all = byte_counters();
    std::lock_guard lock(all.mutex);
    all.retired += value.load(std::memory_order_relaxed);
    std::erase(all.live, this);
    dead = true;
  }
  static thread_local bool dead;
};
thread_local bool ByteCounter::dead = false;

void count_bytes(std::int64_t delta) {
  if (!ByteCounter::dead) {
    thread_local ByteCounter mine;
    mine.value.store(mine.value.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
    return;
  }
  ByteCounters& all = byte_counters();
  std::lock_guard lock(all.mutex);
  all.retired += delta;
}

enum Pool : std::uint8_t { kNoPool = 0, kLargePool, kSmallPool, kHeap };
}  // namespace

Storage::Buffer::~Buffer() {
  switch (pool) {
    case kNoPool:
      if (deleter) deleter(data);
      return;
    case kLargePool:
      buffer_cache()->give(data, rounded);
      break;
    case kSmallPool: {
      SmallBlocks* mine = SmallBlocks::mine();
      if (!mine || !mine->give(data, rounded)) std::free(data);
      break;
    }
    default:
      std::free(data);
  }
  count_bytes(-static_cast<std::int64_t>(nbytes));
}

Storage Storage::allocate(std::size_t nbytes, Device device) {
  if (!device.is_cpu()) return detail::allocate_on_device(nbytes, device);
  // Large buffers are aligned to 2 MiB and offered to the kernel as transparent huge
  // pages: first-touch page faults dominate copying into a fresh tensor (measured
  // here: 64 MiB, 57 ms with 4 KiB pages, 38 ms with huge pages, 14 ms to memcpy).
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  const std::size_t align = nbytes >= 2 * kHuge ? kHuge : 64;
  const std::size_t rounded = (std::max<std::size_t>(nbytes, 1) + align - 1) / align * align;
  BufferCache* cache = rounded >= BufferCache::kMinBytes ? buffer_cache() : nullptr;
  const bool small = rounded <= SmallBlocks::kMaxBytes;
  SmallBlocks* blocks = small ? SmallBlocks::mine() : nullptr;
  void* p = cache ? cache->take(rounded) : blocks ? blocks->take(rounded) : nullptr;
  if (!p) {
    p = std::aligned_alloc(align, rounded);
    if (!p) throw std::bad_alloc();
    if (align == kHuge) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure is harmless
  }
  Storage s;
  s.buffer_ = std::allocate_shared<Buffer>(SmallBlockAllocator<Buffer>());
  s.buffer_->data = p;
  s.buffer_->nbytes = nbytes;
  s.buffer_->device = device;
  s.buffer_->pool = cache ? kLargePool : small ? kSmallPool : kHeap;
  s.buffer_->rounded = rounded;
  count_bytes(static_cast<std::int64_t>(nbytes));
  return s;
}

std::size_t Storage::allocated_bytes() {
  ByteCounters& all = byte_counters();
  std::lock_guard lock(all.mutex);
  std::int64_t total = all.retired;
  for (const ByteCounter* c : all.live) total += c->value.load(std::memory_order_relaxed);
  // The counters are read one after another: while other threads allocate and free,
  // a free may be seen without its allocation, and the sum may even dip below 0.
  return static_cast<std::size_t>(std::max<std::int64_t>(total, 0));
}

Storage Storage::from_blob(void* data, std::size_t nbytes, std::function<void(void*)> deleter, Device device) {
  Storage s;
  s.buffer_ = std::allocate_shared<Buffer>(SmallBlockAllocator<Buffer>());
  s.buffer_->data = data;
  s.buffer_->nbytes = nbytes;
  s.buffer_->device = device;
  s.buffer_->deleter = std::move(deleter);
  return s;
}

Storage Storage::from_pinned_blob(void* data, std::size_t nbytes, std::function<void(void*)> deleter) {
  Storage s = from_blob(data, nbytes, std::move(deleter), kCPU);
  s.buffer_->pinned = true;
  return s;
}

// ---- Tensor -------------------------------------------------------------------------
Tensor Tensor::make(Storage storage, Shape sizes, Shape strides, std::int64_t storage_offset, ScalarType dtype,
                    std::shared_ptr<VersionCounter> version_counter) {
  auto impl = std::allocate_shared<TensorImpl>(SmallBlockAllocator<TensorImpl>());
  impl->version_counter = version_counter ? std::move(version_counter)
                                          : std::allocate_shared<VersionCounter>(SmallBlockAllocator<VersionCounter>());
  impl->storage = std::move(storage);
  impl->sizes = std::move(sizes);
  impl->strides = std::move(strides);
  impl->storage_offset = storage_offset;
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

void Tensor::throw_undefined() { throw Error("this tensor is undefined (default-constructed)"); }
void Tensor::throw_host_access() const {
  throw Error(detail::concat("data_ptr<T>() gives host code the address of the elements, but this tensor is on ",
                             device(), ", whose memory the host cannot read: copy it with .cpu() first"));
}

std::int64_t Tensor::size(std::int64_t d) const { return sizes()[wrap_dim(d, dim())]; }
std::int64_t Tensor::stride(std::int64_t d) const { return strides()[wrap_dim(d, dim())]; }

void* Tensor::data_ptr() const {
  return static_cast<char*>(storage().data()) + storage_offset() * static_cast<std::int64_t>(element_size());
}

std::uint32_t Tensor::version() const { return impl().version().version.load(std::memory_order_relaxed); }
void Tensor::bump_version() const { impl().version().version.fetch_add(1, std::memory_order_relaxed); }

Tensor Tensor::as_strided(IntArrayRef sizes, IntArrayRef strides, std::optional<std::int64_t> offset,
                          std::source_location caller) const {
  KINDLING_CHECK(sizes.size() == strides.size(), "mismatch in length of strides and shape");
  check_sizes_nonnegative(sizes);
  const std::int64_t off = offset.value_or(storage_offset());
  KINDLING_CHECK(off >= 0, "Tensor: invalid storage offset ", off);
  std::int64_t last = off;  // offset of the last element
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    KINDLING_CHECK(strides[d] >= 0,
                   "as_strided: Negative strides are not supported at the moment, got strides: ", to_string(strides));
    if (sizes[d] == 0) {
      last = -1;
      break;
    }
    last += (sizes[d] - 1) * strides[d];
  }
  const auto es = static_cast<std::int64_t>(element_size());
  if (last >= 0)
    KINDLING_CHECK((last + 1) * es <= static_cast<std::int64_t>(storage().nbytes()), "setStorage: sizes ",
                   to_string(sizes), ", strides ", to_string(strides), ", storage offset ", off, ", and itemsize ", es,
                   " requiring a storage size of ", (last + 1) * es, " are out of bounds for storage of size ",
                   storage().nbytes());
  Tensor view = make(storage(), sizes.vec(), strides.vec(), off, dtype(), impl().version_counter);
  TensorImpl& v = view.impl();
  v.view_base = impl().view_base ? impl().view_base : impl_;
  if (detail::autograd::may_require_grad(*this)) detail::autograd::record_view(*this, view, caller);
  return view;
}

Tensor Tensor::_unsafe_view(IntArrayRef sizes) const {
  std::int64_t n = 1;
  for (const std::int64_t s : sizes) {
    KINDLING_CHECK(s >= 0, "_unsafe_view: negative size in ", to_string(sizes));
    n *= s;
  }
  KINDLING_CHECK(is_contiguous() && n == numel(), "_unsafe_view: needs a contiguous tensor of ", n, " elements");
  // Row-major strides, computed here rather than by contiguous_strides(), which is a
  // student task: given code must not depend on one.
  Shape strides(sizes.size(), 1);
  for (std::size_t d = sizes.size(); d-- > 1;) strides[d - 1] = strides[d] * std::max<std::int64_t>(sizes[d], 1);
  Tensor out = make(storage(), sizes.vec(), std::move(strides), storage_offset(), dtype());
  if (detail::autograd::may_require_grad(*this)) detail::autograd::record_unsafe_view(*this, out);
  return out;
}

Tensor Tensor::movedim(std::int64_t source, std::int64_t destination) const {
  const std::int64_t s = wrap_dim(source, dim());
  const std::int64_t d = wrap_dim(destination, dim());
  Shape order;
  for (std::int64_t i = 0; i < dim(); ++i)
    if (i != s) order.push_back(i);
  order.insert(order.begin() + d, s);
  return permute(order);
}

Tensor Tensor::flatten(std::int64_t start_dim, std::int64_t end_dim) const {
  if (dim() == 0) return reshape({1});
  const std::int64_t s = wrap_dim(start_dim, dim());
  const std::int64_t e = wrap_dim(end_dim, dim());
  KINDLING_CHECK(s <= e, "flatten() has invalid args: start_dim cannot come after end_dim");
  Shape shape(sizes().begin(), sizes().begin() + s);
  std::int64_t merged = 1;
  for (std::int64_t i = s; i <= e; ++i) merged *= sizes()[i];
  shape.push_back(merged);
  shape.insert(shape.end(), sizes().begin() + e + 1, sizes().end());
  return reshape(shape);
}

Scalar Tensor::item() const {
  return visit_dtype(dtype(), [&](auto tag) -> Scalar {
    using T = typename decltype(tag)::type;
    return Scalar(item<T>());
  });
}

namespace detail {
void fill(const Tensor& t, const Scalar& value) {
  if (!t.device().is_cpu()) return device_backend(t.device().type).fill(t, value);
  if (t.numel() == 1) {  // a wrapped Scalar, a 0-d accumulator: no loop to set up
    visit_dtype(t.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      *static_cast<T*>(t.data_ptr()) = value.to<T>();
    });
    return;
  }
  check_no_internal_overlap(t);
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = value.to<T>();
    parallel_for_each_run<1>("fill", t.sizes(), {&t},
                             [v](std::array<char*, 1> p, std::array<std::int64_t, 1> s, std::int64_t n) {
                               if (s[0] == sizeof(T)) {
                                 T* out = reinterpret_cast<T*>(p[0]);
                                 std::fill(out, out + n, v);
                               } else {
                                 for (std::int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
                               }
                             });
  });
}
}  // namespace detail

const Tensor& Tensor::fill_(const Scalar& value) const {
  detail::autograd::inplace(detail::autograd::Op::Fill, *this, {}, [&] {
    detail::fill(*this, value);
    bump_version();
  });
  return *this;
}

namespace {
#ifdef __AVX2__
// dst[i][j] = src[j][i] for an 8x8 block of 4-byte elements, in registers.
inline void transpose8x8(const float* src, std::int64_t src_row, float* dst, std::int64_t dst_row) {
  __m256 r[8], t[8];
  for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(src + k * src_row);
  for (int k = 0; k < 8; k += 2) {
    t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
    t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 8; k += 4) {
    r[k] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int k = 0; k < 4; ++k) {
    _mm256_storeu_ps(dst + k * dst_row, _mm256_permute2f128_ps(r[k], r[k + 4], 0x20));
    _mm256_storeu_ps(dst + (k + 4) * dst_row, _mm256_permute2f128_ps(r[k], r[k + 4], 0x31));
  }
}
#endif

// Copies with conversion. When the source runs down the destination's columns
// (a transpose), the two inner dims are copied in square tiles so that both
// sides stay in cache: that is what makes `t().contiguous()` close to memcpy.
// One element converted as PyTorch 1.13 converts it (c10::convert): a C++ cast, except
// that floating values reach uint8 through int64 (-1.5 -> -1 -> 255, 300.7 -> 300 -> 44),
// where a direct cast of an out-of-range float would be undefined behaviour.
template <class D, class S>
D convert(S v) {
  if constexpr (std::is_same_v<D, std::uint8_t> && std::is_floating_point_v<S>)
    return static_cast<D>(static_cast<std::int64_t>(v));
  else
    return static_cast<D>(v);
}

template <class D, class S>
void copy_kernel(const Tensor& dst, const Tensor& src) {
  constexpr auto sd = static_cast<std::int64_t>(sizeof(D)), ss = static_cast<std::int64_t>(sizeof(S));
  auto body = [](std::array<char*, 2> p, std::array<std::int64_t, 2> row, std::array<std::int64_t, 2> col,
                 std::int64_t rows, std::int64_t cols) {
    if (col[0] == sd && row[1] == ss && col[1] != ss && rows > 1) {
      constexpr std::int64_t kTile = 64;
      for (std::int64_t i0 = 0; i0 < rows; i0 += kTile)
        for (std::int64_t j0 = 0; j0 < cols; j0 += kTile) {
          const std::int64_t i1 = std::min(rows, i0 + kTile), j1 = std::min(cols, j0 + kTile);
#ifdef __AVX2__
          if constexpr (std::is_same_v<D, S> && sizeof(D) == 4) {
            if (col[1] % 4 == 0 && row[0] % 4 == 0 && i1 - i0 == kTile && j1 - j0 == kTile) {
              for (std::int64_t i = i0; i < i1; i += 8)
                for (std::int64_t j = j0; j < j1; j += 8)
                  transpose8x8(reinterpret_cast<const float*>(p[1] + i * ss + j * col[1]), col[1] / 4,
                               reinterpret_cast<float*>(p[0] + i * row[0] + j * sd), row[0] / 4);
              continue;
            }
          }
#endif
          for (std::int64_t i = i0; i < i1; ++i) {
            D* out = reinterpret_cast<D*>(p[0] + i * row[0]);
            const char* in = p[1] + i * ss;
            for (std::int64_t j = j0; j < j1; ++j) out[j] = convert<D>(*reinterpret_cast<const S*>(in + j * col[1]));
          }
        }
      return;
    }
    for (std::int64_t i = 0; i < rows; ++i) {
      char* o = p[0] + i * row[0];
      const char* in = p[1] + i * row[1];
      if constexpr (std::is_same_v<D, S>) {
        if (col[0] == sd && col[1] == ss) {
          std::memcpy(o, in, static_cast<std::size_t>(cols) * sizeof(D));
          continue;
        }
      }
      if (col[0] == sd && col[1] == ss) {
        D* out = reinterpret_cast<D*>(o);
        const S* from = reinterpret_cast<const S*>(in);
        for (std::int64_t j = 0; j < cols; ++j) out[j] = convert<D>(from[j]);
      } else {
        for (std::int64_t j = 0; j < cols; ++j)
          *reinterpret_cast<D*>(o + j * col[0]) = convert<D, S>(*reinterpret_cast<const S*>(in + j * col[1]));
      }
    }
  };
  std::array<char*, 2> data;
  std::array<std::int64_t, 2> strides;
  const bool large = detail::max_threads() > 1 && dst.numel() >= 2 * detail::kParallelGrain;
  if (!large && detail::flat_layout<2>(dst.sizes(), {&dst, &src}, data, strides)) {
    (void)detail::parallel_threads("copy", dst.numel());  // one thread (counted as such)
    if (dst.numel() > 0) body(data, {0, 0}, strides, 1, dst.numel());
    return;
  }
  // Large copies are cut along the outermost dim (rows of a 2-d copy), one piece per
  // thread: every destination element is written by exactly one of them.
  detail::parallel_pieces("copy", detail::make_loop<2>(dst.sizes(), {&dst, &src}), 0,
                          [&body](const detail::StridedLoop<2>& piece) { detail::run_loop_2d(piece, body); });
}
}  // namespace

void detail::copy(const Tensor& dst, const Tensor& src) {
  check_no_internal_overlap(dst);
  const Shape b = broadcast_shapes(dst.sizes(), src.sizes());
  KINDLING_CHECK(IntArrayRef(b).equals(dst.sizes()), "output with shape ", to_string(dst.sizes()),
                 " doesn't match the broadcast shape ", to_string(b));
  // Reading from memory we are writing would corrupt the result: copy the source first.
  Tensor from = src;
  if (src.is_alias_of(dst) && !(src.data_ptr() == dst.data_ptr() && src.strides().equals(dst.strides())))
    from = src.clone();
  if (!dst.device().is_cpu() || !from.device().is_cpu()) {
    const Device d = dst.device().is_cpu() ? from.device() : dst.device();
    return device_backend(d.type).copy(dst, from.expand(dst.sizes()), /*non_blocking=*/false);
  }
  visit_dtype(dst.dtype(), [&](auto dtag) {
    visit_dtype(from.dtype(), [&](auto stag) {
      copy_kernel<typename decltype(dtag)::type, typename decltype(stag)::type>(dst, from);
    });
  });
}

const Tensor& Tensor::copy_(const Tensor& src) const {
  detail::autograd::inplace(detail::autograd::Op::Copy, *this, {src}, [&] {
    detail::copy(*this, src);
    bump_version();
  });
  return *this;
}

Tensor Tensor::clone() const {
  return detail::autograd::differentiable(detail::autograd::Op::Clone, {*this}, [&] {
    Tensor out = detail::empty_contiguous(sizes(), dtype(), device());
    detail::copy(out, *this);
    return out;
  });
}

Tensor Tensor::to(ScalarType t) const {
  if (t == dtype()) return *this;
  return detail::autograd::differentiable(detail::autograd::Op::ToCopy, {*this}, [&] {
    Tensor out = detail::empty_contiguous(sizes(), t, device());
    detail::copy(out, *this);
    return out;
  });
}

// Member conveniences forward to the free functions.
Tensor Tensor::sum() const { return kindling::sum(*this); }
Tensor Tensor::sum(IntArrayRef dims, bool keepdim) const { return kindling::sum(*this, dims, keepdim); }
Tensor Tensor::mean() const { return kindling::mean(*this); }
Tensor Tensor::mean(IntArrayRef dims, bool keepdim) const { return kindling::mean(*this, dims, keepdim); }
Tensor Tensor::max() const { return kindling::max(*this); }
Tensor Tensor::min() const { return kindling::min(*this); }
Tensor Tensor::abs() const { return kindling::abs(*this); }
Tensor Tensor::exp() const { return kindling::exp(*this); }
Tensor Tensor::log() const { return kindling::log(*this); }
Tensor Tensor::relu() const { return kindling::relu(*this); }
Tensor Tensor::matmul(const Tensor& other) const { return kindling::matmul(*this, other); }
Tensor Tensor::mm(const Tensor& other) const { return kindling::mm(*this, other); }
const Tensor& Tensor::add_(const Tensor& other, const Scalar& alpha) const {
  return kindling::add_(*this, other, alpha);
}
const Tensor& Tensor::add_(const Scalar& value) const {
  return kindling::add_(*this, detail::wrapped_scalar_for(value, *this));
}
const Tensor& Tensor::sub_(const Tensor& other) const { return kindling::sub_(*this, other); }
const Tensor& Tensor::mul_(const Tensor& other) const { return kindling::mul_(*this, other); }
const Tensor& Tensor::mul_(const Scalar& value) const {
  return kindling::mul_(*this, detail::wrapped_scalar_for(value, *this));
}
const Tensor& Tensor::div_(const Tensor& other) const { return kindling::div_(*this, other); }
const Tensor& Tensor::div_(const Scalar& value) const {
  return kindling::div_(*this, detail::wrapped_scalar_for(value, *this));
}

std::string to_string(const Tensor& t) {
  std::ostringstream out;
  out << t;
  return out.str();
}

int get_num_threads() { return detail::max_threads(); }

namespace {
// A child made by fork() runs every loop on its own thread (detail::in_forked_child).
[[maybe_unused]] const int g_fork_handler =
    ::pthread_atfork(nullptr, nullptr, [] { detail::in_forked_child.store(true, std::memory_order_relaxed); });
}  // namespace

namespace {
std::atomic<bool> g_deterministic{false}, g_deterministic_warn_only{false};
}  // namespace

void use_deterministic_algorithms(bool mode, bool warn_only) {
  g_deterministic.store(mode);
  g_deterministic_warn_only.store(mode && warn_only);
}
bool are_deterministic_algorithms_enabled() { return g_deterministic.load(); }
bool is_deterministic_algorithms_warn_only_enabled() { return g_deterministic_warn_only.load(); }

namespace {
// The thread counter (record_parallel_use): a flag read on every decision, the list behind a lock
// only while recording.
std::atomic<bool> g_recording_parallel{false};
std::mutex g_parallel_mutex;
std::vector<ParallelUse> g_parallel_uses;
}  // namespace

int detail::parallel_threads(const char* op, std::int64_t work, std::int64_t max_pieces, std::int64_t grain) {
  const std::int64_t n = std::min<std::int64_t>({max_threads(), work / grain, max_pieces});
  const int threads = n < 1 ? 1 : static_cast<int>(n);
  if (g_recording_parallel.load(std::memory_order_relaxed)) [[unlikely]] {
    const std::lock_guard lock(g_parallel_mutex);
    g_parallel_uses.push_back({op, work, threads});
  }
  return threads;
}

void record_parallel_use(bool on) {
  const std::lock_guard lock(g_parallel_mutex);
  if (on) g_parallel_uses.clear();
  g_recording_parallel.store(on, std::memory_order_relaxed);
}

std::vector<ParallelUse> parallel_uses() {
  const std::lock_guard lock(g_parallel_mutex);
  return g_parallel_uses;
}

void set_num_threads(int n) {
  KINDLING_CHECK(n >= 1, "set_num_threads expects a positive integer");  // torch.set_num_threads(0)'s words
#ifdef _OPENMP
  omp_set_num_threads(n);
#endif
}

}  // namespace kindling
