#pragma once
/// @file ddp.hpp
/// DistributedDataParallel, one task at a time, in the order of the lecture:
/// 1. every replica starts from the same weights (week07.broadcast_parameters), as DDP's
///    constructor makes them;
/// 2. the parameters are grouped into buckets, the last layers' first (week07.bucket_assignment),
///    as PyTorch's compute_bucket_assignment_by_size does;
/// 3. each parameter's post-accumulate-grad hook marks it ready during backward, and a bucket whose
///    gradients have all arrived starts its all-reduce while backward goes on (week07.ddp_hooks);
/// 4. no_sync() lets gradients accumulate over micro-batches without talking (week07.no_sync).

#include <chrono>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include <kindling/distributed.hpp>
#include <kindling/module.hpp>
#include <kindling/optim.hpp>

namespace kindling::distributed {

/// Makes every rank's `module` equal to rank `root`'s: each of its parameters, then each of its
/// buffers (BatchNorm's running statistics and batch count), in the order named_parameters() and
/// named_buffers() list them, broadcast from `root`, in place. The tensors keep their storage, so an
/// optimizer built on them before still updates them. Every rank must call it with a module of
/// the same structure (the group's check before each collective turns a difference of shape into a
/// DistributedError naming both ranks); `root` outside the group is a DistributedError.
void broadcast_parameters(ProcessGroup& group, nn::Module& module, int root = 0);

// ---- buckets -----------------------------------------------------------------------------------

/// torch.distributed._DEFAULT_FIRST_BUCKET_BYTES (1 MiB): DDP's first bucket, the one backward
/// fills first, is small so that communication starts early.
inline constexpr std::int64_t kDefaultFirstBucketBytes = 1024 * 1024;
/// DDP's bucket_cap_mb default, 25 MiB.
inline constexpr std::int64_t kDefaultBucketCapBytes = 25 * 1024 * 1024;

/// What compute_bucket_assignment_by_size returns (PyTorch returns the same two lists).
struct BucketAssignment {
  std::vector<std::vector<std::size_t>> buckets;  ///< each bucket's tensors, as indices
  std::vector<std::int64_t> size_limits;          ///< the limit each bucket was filled against
};

/// Groups `tensors` into buckets by size, as PyTorch 1.13's compute_bucket_assignment_by_size:
/// - The tensors are taken in the order given; tensor `i` is called `tensor_indices[i]` in the
///   result, or `i` when `tensor_indices` is empty. (DDP passes its parameters in reverse
///   registration order with their indices, approximately the order backward produces their
///   gradients.)
/// - Tensors of different dtypes never share a bucket: each dtype fills a bucket of its own. A
///   tensor joins its dtype's open bucket, whose size (numel x element size, in bytes) grows by
///   it; once the size is **at least** the bucket's limit, the bucket closes with that tensor in
///   it (a bucket can therefore exceed its limit, and a tensor larger than the limit is a bucket
///   alone or with those before it).
/// - A dtype's first bucket has the limit `bucket_size_limits[0]`, its next bucket the next limit,
///   and so on; the last limit serves every bucket after.
/// - When the tensors run out, each dtype's open bucket that holds a tensor closes too (in the
///   order the dtypes first appeared).
/// - With `tensor_indices` empty, the buckets are then sorted by the smallest index they hold;
///   with indices, they stay in the order they closed.
///
/// `size_limits[k]` is the limit bucket `k` was filled against. Throws kindling::Error for no
/// tensors, no limits, a limit below 1, or `tensor_indices` that is not empty and not a
/// permutation of 0 .. n - 1.
BucketAssignment compute_bucket_assignment_by_size(const std::vector<Tensor>& tensors,
                                                   const std::vector<std::int64_t>& bucket_size_limits,
                                                   const std::vector<std::size_t>& tensor_indices = {});

// ---- DistributedDataParallel --------------------------------------------------------------------

/// DistributedDataParallel's options (PyTorch's keyword arguments).
struct DdpOptions {
  double bucket_cap_mb = 25;                                   ///< every bucket's limit but the first, in MiB
  std::int64_t first_bucket_bytes = kDefaultFirstBucketBytes;  ///< the first bucket's limit
  bool broadcast_buffers = true;  ///< every forward first broadcasts rank 0's buffers (BatchNorm's statistics)
};

/// One bucket of the reducer: its parameters' gradients side by side in one flat tensor, which one
/// all-reduce sums over the ranks.
struct Bucket {
  std::vector<std::size_t> params;    ///< the parameters in it (indices into parameters()), in layout order
  std::vector<std::int64_t> offsets;  ///< where each one's gradient starts in `flat`, in elements
  Tensor flat;                        ///< 1-d, of the parameters' dtype: the gradients, then their sum
  std::size_t pending = 0;            ///< parameters whose gradient has not arrived in this backward
  Work work;                          ///< its all-reduce, once launched in this backward
  bool launched = false;              ///< whether its all-reduce was launched in this backward
  std::chrono::steady_clock::time_point ready_at;  ///< when its last gradient arrived (the timeline)
};

/// One backward of a DDP model, as it happened on this rank (the lecture's overlap timeline).
struct BackwardTimeline {
  /// From the end of forward, in milliseconds: when the last gradient arrived (backward's end).
  double backward_done_ms = 0;
  /// When finalize() had waited for every all-reduce and written the mean gradients.
  double reduced_ms = 0;
  std::vector<double> ready_ms;       ///< when each bucket's last gradient arrived (bucket order)
  std::vector<double> comm_begin_ms;  ///< when each bucket's all-reduce began on the group's worker
  std::vector<double> comm_end_ms;    ///< when each bucket's all-reduce ended
  /// The share of the all-reduce time that ran while backward was still computing, in [0, 1].
  double hidden_fraction() const;
};

/// PyTorch's DistributedDataParallel over a ProcessGroup: wraps `module` (the caller keeps it
/// alive, and the group), makes every replica rank 0's (broadcast_parameters), groups the
/// parameters into buckets in reverse registration order (compute_bucket_assignment_by_size with
/// limits {first_bucket_bytes, bucket_cap_mb}), and puts a post-accumulate-grad hook on every
/// parameter. After a forward through this object, backward all-reduces the gradients bucket by
/// bucket while it runs, and leaves in every `.grad` the mean over the ranks: the gradient one
/// process would get from all the ranks' batches together. Every parameter must get a gradient in
/// every backward (PyTorch's find_unused_parameters=False): one that did not makes the next
/// forward throw PyTorch's "Expected to have finished reduction in the prior iteration ..." error.
class DistributedDataParallel {
 public:
  /// Wraps `module`; throws DistributedError when the ranks' models differ in shape.
  DistributedDataParallel(ProcessGroup& group, nn::Module& module, DdpOptions options = {});
  /// Removes the hooks (waiting for any all-reduce still in flight).
  ~DistributedDataParallel();
  DistributedDataParallel(const DistributedDataParallel&) = delete;
  DistributedDataParallel& operator=(const DistributedDataParallel&) = delete;

