// Launch configurations against CUDA's limits: both builds check a launch here before running it.

#include <string>

#include <kindling/cuda/launch_config.hpp>

// ---- launch configurations (both builds) -----------------------------------------------------
namespace kindling::cuda {
std::string check_launch_config(const LaunchConfig& c) {
  if (c.grid.count() == 0 || c.block.count() == 0) return "a grid or block dimension is 0";
  const auto threads = c.block.count();
  if (threads > Limits::kMaxThreadsPerBlock)
    return "too many threads per block: " + std::to_string(threads) + " (at most " +
           std::to_string(Limits::kMaxThreadsPerBlock) + ")";
  if (c.block.x > Limits::kMaxBlockX || c.block.y > Limits::kMaxBlockY || c.block.z > Limits::kMaxBlockZ)
    return "block dimensions (" + std::to_string(c.block.x) + ", " + std::to_string(c.block.y) + ", " +
           std::to_string(c.block.z) + ") exceed (1024, 1024, 64)";
  if (c.grid.x > Limits::kMaxGridX || c.grid.y > Limits::kMaxGridY || c.grid.z > Limits::kMaxGridZ)
    return "grid dimensions (" + std::to_string(c.grid.x) + ", " + std::to_string(c.grid.y) + ", " +
           std::to_string(c.grid.z) + ") exceed (2147483647, 65535, 65535)";
  if (c.shared_bytes > Limits::kMaxSharedBytes)
    return "too much dynamic shared memory: " + std::to_string(c.shared_bytes) + " bytes (at most " +
           std::to_string(Limits::kMaxSharedBytes) + " without an opt-in)";
  return "";
}
}  // namespace kindling::cuda
