// The caching allocator around the free list (src/tasks/free_list.cpp): segments from the
// runtime, the two pools, events for blocks used on other streams, statistics, and the retry
// before the out-of-memory error.

#include <cstdio>
#include <cstdlib>
#include <string>

#include <kindling/cuda/caching_allocator.hpp>

namespace kindling::cuda {

bool BlockOrder::operator()(const Block* a, const Block* b) const {
  if (a->stream != b->stream)
    return reinterpret_cast<std::uintptr_t>(a->stream) < reinterpret_cast<std::uintptr_t>(b->stream);
  if (a->size != b->size) return a->size < b->size;
  return reinterpret_cast<std::uintptr_t>(a->ptr) < reinterpret_cast<std::uintptr_t>(b->ptr);
}

std::size_t round_size(std::size_t bytes) {
  constexpr std::size_t m = AllocatorSizes::kMinBlockSize;
  return bytes < m ? m : m * ((bytes + m - 1) / m);
}

std::size_t segment_size(std::size_t rounded) {
  if (rounded <= AllocatorSizes::kSmallSize) return AllocatorSizes::kSmallBuffer;
  if (rounded < AllocatorSizes::kMinLargeAlloc) return AllocatorSizes::kLargeBuffer;
  constexpr std::size_t r = AllocatorSizes::kRoundLarge;
  return r * ((rounded + r - 1) / r);
}

namespace {
// PyTorch's format_size: "512 bytes", "2.00 KiB", "20.00 MiB", "1.00 GiB".
std::string format_size(std::size_t bytes) {
  char buf[64];
  const auto b = static_cast<double>(bytes);
  if (bytes <= 1024)
    std::snprintf(buf, sizeof buf, "%zu bytes", bytes);
  else if (bytes <= 1048576)
    std::snprintf(buf, sizeof buf, "%.2f KiB", b / 1024.0);
  else if (bytes <= 1073741824)
    std::snprintf(buf, sizeof buf, "%.2f MiB", b / 1048576.0);
  else
    std::snprintf(buf, sizeof buf, "%.2f GiB", b / 1073741824.0);
  return buf;
}
}  // namespace

CachingAllocator::CachingAllocator(Runtime& runtime) : runtime_(runtime) { small_.small = true; }

CachingAllocator::~CachingAllocator() = default;  // never destroyed while tensors live (see caching_allocator())

Block* CachingAllocator::malloc_segment(std::size_t size, Stream stream, bool small) {
  void* p = nullptr;
  try {
    p = runtime_.malloc(size);
  } catch (const OutOfMemoryError&) {
    // Free the cache's unused segments and try once more, as PyTorch does.
    ++stats_.retries;
    release_cached_segments();
    p = runtime_.malloc(size);  // a second OutOfMemoryError goes to allocate()
  }
  ++stats_.device_mallocs;
  ++stats_.segments;
  stats_.reserved += size;
  stats_.peak_reserved = std::max(stats_.peak_reserved, stats_.reserved);
  auto* b = new Block;
  b->stream = stream;
  b->size = size;
  b->ptr = static_cast<char*>(p);
  b->small = small;
  return b;
}

void* CachingAllocator::allocate(std::size_t bytes, Stream stream) {
  if (bytes == 0) return nullptr;
  std::lock_guard lock(mutex_);
  process_events();
  const std::size_t size = round_size(bytes);
  const bool small = size <= AllocatorSizes::kSmallSize;
  BlockPool& pool = small ? small_ : large_;
  Block* block = take_best_fit(pool, stream, size);
  if (block == nullptr) {
    try {
      block = malloc_segment(segment_size(size), stream, small);
    } catch (const OutOfMemoryError&) {
      throw_oom(size);
    }
  }
  split_block(pool, block, size);
  block->allocated = true;
  active_[block->ptr] = block;
  stats_.allocated += block->size;
  stats_.peak_allocated = std::max(stats_.peak_allocated, stats_.allocated);
  return block->ptr;
}

void CachingAllocator::throw_oom(std::size_t size) {
  ++stats_.ooms;
  const auto [device_free, device_total] = runtime_.mem_info();
  throw OutOfMemoryError("CUDA out of memory. Tried to allocate " + format_size(size) + " (GPU 0; " +
                         format_size(device_total) + " total capacity; " + format_size(stats_.allocated) +
                         " already allocated; " + format_size(device_free) + " free; " + format_size(stats_.reserved) +
                         " reserved in total by Kindling) If reserved memory is >> allocated memory try setting "
                         "max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and "
                         "PYTORCH_CUDA_ALLOC_CONF");
}

void CachingAllocator::free(void* ptr) {
  if (ptr == nullptr) return;
  std::lock_guard lock(mutex_);
  auto it = active_.find(ptr);
  KINDLING_CHECK_AS(CudaError, it != active_.end(), "CachingAllocator::free: ", ptr,
                    " was not allocated by this allocator (or was freed already)");
  Block* block = it->second;
  active_.erase(it);
  block->allocated = false;
  stats_.allocated -= block->size;
  if (!block->stream_uses.empty()) {
    // Used on other streams: reusable only once their work up to now is done.
    for (Stream s : block->stream_uses) {
      Event e = nullptr;
      if (!spare_events_.empty()) {
        e = spare_events_.back();
        spare_events_.pop_back();
      } else {
        e = runtime_.create_event();
      }
      runtime_.record_event(e, s);
      ++block->pending_events;
      events_.push_back({e, block});
    }
    block->stream_uses.clear();
    return;
  }
  free_block(block->small ? small_ : large_, block);
}

void CachingAllocator::process_events() {
  for (std::size_t i = 0; i < events_.size();) {
    auto [e, block] = events_[i];
    if (!runtime_.query_event(e)) {
      ++i;
      continue;
    }
    spare_events_.push_back(e);
    events_.erase(events_.begin() + static_cast<std::ptrdiff_t>(i));
    if (--block->pending_events == 0) free_block(block->small ? small_ : large_, block);
  }
}

void CachingAllocator::record_stream(void* ptr, Stream stream) {
  std::lock_guard lock(mutex_);
  auto it = active_.find(ptr);
  KINDLING_CHECK_AS(CudaError, it != active_.end(), "record_stream: ", ptr, " is not an allocation of this allocator");
  if (stream != it->second->stream) it->second->stream_uses.insert(stream);
}

void CachingAllocator::release_cached_segments() {
  for (BlockPool* pool : {&small_, &large_}) {
    for (auto it = pool->blocks.begin(); it != pool->blocks.end();) {
      Block* b = *it;
      if (b->prev == nullptr && b->next == nullptr) {  // a whole segment, unused
        runtime_.free(b->ptr);
        stats_.reserved -= b->size;
        --stats_.segments;
        it = pool->blocks.erase(it);
        delete b;
      } else {
        ++it;
      }
    }
  }
}

void CachingAllocator::empty_cache() {
  std::lock_guard lock(mutex_);
  runtime_.synchronize();
  process_events();
  release_cached_segments();
}

AllocatorStats CachingAllocator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void CachingAllocator::reset_peak_stats() {
  std::lock_guard lock(mutex_);
  stats_.peak_allocated = stats_.allocated;
  stats_.peak_reserved = stats_.reserved;
}

bool caching_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("PYTORCH_NO_CUDA_MEMORY_CACHING");
    return v == nullptr || std::string(v) != "1";
  }();
  return enabled;
}

CachingAllocator& caching_allocator() {
  static auto* a = new CachingAllocator(runtime());  // never destroyed: tensors may be freed after main
  return *a;
}

std::size_t memory_allocated() { return caching_allocator().stats().allocated; }
std::size_t memory_reserved() { return caching_allocator().stats().reserved; }
std::size_t max_memory_allocated() { return caching_allocator().stats().peak_allocated; }
void empty_cache() { caching_allocator().empty_cache(); }

}  // namespace kindling::cuda
