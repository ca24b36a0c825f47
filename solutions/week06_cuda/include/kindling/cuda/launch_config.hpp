#pragma once
/// @file launch_config.hpp
/// How a kernel is launched: the grid of blocks, the threads of a block, the bytes of dynamic
/// shared memory, and the stream. The same type serves the device build and the simulator.

#include <cstddef>
#include <cstdint>
#include <string>

namespace kindling::cuda {

/// Three extents, as CUDA's dim3: unset ones are 1.
struct Dim3 {
  unsigned x = 1;  ///< extent along x
  unsigned y = 1;  ///< extent along y
  unsigned z = 1;  ///< extent along z
  /// (x, y, z), each 1 unless given.
  constexpr Dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}  // NOLINT
  /// x * y * z.
  constexpr std::uint64_t count() const { return std::uint64_t{x} * y * z; }
};

/// A kernel launch: `grid` blocks of `block` threads, `shared_bytes` of dynamic shared memory
/// per block, on `stream` (null: the default stream).
struct LaunchConfig {
  Dim3 grid;                     ///< blocks in the grid
  Dim3 block;                    ///< threads in a block
  std::size_t shared_bytes = 0;  ///< dynamic shared memory per block (KINDLING_DYNAMIC_SHARED)
  void* stream = nullptr;        ///< the stream (null: the default stream)
};

/// CUDA's limits that a launch is checked against (compute capability 7.5 to 9.0 alike).
struct Limits {
  static constexpr unsigned kMaxThreadsPerBlock = 1024;      ///< x * y * z of a block
  static constexpr unsigned kMaxBlockX = 1024;               ///< threads along x
  static constexpr unsigned kMaxBlockY = 1024;               ///< threads along y
  static constexpr unsigned kMaxBlockZ = 64;                 ///< threads along z
  static constexpr unsigned kMaxGridX = 2147483647u;         ///< blocks along x
  static constexpr unsigned kMaxGridY = 65535;               ///< blocks along y
  static constexpr unsigned kMaxGridZ = 65535;               ///< blocks along z
  static constexpr std::size_t kMaxSharedBytes = 48 * 1024;  ///< static + dynamic, without an opt-in
};

/// "" when `config` is within Limits, else why not, in CUDA's terms
/// ("too many threads per block: 2048 (at most 1024)"). Both builds call it before launching.
std::string check_launch_config(const LaunchConfig& config);

}  // namespace kindling::cuda
