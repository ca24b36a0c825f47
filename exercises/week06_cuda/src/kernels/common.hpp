#pragma once
// What the engine's kernel files share (elementwise.cu, reduce.cu, gemm.cu): an element's place in
// a strided operand, NaN, a launch's thread count, and the dispatch on an element type.

#include <cstdint>

#include "elementwise.hpp"

namespace kindling::cuda::kernels {

/// The storage offset of element i (in row-major order of s.sizes) of the operand laid out by s.
__device__ inline std::int64_t offset_of(const Strided& s, std::int64_t i) {
  std::int64_t off = s.offset;
  for (int d = s.ndim - 1; d >= 0; --d) {
    const std::int64_t size = s.sizes[d];
    off += (i % size) * s.strides[d];
    i /= size;
  }
  return off;
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
