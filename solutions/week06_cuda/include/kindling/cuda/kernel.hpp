#pragma once
/// @file kernel.hpp
/// What every kernel file (`.cu`) includes. One kernel source, two builds:
/// - **the device build** (nvcc): CUDA's own built-ins; `DevPtr<T>` is a plain `T*`, and
///   `launch<kernel>(config, args...)` is `kernel<<<grid, block, shared, stream>>>(args...)`.
/// - **the simulator build** (the host compiler, always): the kit's built-ins
///   (<kindling/cuda/sim.hpp>), a checked `DevPtr<T>`, and `launch<kernel>` runs the grid on
///   the CUDA simulator, which reports what a GPU does not tell you: out-of-bounds and
///   use-after-free accesses, reads of memory never written, a `__syncthreads` that not every
///   thread reaches, warp operations whose lanes never meet, and results that depend on the
///   order in which threads run.
///
/// Vector access: `as_float4(p)[i]` reads or writes four floats in one 16-byte access (under nvcc a
/// `reinterpret_cast<const float4*>(p)`; static shared arrays are aligned on 16 bytes for it).
///
/// Dynamic shared memory: `KINDLING_DYNAMIC_SHARED(float, buf);` inside the kernel (under
/// nvcc `extern __shared__ float buf[];`, in the simulator a checked pointer to the block's
/// `config.shared_bytes`). A static shared array: `KINDLING_SHARED(float[32][32], tile);` (under
/// nvcc `__shared__ float tile[32][32];`, in the simulator the block's own copy, unwritten at the
/// block's start and checked in every dimension; a plain `__shared__` does not compile there).
///
/// `KINDLING_UNROLL` before a loop whose trip count is known at compile time asks nvcc to unroll
/// it (`#pragma unroll`); the simulator's build ignores it.

#include <kindling/cuda/launch_config.hpp>

#if defined(__CUDACC__)

namespace kindling::cuda {
/// A pointer to device memory: a plain pointer in the device build.
template <class T>
using DevPtr = T*;

/// The device address `p` as a pointer to T.
template <class T>
DevPtr<T> device_ptr(const void* p) {
  return static_cast<T*>(const_cast<void*>(p));
}

/// `p` as a pointer to float4: `as_float4(p)[i]` is one 16-byte access, which must start on a
/// 16-byte boundary.
__host__ __device__ inline const float4* as_float4(const float* p) { return reinterpret_cast<const float4*>(p); }
/// The same, writable.
__host__ __device__ inline float4* as_float4(float* p) { return reinterpret_cast<float4*>(p); }

/// Throws CudaError for a launch configuration beyond CUDA's limits (defined with the runtime).
void check_launch_or_throw(const char* kernel, const LaunchConfig& config);

/// Launches `Kernel` on the device, after checking `config` against CUDA's limits.
template <auto Kernel, class... Args>
void launch(const LaunchConfig& config, Args... args) {
  check_launch_or_throw(__PRETTY_FUNCTION__, config);
  Kernel<<<::dim3(config.grid.x, config.grid.y, config.grid.z), ::dim3(config.block.x, config.block.y, config.block.z),
           config.shared_bytes, static_cast<cudaStream_t>(config.stream)>>>(args...);
}
}  // namespace kindling::cuda

namespace kindling::cuda {
/// KINDLING_SHARED's type under nvcc: the array type itself.
template <class A>
using SharedArrayType = A;
}  // namespace kindling::cuda
#define KINDLING_DYNAMIC_SHARED(T, name) extern __shared__ T name[]
#define KINDLING_SHARED(Type, name) __shared__ __align__(16)::kindling::cuda::SharedArrayType<Type> name
#define KINDLING_UNROLL _Pragma("unroll")
#else
#include <kindling/cuda/sim.hpp>
#define KINDLING_UNROLL
#endif
