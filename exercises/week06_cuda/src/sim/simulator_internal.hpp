#pragma once
// Shared between the simulator's files: where the running simulated thread is, for messages,
// and the heap's live allocations, for the race check's snapshots.

#include <string>
#include <vector>

#include <kindling/cuda/sim.hpp>

namespace kindling::cuda::sim {

/// "kernel add, block (1, 0, 0), thread (37, 0, 0)", or "host code" outside a kernel.
std::string where_now();

/// The device allocations not freed (not shared memory), in allocation order.
std::vector<Allocation*> live_allocations();

/// The device's capacity (set_capacity).
std::size_t capacity();

/// copy_to_host without the check for queued work (the runtime's own copies, which run in the
/// queue's order).
void copy_to_host_unsynchronized(void* dst, const Allocation* a, std::size_t offset, std::size_t bytes);

}  // namespace kindling::cuda::sim
