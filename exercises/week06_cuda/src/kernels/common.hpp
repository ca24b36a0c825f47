#pragma once
// What the engine's kernel files share (elementwise.cu, reduce.cu, gemm.cu): an element's place in
// a strided operand, NaN, a launch's thread count, and the dispatch on an element type.

#include <cstdint>
#include <initializer_list>

#include "elementwise.hpp"

namespace kindling::cuda::kernels {

/// The storage offset of element i (in row-major order of s.sizes) of the operand laid out by s.
/// One dimension (what coalesce() makes of a contiguous operand) needs no division: a GPU's 64-bit
/// division costs tens of instructions, and a strided index pays it for every dimension.
__device__ inline std::int64_t offset_of(const Strided& s, std::int64_t i) {
  if (s.ndim == 1) return s.offset + i * s.strides[0];
  std::int64_t off = s.offset;
  for (int d = s.ndim - 1; d >= 0; --d) {
    const std::int64_t size = s.sizes[d];
    off += (i % size) * s.strides[d];
    i /= size;
  }
  return off;
}

/// Rewrites the layouts of operands that share their sizes (an elementwise op's, each possibly
/// broadcast) with as few dimensions as address the same elements in the same row-major order:
/// dimensions of size 1 are dropped, and d joins the one before it wherever every operand steps
/// over the one before as over all of d (stride[d - 1] == stride[d] * size[d]). Contiguous
/// operands become 1-D. Leaves them as they are when their sizes differ. Null entries (scalar
/// operands) are skipped.
inline void coalesce(std::initializer_list<Strided*> operands) {
  Strided* ref = nullptr;
  for (Strided* s : operands)
    if (s != nullptr) {
      if (ref == nullptr) ref = s;
      if (s->ndim != ref->ndim) return;
      for (int d = 0; d < s->ndim; ++d)
        if (s->sizes[d] != ref->sizes[d]) return;
    }
  if (ref == nullptr) return;
  const int ndim = ref->ndim;
  std::int64_t sizes[kMaxDims] = {};
  for (int d = 0; d < ndim; ++d) sizes[d] = ref->sizes[d];
  int kept = 0;  // dimensions so far, written in place (kept <= d, so nothing unread is overwritten)
  for (int d = 0; d < ndim; ++d) {
    if (sizes[d] == 1) continue;
    bool joins = kept > 0;
    for (Strided* s : operands)
      if (s != nullptr && joins) joins = s->strides[kept - 1] == s->strides[d] * sizes[d];
    for (Strided* s : operands) {
      if (s == nullptr) continue;
      if (joins) {
        s->sizes[kept - 1] *= sizes[d];
        s->strides[kept - 1] = s->strides[d];
      } else {
        s->sizes[kept] = sizes[d];
        s->strides[kept] = s->strides[d];
      }
    }
    if (!joins) ++kept;
  }
  for (Strided* s : operands)
    if (s != nullptr) s->ndim = kept;
}

/// True only for NaN.
template <class T>
__device__ inline bool is_nan(T v) {
  return v != v;  // NOLINT(misc-redundant-expression): true only for NaN
}

/// Calls f(T{}) with T the C++ type of `t`.
template <class F>
void with_type(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Bool:
      return f(bool{});
    case ScalarType::UInt8:
      return f(std::uint8_t{});
    case ScalarType::Int32:
      return f(std::int32_t{});
    case ScalarType::Int64:
      return f(std::int64_t{});
    case ScalarType::Float32:
      return f(float{});
    case ScalarType::Float64:
      return f(double{});
  }
}

/// A 0-d CPU operand's value as T.
template <class T>
T scalar_of(const Operand& o) {
  if constexpr (static_cast<bool>(T(0.5) == T(0)))
    return static_cast<T>(o.scalar_int);
  else
    return static_cast<T>(o.scalar);
}

/// Threads per block of a grid-stride kernel.
inline constexpr unsigned kThreads = 256;
#if defined(__CUDACC__)
/// The most blocks a grid-stride kernel launches.
inline constexpr std::int64_t kMaxBlocks = 4096;
#else
/// The most blocks a grid-stride kernel launches: the simulator runs each thread as a fiber, so
/// fewer, longer threads.
inline constexpr std::int64_t kMaxBlocks = 16;
#endif

/// The launch of a grid-stride kernel over `n` elements: enough blocks of kThreads for one element
/// a thread, at least one and at most kMaxBlocks.
inline LaunchConfig config_for(std::int64_t n, void* stream) {
  const std::int64_t blocks = (n + kThreads - 1) / kThreads;
  return LaunchConfig{Dim3(static_cast<unsigned>(blocks < kMaxBlocks ? (blocks > 0 ? blocks : 1) : kMaxBlocks)),
                      Dim3(kThreads), 0, stream};
}

/// Threads for a block that reduces `count` elements: a power of two from 32 to 256.
inline unsigned reduction_threads(std::int64_t count) {
  unsigned t = 32;
  while (t < 256 && static_cast<std::int64_t>(t) < count) t *= 2;
  return t;
}

}  // namespace kindling::cuda::kernels
