#pragma once
/// @file distributed.hpp
/// Week 7: processes that train together. A ProcessGroup (torch.distributed's c10d shape) joins
/// the ranks a launcher started (kindling-run, torchrun's environment contract) and runs
/// collectives over them with **Gloo**, the library PyTorch itself uses on CPUs: all_reduce,
/// broadcast, all_gather, reduce_scatter, barrier, and point-to-point send and recv. Every
/// operation has an asynchronous form that returns a Work handle; the blocking forms wait on it.
///
/// Rendezvous: the ranks meet through a folder on the machine (Gloo's FileStore), which the
/// launcher creates (KINDLING_RDZV_DIR), then connect a full mesh of TCP connections on the
/// loopback interface (MASTER_ADDR, 127.0.0.1 by default). Nothing leaves the machine. Gloo's
/// Redis store is the way across machines, and is not built in.
///
/// What never happens: a hang. Every wait has the group's timeout; a rank that exits, is killed
/// or stops calling collectives makes the others' operations throw DistributedError within it.
/// Before each collective the ranks compare what they are about to do (its sequence number, kind,
/// element count, dtype and root), as c10d's TORCH_DISTRIBUTED_DEBUG=DETAIL does, so that a rank
/// calling all_reduce while another calls broadcast, or two sizes, is an error naming both ranks
/// instead of a hang or a corrupted buffer.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <kindling/error.hpp>
#include <kindling/tensor.hpp>

namespace kindling::distributed {

/// A collective or a point-to-point operation failed: a peer exited or timed out, the ranks
/// disagreed on the collective, or an argument was invalid. The message names the rank.
class DistributedError : public Error {
 public:
  using Error::Error;
};

/// Writes, in the rendezvous folder `store_dir`, that `rank` failed because a peer did (its
/// connection closed, or it did not come within the timeout): the launcher reads it to name the
/// rank that failed first by itself (as torchrun's error files name the root cause).
void lost_peer_marker(const std::string& store_dir, int rank);

/// torch.distributed.ReduceOp.
enum class ReduceOp { Sum, Product, Min, Max, Avg };

/// "SUM", "AVG", ...
std::string to_string(ReduceOp op);

/// The handle of an operation in flight (c10d's Work).
class Work {
 public:
  Work() = default;
  /// Waits until the operation is done, and throws its DistributedError if it failed. A
  /// collective without a `timeout` waits as long as the group's worker takes (each of Gloo's
  /// steps has the group's timeout); with one, it throws when the operation has not finished by
  /// then (and stays in flight). A send or recv always waits with the group's timeout: a shorter
  /// one is refused, because Gloo closes every connection of the group when such a wait runs out.
  /// Once the operation has finished, wait() returns (or throws) at once.
  void wait(std::chrono::milliseconds timeout = std::chrono::milliseconds(0));
  /// Whether it has finished (successfully or not), without waiting. A send or recv finishes in
  /// its wait() (or when the group goes), never by itself.
  bool is_completed() const;
  /// When the group's worker began and ended this collective (the timelines of DDP's overlap);
  /// nothing until it has finished, and never for a send or recv.
  std::optional<std::pair<std::chrono::steady_clock::time_point, std::chrono::steady_clock::time_point>> interval()
      const;

  /// The operation's state, shared with the group that runs it.
  struct State;
  /// A handle on `state` (the group makes these).
  explicit Work(std::shared_ptr<State> state) : state_(std::move(state)) {}