  /// The module's forward. First refuses to start while the previous backward's reduction is
  /// unfinished (a parameter got no gradient), then broadcasts rank 0's buffers
  /// (broadcast_buffers), and, when grad mode is on and no NoSync is alive, calls
  /// prepare_for_backward() so that the next backward all-reduces.
  Tensor forward(const Tensor& input);
  /// forward().
  Tensor operator()(const Tensor& input) { return forward(input); }

  /// While the returned guard lives, forward does not prepare the reducer: the backward that
  /// follows leaves its gradients on this rank, added to `.grad` as always. The first forward and
  /// backward after the guard is gone all-reduce the sum accumulated in `.grad` (PyTorch's
  /// no_sync()). Guards nest; each restores what it found. Task week07.no_sync.
  class NoSync {
   public:
    /// Turns synchronisation off for `ddp`, remembering in previous_ whether it was on (the task).
    explicit NoSync(DistributedDataParallel& ddp);
    /// Restores previous_.
    ~NoSync();
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    DistributedDataParallel& ddp_;
    bool previous_;
  };
  /// A NoSync guard on this model.
  [[nodiscard]] NoSync no_sync() { return NoSync(*this); }

  /// The wrapped module.
  nn::Module& module() { return module_; }
  /// The group.
  ProcessGroup& group() { return group_; }
  /// The module's parameters, in registration order (the indices the buckets use).
  const std::vector<Tensor>& parameters() const { return params_; }
  /// The buckets, in the order their all-reduces are launched.
  const std::vector<Bucket>& buckets() const { return buckets_; }
  /// How many bucket all-reduces this model has launched since it was made.
  std::int64_t all_reduces_launched() const { return launched_total_; }
  /// The last finished backward's timeline.
  const BackwardTimeline& last_timeline() const { return timeline_; }

