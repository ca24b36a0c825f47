#pragma once
/// @file dist_checkpoint.hpp
/// Checkpoints of a data-parallel run (the task week07.rank0_checkpoint): every rank holds the same
/// model and optimizer, so one rank writes the file (week 5's atomic
/// serialize::save_checkpoint) and every rank
/// reads it back to resume. What makes it hard is the others: none may read before the writer has
/// finished, and a writer that fails must not leave them waiting.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include <kindling/checkpoint.hpp>
#include <kindling/distributed.hpp>

namespace kindling::distributed {

/// Rank `root` saves `model`, `optimizer` (may be null) and `epoch` to `path` with week 5's
/// save_checkpoint (atomic: a crash leaves the previous file); no other rank touches `path`. Returns
/// on every rank only once the file is complete, and throws on every rank when the root could not
/// write it: a DistributedError that, on the other ranks, names the root ("rank 0"), and on the root carries
/// save_checkpoint's message. `root` outside the group is a DistributedError.
void save_on_rank(ProcessGroup& group, const std::filesystem::path& path, nn::Module& model,
                  optim::Optimizer* optimizer, std::int64_t epoch, int root = 0);

/// Every rank loads `path` (written by save_on_rank) into its `model` and `optimizer` (may be null)
/// with week 5's load_checkpoint and returns its metadata ("epoch" says where to resume). When any
/// rank cannot load it, every rank throws a DistributedError naming the ranks that could not ("rank(s)
/// 1, 3"), so
/// that no rank trains on alone (each failing rank's message includes load_checkpoint's).
std::map<std::string, std::string> load_everywhere(ProcessGroup& group, const std::filesystem::path& path,
                                                   nn::Module& model, optim::Optimizer* optimizer);

}  // namespace kindling::distributed
