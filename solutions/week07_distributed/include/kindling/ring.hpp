#pragma once
/// @file ring.hpp
/// The ring all-reduce (the task week07.ring_all_reduce): how a sum of every rank's buffer
/// reaches every rank while each rank sends only about twice its buffer, whatever the number of
/// ranks (Baidu's and Horovod's ring, and NCCL's for large messages).

#include <kindling/distributed.hpp>

namespace kindling::distributed {

/// Replaces `tensor` on every rank with the sum of the ranks' tensors, using only group.send and
/// group.recv between neighbours on a ring (rank r sends to r + 1 and receives from r - 1, modulo
/// size()). The buffer is cut into size() chunks, chunk c being elements [c n / N, (c + 1) n / N)
/// for n elements and N ranks (so they differ by at most one element, and some may be empty: an
/// empty chunk is still sent and received, as a message of no elements):
/// N - 1 steps of reduce-scatter leave each rank with one chunk summed over all ranks, and N - 1
/// steps of all-gather pass the summed chunks round. Each rank sends 2 (N - 1) chunks, 2 (N - 1) / N
/// of the buffer (group.bytes_sent() counts it), and never the whole buffer at once. Every rank
/// must call it with a tensor of the same numel; a contiguous float32 CPU tensor, else a
/// DistributedError before anything is sent. With one rank, nothing is sent.
void ring_all_reduce(ProcessGroup& group, const Tensor& tensor);

}  // namespace kindling::distributed
