// DistributedDataParallel's frame: the constructor (broadcast, buckets, hooks), forward, the hook
// that calls the reducer, and the timeline of one backward. The reducer itself (prepare_for_backward,
// mark_ready, finalize) is the task week07.ddp_hooks, and no_sync the task week07.no_sync.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <kindling/ddp.hpp>
#include <kindling/factory.hpp>
#include <kindling/grad_mode.hpp>
#include <kindling/no_grad.hpp>

namespace kindling::distributed {

namespace {
double ms_between(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}
}  // namespace

DistributedDataParallel::DistributedDataParallel(ProcessGroup& group, nn::Module& module, DdpOptions options)
    : group_(group), module_(module), options_(options) {
  KINDLING_CHECK_AS(DistributedError, options.bucket_cap_mb > 0 && options.first_bucket_bytes >= 1,
                    "DistributedDataParallel: bucket_cap_mb and first_bucket_bytes must be positive");
  for (const Tensor& p : module.parameters())
    if (p.requires_grad()) params_.push_back(p);
  KINDLING_CHECK_AS(DistributedError, !params_.empty(),
                    "DistributedDataParallel is not needed when a module doesn't have any parameter that requires a "
                    "gradient.");
  for (const Tensor& p : params_)
    KINDLING_CHECK_AS(DistributedError, p.device().is_cpu() && (p.dtype() == kFloat32 || p.dtype() == kFloat64),
                      "DistributedDataParallel: the parameters must be float32 or float64 CPU tensors");
  // Every replica starts as rank 0's (a model of another shape on some rank fails here, by name).
  broadcast_parameters(group, module, 0);
  // Reverse registration order: the last layers' gradients come first in backward.
  std::vector<Tensor> reversed;
  std::vector<std::size_t> indices;
  for (std::size_t i = params_.size(); i-- > 0;) {
    reversed.push_back(params_[i]);
    indices.push_back(i);
  }
  const auto cap = static_cast<std::int64_t>(options.bucket_cap_mb * 1024.0 * 1024.0);
  const BucketAssignment assignment = compute_bucket_assignment_by_size(
      reversed, {options.first_bucket_bytes, std::max<std::int64_t>(cap, 1)}, indices);
  locator_.assign(params_.size(), {0, 0});
  for (const auto& members : assignment.buckets) {
    Bucket b;
    std::int64_t size = 0;
    for (const std::size_t i : members) {
      locator_[i] = {buckets_.size(), b.params.size()};
      b.params.push_back(i);
      b.offsets.push_back(size);
      size += params_[i].numel();
    }
    b.flat = zeros({size}, TensorOptions().dtype(params_[members.front()].dtype()));
    buckets_.push_back(std::move(b));
  }
  marked_.assign(params_.size(), false);
  for (std::size_t i = 0; i < params_.size(); ++i)
    hooks_.push_back(params_[i].register_post_accumulate_grad_hook([this, i](const Tensor&) { on_gradient(i); }));
}

DistributedDataParallel::~DistributedDataParallel() {
  for (auto& h : hooks_) h.remove();
  for (Bucket& b : buckets_)
    if (b.launched) try {
        b.work.wait();
      } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): the error was the caller's to see
      }
}

Tensor DistributedDataParallel::forward(const Tensor& input) {
  if (expect_hooks_) {
    // The previous backward did not finish the reduction: some parameter got no gradient.
    std::string unmarked;
    for (std::size_t i = 0; i < params_.size(); ++i)
      if (!marked_[i]) unmarked += (unmarked.empty() ? "" : " ") + std::to_string(i);
    throw DistributedError(
        "Expected to have finished reduction in the prior iteration before starting a new one. This error indicates "
        "that your module has parameters that were not used in producing loss. You can enable unused parameter "
        "detection by passing the keyword argument `find_unused_parameters=True` to "
        "`torch.nn.parallel.DistributedDataParallel`, and by \nmaking sure all `forward` function outputs "
        "participate in calculating loss. \nIf you already have done the above, then the distributed data parallel "
        "module wasn't able to locate the output tensors in the return value of your module's `forward` function. "
        "Please include the loss function and the structure of the return value of `forward` of your module when "
        "reporting this issue (e.g. list, dict, iterable).\nParameter indices which did not receive grad for rank " +
        std::to_string(group_.rank()) + ": " + unmarked +
        "\n In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to "
        "print out information about which particular parameters did not receive gradient on this rank as part of "
        "this error");
  }
  if (options_.broadcast_buffers) {
    std::vector<Work> pending;
    {
      NoGradGuard no_grad;
      for (const Tensor& b : module_.buffers()) pending.push_back(group_.broadcast_async(b, 0));
    }
    for (Work& w : pending) w.wait();
  }
  if (GradMode::is_enabled() && require_backward_grad_sync_) prepare_for_backward();
  Tensor out = module_(input);
  forward_done_ = std::chrono::steady_clock::now();
  return out;
}

void DistributedDataParallel::on_gradient(std::size_t index) {
  if (!expect_hooks_) return;  // a backward after a forward under no_sync (or outside DDP's forward)
  const auto arrived = std::chrono::steady_clock::now();
  const std::size_t bucket = locator_[index].first;
  mark_ready(index);
  if (bucket < buckets_.size() && buckets_[bucket].pending == 0 && buckets_[bucket].ready_at < forward_done_)
    buckets_[bucket].ready_at = arrived;
  if (expect_hooks_) return;
  // finalize() ran: the backward is over, and so is its reduction.
  const auto reduced = std::chrono::steady_clock::now();
  timeline_ = BackwardTimeline{};
  timeline_.backward_done_ms = ms_between(forward_done_, arrived);
  timeline_.reduced_ms = ms_between(forward_done_, reduced);
  for (const Bucket& b : buckets_) {
    timeline_.ready_ms.push_back(ms_between(forward_done_, b.ready_at));
    const auto interval = b.work.interval();
    timeline_.comm_begin_ms.push_back(interval ? ms_between(forward_done_, interval->first) : 0.0);
    timeline_.comm_end_ms.push_back(interval ? ms_between(forward_done_, interval->second) : 0.0);
  }
}

DistributedDataParallel::NoSync::~NoSync() { ddp_.require_backward_grad_sync_ = previous_; }

double BackwardTimeline::hidden_fraction() const {
  double total = 0, hidden = 0;
  for (std::size_t k = 0; k < comm_begin_ms.size(); ++k) {
    const double begin = comm_begin_ms[k], end = comm_end_ms[k];
    total += end - begin;
    hidden += std::max(0.0, std::min(end, backward_done_ms) - begin);
  }
  return total > 0 ? hidden / total : 0.0;
}

}  // namespace kindling::distributed
