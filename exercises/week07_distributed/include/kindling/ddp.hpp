#pragma once
/// @file ddp.hpp
/// DistributedDataParallel's pieces, one task at a time. First: every replica starts from the same
/// weights (the task week07.broadcast_parameters), as DDP's constructor makes them.

#include <kindling/distributed.hpp>
#include <kindling/module.hpp>

namespace kindling::distributed {

/// Makes every rank's `module` equal to rank `root`'s: each of its parameters, then each of its
/// buffers (BatchNorm's running statistics and batch count), in the order named_parameters() and
/// named_buffers() list them, broadcast from `root`, in place. The tensors keep their storage, so an
/// optimizer built on them before still updates them. Every rank must call it with a module of
/// the same structure (the group's check before each collective turns a difference of shape into a
/// DistributedError naming both ranks); `root` outside the group is a DistributedError.
void broadcast_parameters(ProcessGroup& group, nn::Module& module, int root = 0);

}  // namespace kindling::distributed