 private:
  std::shared_ptr<State> state_;
};

/// One point-to-point message of a rank, as ProcessGroup::record_messages records it.
struct MessageEvent {
  bool send = false;       ///< a send (else a recv)
  int peer = 0;            ///< the other rank
  int tag = 0;             ///< its tag
  std::int64_t bytes = 0;  ///< its size
  double posted_ms = 0;    ///< when send() or recv() was called, from the group's creation
  double done_ms = 0;      ///< when a wait() on its Work returned
};

/// How to join a group. from_environment() reads torchrun's variables.
struct Options {
  int rank = 0;                       ///< RANK
  int world_size = 1;                 ///< WORLD_SIZE
  std::string store_dir;              ///< KINDLING_RDZV_DIR: the rendezvous folder
  std::string address = "127.0.0.1";  ///< MASTER_ADDR: the interface the ranks connect on
  /// Every operation's limit (KINDLING_DIST_TIMEOUT_MS; PyTorch's default is 30 minutes, the
  /// kit's 60 s, so that a broken run says so within a minute).
  std::chrono::milliseconds timeout = std::chrono::seconds(60);
  /// Compare each collective across the ranks before running it (on by default).
  bool check_collectives = true;
  /// RANK, WORLD_SIZE, KINDLING_RDZV_DIR, MASTER_ADDR, KINDLING_DIST_TIMEOUT_MS; throws
  /// DistributedError naming what is missing or out of range (a rank outside [0, WORLD_SIZE)).
  static Options from_environment();
};

/// A group of ranks and its Gloo context. Tensors passed to it must be contiguous CPU tensors of
/// any dtype but bool (PyTorch's Gloo backend refuses bool too: "Invalid scalar type"); the same
/// on every rank where the operation says so.
class ProcessGroup {
 public:
  /// Joins the group (and sets SIGPIPE to be ignored, as Python does, so that a peer's death is
  /// an error here and not the end of this process): waits until every rank has arrived (Gloo's store waits up to 30 s
  /// for the others' addresses, then each connection has the group's timeout), then connects.
  explicit ProcessGroup(const Options& options);
  /// ProcessGroup(Options::from_environment()).
  static ProcessGroup from_environment();
  ~ProcessGroup();
  /// Moves the group (its connections and worker thread) into a new handle.
  ProcessGroup(ProcessGroup&&) noexcept;
  /// Moves the group into this handle.
  ProcessGroup& operator=(ProcessGroup&&) noexcept;
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const;                           ///< this process's rank
  int size() const;                           ///< the number of ranks
  std::chrono::milliseconds timeout() const;  ///< the group's limit for every wait

  /// Every rank's `tensor` becomes op over the ranks' tensors, in place.
  [[nodiscard]] Work all_reduce_async(const Tensor& tensor, ReduceOp op = ReduceOp::Sum);
  /// all_reduce_async, waited for.
  void all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::Sum) { all_reduce_async(tensor, op).wait(); }
  /// Every rank's `tensor` becomes `root`'s.
  [[nodiscard]] Work broadcast_async(const Tensor& tensor, int root = 0);
  /// broadcast_async, waited for.
  void broadcast(const Tensor& tensor, int root = 0) { broadcast_async(tensor, root).wait(); }
  /// outputs[r] becomes rank r's `input` (outputs: size() tensors of input's shape and dtype).
  /// After the kit's own checks of every tensor (defined, CPU, contiguous), PyTorch 1.13's
  /// errors in its order: a dtype that differs ("Invalid usage of tensors with
  /// different dtypesFound torch.float32 and  torch.int32", its words), another number of outputs
  /// ("ProcessGroupGloo::allgather: invalid output tensor list at index 0 (expected length 2, got
  /// 1)"), an output of another shape ("... invalid tensor size at index 1 (expected (2), got (3))").
  [[nodiscard]] Work all_gather_async(const std::vector<Tensor>& outputs, const Tensor& input);
  /// all_gather_async, waited for.
  void all_gather(const std::vector<Tensor>& outputs, const Tensor& input) { all_gather_async(outputs, input).wait(); }
  /// `output` becomes op over the ranks' inputs[rank()] (inputs: size() tensors of output's
  /// shape and dtype).
  [[nodiscard]] Work reduce_scatter_async(const Tensor& output, const std::vector<Tensor>& inputs,
                                          ReduceOp op = ReduceOp::Sum);
  /// reduce_scatter_async, waited for.
  void reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op = ReduceOp::Sum) {
    reduce_scatter_async(output, inputs, op).wait();
  }
  /// Returns when every rank has called it.
  void barrier();

  /// Sends `tensor` to rank `dst`; `tag` tells messages between the same two ranks apart (the
  /// receiver's must match). The tensor must not change until the Work is done. A Work dropped
  /// without a wait is waited for when the group goes (its buffer must outlive Gloo's use of it).
  [[nodiscard]] Work send(const Tensor& tensor, int dst, int tag = 0);
  /// Receives into `tensor` from rank `src` with `tag`: a DistributedError naming both sizes when
  /// the sender's message has another number of bytes (each message's size travels ahead of it).
  [[nodiscard]] Work recv(const Tensor& tensor, int src, int tag = 0);
  /// Bytes this rank has sent with send() since the group was made (the ring's cost).
  std::int64_t bytes_sent() const;
  /// While on, every send and recv is recorded with its times (the lecture's timelines); turning
  /// it on forgets what was recorded.
  void record_messages(bool on);
  /// The messages recorded since record_messages(true), in the order they were posted.
  std::vector<MessageEvent> recorded_messages() const;

  /// The Gloo context, the worker thread and the counters (process_group.cpp).
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace kindling::distributed