  // ---- the reducer (task week07.ddp_hooks; its contract is in src/tasks/ddp_hooks.cpp) ----------
  /// Starts an iteration: every bucket waits for all its parameters again, none is launched, no
  /// parameter is marked, next_bucket_ is 0, and the hooks are armed (expect_hooks_).
  void prepare_for_backward();
  /// Called by parameter `index`'s hook once backward has accumulated its `.grad`, while armed:
  /// marks it, copies its `.grad` divided by the world size into its place in its bucket, and
  /// launches (without waiting) the all-reduces of the buckets that are complete, in bucket order,
  /// setting their `work` and `launched` and counting them in all_reduces_launched(); after the
  /// last bucket, finalize().
  void mark_ready(std::size_t index);
  /// Waits for every bucket's all-reduce, copies each bucket's sums back into its parameters'
  /// `.grad`, and disarms the hooks.
  void finalize();

 private:
  friend class NoSync;
  void on_gradient(std::size_t index);  // the hook: mark_ready while armed, and the timeline

  ProcessGroup& group_;
  nn::Module& module_;
  DdpOptions options_;
  std::vector<Tensor> params_;                                // the module's parameters, in order
  std::vector<Bucket> buckets_;                               // in launch order
  std::vector<std::pair<std::size_t, std::size_t>> locator_;  // parameter -> (bucket, place in it)
  std::vector<bool> marked_;                                  // parameters marked in this backward
  std::size_t next_bucket_ = 0;                               // the first bucket not yet launched
  bool expect_hooks_ = false;                                 // armed by prepare_for_backward, disarmed by finalize
  bool require_backward_grad_sync_ = true;                    // false while a NoSync lives
  std::int64_t launched_total_ = 0;
  std::chrono::steady_clock::time_point forward_done_;
  BackwardTimeline timeline_;
  std::vector<autograd::HookHandle> hooks_;
};

/// One optimizer step over `micro_batches` (input, target) with gradient accumulation, as a
/// data-parallel training loop that cannot fit its batch does: `optimizer.zero_grad()`, then for
/// each micro-batch a forward through `ddp`, `loss_fn(output, target)` divided by the number of
/// micro-batches, and its backward; every micro-batch but the last under `ddp.no_sync()`, so that
/// the ranks talk once per step, in the last backward, which all-reduces the accumulated sum; then
/// `optimizer.step()`. The parameters end as one process's would after one step on every rank's
/// micro-batches together. Returns this rank's mean loss over its micro-batches. An empty list is a
/// kindling::Error. Task week07.no_sync.
double accumulate_and_step(DistributedDataParallel& ddp, optim::Optimizer& optimizer,
                           const std::vector<std::pair<Tensor, Tensor>>& micro_batches,
                           const std::function<Tensor(const Tensor&, const Tensor&)>& loss_fn);

}  // namespace kindling::distributed
