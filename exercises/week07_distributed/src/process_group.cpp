// The ProcessGroup over Gloo: a rendezvous through a FileStore, a full mesh of TCP connections on
// the loopback interface, and one worker thread per group that runs its collectives in the order
// they were issued (Gloo's calls block; c10d's ProcessGroupGloo runs them on worker threads too).

#include <kindling/distributed.hpp>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/unbound_buffer.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

namespace kindling::distributed {

std::string to_string(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return "SUM";
    case ReduceOp::Product:
      return "PRODUCT";
    case ReduceOp::Min:
      return "MIN";
    case ReduceOp::Max:
      return "MAX";
    case ReduceOp::Avg:
      return "AVG";
  }
  return "?";
}

// ---- Work ------------------------------------------------------------------------------------
struct Work::State {
  std::string what;  // "rank 1: all_reduce #3"
  std::chrono::milliseconds timeout{0};
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::chrono::steady_clock::time_point started, finished;  // a collective's run on the worker
  bool running = false;                                     // point-to-point: a thread is in `waiter`
  std::exception_ptr error;
  // Point-to-point: the wait itself (Gloo's unbound buffers wait on the caller's thread), and
  // what it waits on. The tensor is declared before the buffers, so that the buffers go first.
  bool p2p = false;
  std::function<void(std::chrono::milliseconds)> waiter;
  Tensor keep;
  std::int64_t header = 0;  // the message's size in bytes, sent ahead of it
  std::shared_ptr<gloo::transport::UnboundBuffer> header_buffer, data_buffer;

  void finish(std::exception_ptr e) {
    {
      std::lock_guard lock(m);
      done = true;
      finished = std::chrono::steady_clock::now();
      error = std::move(e);
    }
    cv.notify_all();
  }
  // Runs the point-to-point wait once, whoever comes first; the others wait for it to end.
  void complete(std::chrono::milliseconds limit) {
    std::unique_lock lock(m);
    if (done) return;
    if (running) {
      cv.wait(lock, [&] { return done; });
      return;
    }
    running = true;
    auto w = std::move(waiter);
    waiter = nullptr;
    lock.unlock();
    std::exception_ptr e;
    try {
      if (w) w(limit);
    } catch (...) {
      e = std::current_exception();
    }
    finish(e);
  }
};

void Work::wait(std::chrono::milliseconds timeout) {
  KINDLING_CHECK_AS(DistributedError, state_ != nullptr, "wait() on a Work that no operation returned");
  State& s = *state_;
  if (s.p2p) {
    // Gloo closes every connection of the group when a send or recv's wait runs out, so a shorter
    // limit than the group's would break the group for a mere impatience.
    KINDLING_CHECK_AS(DistributedError, timeout.count() == 0 || timeout >= s.timeout, s.what,
                      ": a send or recv waits with the group's timeout (", s.timeout.count(), " ms) or longer, not ",
                      timeout.count(), " ms");
    s.complete(s.timeout);
  } else if (timeout.count() == 0) {
    // The group's worker finishes every collective: Gloo's timeout bounds each of its steps.
    std::unique_lock lock(s.m);
    s.cv.wait(lock, [&] { return s.done; });
  } else {
    std::unique_lock lock(s.m);
    if (!s.cv.wait_for(lock, timeout, [&] { return s.done; }))
      throw DistributedError(s.what + " did not finish within " + std::to_string(timeout.count()) +
                             " ms (is another rank stuck, or not calling it?)");
  }
  if (s.error) std::rethrow_exception(s.error);
}

bool Work::is_completed() const {
  if (!state_) return false;
  std::lock_guard lock(state_->m);
  return state_->done;
}

std::optional<std::pair<std::chrono::steady_clock::time_point, std::chrono::steady_clock::time_point>> Work::interval()
    const {
  if (!state_ || state_->p2p) return std::nullopt;
  std::lock_guard lock(state_->m);
  if (!state_->done) return std::nullopt;
  return std::make_pair(state_->started, state_->finished);
}

// ---- Options -----------------------------------------------------------------------------------
namespace {
std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}
int env_int(const char* name) {
  const char* v = std::getenv(name);
  KINDLING_CHECK_AS(DistributedError, v && *v, "the environment variable ", name,
                    " is not set: start the program with kindling-run --nproc N (torchrun's contract: RANK, "
                    "WORLD_SIZE, MASTER_ADDR)");
  try {
    std::size_t used = 0;
    const int value = std::stoi(v, &used);
    if (used == std::string(v).size()) return value;
  } catch (const std::exception&) {
  }
  throw DistributedError(std::string(name) + "='" + v + "' is not an integer");
}
}  // namespace

Options Options::from_environment() {
  Options o;
  o.world_size = env_int("WORLD_SIZE");
  o.rank = env_int("RANK");
  o.store_dir = env_or("KINDLING_RDZV_DIR", "");
  KINDLING_CHECK_AS(DistributedError, !o.store_dir.empty(),
                    "KINDLING_RDZV_DIR is not set: the ranks meet through a folder that kindling-run creates");
  o.address = env_or("MASTER_ADDR", "127.0.0.1");
  if (const char* t = std::getenv("KINDLING_DIST_TIMEOUT_MS"); t && *t) {
    const int ms = env_int("KINDLING_DIST_TIMEOUT_MS");
    KINDLING_CHECK_AS(DistributedError, ms > 0, "KINDLING_DIST_TIMEOUT_MS must be positive, got ", ms);
    o.timeout = std::chrono::milliseconds(ms);
  }
  return o;
}

// ---- the group ---------------------------------------------------------------------------------
void lost_peer_marker(const std::string& store_dir, int rank) {
  std::ofstream(std::filesystem::path(store_dir) / ("lost-peer." + std::to_string(rank))) << "1\n";
}

namespace {
enum class Kind : std::int64_t { AllReduce = 1, Broadcast, AllGather, ReduceScatter, Barrier };
const char* kind_name(Kind k) {
  switch (k) {
    case Kind::AllReduce:
      return "all_reduce";
    case Kind::Broadcast:
      return "broadcast";
    case Kind::AllGather:
      return "all_gather";
    case Kind::ReduceScatter:
      return "reduce_scatter";
    case Kind::Barrier:
      return "barrier";
  }
  return "?";
}
// Point-to-point messages use slots of their own, one per tag, above the collectives'.
constexpr std::uint64_t kP2PSlotBase = std::uint64_t{1} << 40;

// The kit's own checks, before any of PyTorch's: a defined, contiguous CPU tensor.
void check_layout(const Tensor& t, const char* op) {
  KINDLING_CHECK_AS(DistributedError, t.defined(), op, ": the tensor is undefined");
  KINDLING_CHECK_AS(DistributedError, t.device().is_cpu(), op, ": expected a CPU tensor, got one on ", t.device(),
                    " (the Gloo backend works on CPU tensors)");
  KINDLING_CHECK_AS(DistributedError, t.is_contiguous(), op,
                    ": expected a contiguous tensor (call .contiguous() and copy the result back)");
}

// PyTorch 1.13's Gloo takes every dtype it has a reduction for; of Kindling's, all but bool.
void check_scalar_type(const Tensor& t) {
  KINDLING_CHECK_AS(DistributedError, t.dtype() != kBool, "Invalid scalar type");
}

void check_tensor(const Tensor& t, const char* op) {
  check_layout(t, op);
  check_scalar_type(t);
}

// Sizes as c10d's messages print them: "(2, 3)", "()".
std::string gloo_sizes(IntArrayRef sizes) {
  std::string s = "(";
  for (std::size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + ")";
}

template <class T>
gloo::AllreduceOptions::Func reduce_function(ReduceOp op) {
  using F = void (*)(void*, const void*, const void*, size_t);
  switch (op) {
    case ReduceOp::Sum:
      return static_cast<F>(&gloo::sum<T>);
    case ReduceOp::Product:
      return static_cast<F>(&gloo::product<T>);
    case ReduceOp::Min:
      return static_cast<F>(&gloo::min<T>);
    case ReduceOp::Max:
      return static_cast<F>(&gloo::max<T>);
    case ReduceOp::Avg:
      break;
  }
  throw DistributedError("Cannot use ReduceOp.AVG with Gloo");
}

template <class F>
decltype(auto) by_dtype(ScalarType t, F&& f) {
  if (t == kFloat32) return f(float{});
  if (t == kFloat64) return f(double{});
  if (t == kInt32) return f(std::int32_t{});
  if (t == kUInt8) return f(std::uint8_t{});
  return f(std::int64_t{});
}
}  // namespace

struct ProcessGroup::Impl {
  Options options;
  std::shared_ptr<gloo::transport::Device> device;
  std::shared_ptr<gloo::rendezvous::Context> context;
  std::int64_t sequence = 0;  // collectives issued (the check's sequence number)
  std::atomic<std::int64_t> sent{0};
  // record_messages
  std::chrono::steady_clock::time_point born = std::chrono::steady_clock::now();
  std::mutex events_m;
  bool recording = false;
  std::vector<MessageEvent> events;
  double now_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - born).count();
  }
  // Records a message posted now; returns its index (or -1 when not recording).
  long record(bool send, int peer, int tag, std::int64_t bytes) {
    std::lock_guard lock(events_m);
    if (!recording) return -1;
    const double t = now_ms();
    events.push_back({send, peer, tag, bytes, t, t});
    return static_cast<long>(events.size()) - 1;
  }
  void record_done(long index) {
    if (index < 0) return;
    std::lock_guard lock(events_m);
    if (static_cast<std::size_t>(index) < events.size()) events[static_cast<std::size_t>(index)].done_ms = now_ms();
  }

  // The worker: collectives run on it, in the order issued.
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;
  bool stopping = false;
  std::thread worker;

  std::string who() const { return "rank " + std::to_string(options.rank); }

  // Leaves word in the rendezvous folder that this rank failed because a peer did (a closed
  // connection or a timeout): the launcher then looks for the rank that failed first by itself.
  void mark_lost_peer() const { lost_peer_marker(options.store_dir, options.rank); }

  void run_worker() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return stopping || !queue.empty(); });
        if (queue.empty()) return;
        job = std::move(queue.front());
        queue.pop_front();
      }
      job();
    }
  }

  // Queues `body` (run on the worker) after the cross-rank check of `signature`.
  Work enqueue(Kind kind, std::vector<std::int64_t> signature, std::function<void()> body) {
    std::unique_lock order(m);  // the sequence number and the queue's order are one
    const std::int64_t seq = ++sequence;
    auto state = std::make_shared<Work::State>();
    state->what = who() + ": " + kind_name(kind) + " #" + std::to_string(seq);
    state->timeout = options.timeout;
    signature.insert(signature.begin(), {seq, static_cast<std::int64_t>(kind)});
    signature.resize(6, 0);
    auto job = [this, state, signature = std::move(signature), body = std::move(body)] {
      std::exception_ptr error;
      {
        std::lock_guard lock(state->m);
        state->started = std::chrono::steady_clock::now();
      }
      try {
        if (options.check_collectives) check_same_everywhere(signature);
        body();
      } catch (const DistributedError&) {
        error = std::current_exception();
      } catch (const gloo::IoException& e) {
        // A peer closed its connection, or did not come within the timeout.
        mark_lost_peer();
        error = std::make_exception_ptr(
            DistributedError(state->what + " failed: " + e.what() +
                             " (another rank exited or was killed, or did not reach this collective within " +
                             std::to_string(options.timeout.count()) + " ms)"));
      } catch (const std::exception& e) {
        error = std::make_exception_ptr(DistributedError(state->what + " failed: " + e.what()));
      }
      state->finish(error);
    };
    queue.push_back(std::move(job));
    order.unlock();
    cv.notify_one();
    return Work(state);
  }

  // Sends and receives not yet waited for: their buffers must outlive Gloo's use of them, so the
  // group keeps them, and waits for them before it goes.
  std::mutex pending_m;
  std::vector<std::shared_ptr<Work::State>> pending;
  void keep_pending(const std::shared_ptr<Work::State>& state) {
    std::lock_guard lock(pending_m);
    std::erase_if(pending, [](const std::shared_ptr<Work::State>& p) { return p->done; });
    pending.push_back(state);
  }

  ~Impl() {
    std::vector<std::shared_ptr<Work::State>> left;
    {
      std::lock_guard lock(pending_m);
      left.swap(pending);
    }
    for (const auto& p : left) p->complete(options.timeout);  // errors stay in their Work
    {
      std::lock_guard lock(m);
      stopping = true;
    }
    cv.notify_all();
    if (worker.joinable()) worker.join();
  }

  // Every rank's (sequence, kind, numel, dtype, root or op, ...) must be this rank's.
  void check_same_everywhere(const std::vector<std::int64_t>& mine) {
    const int n = options.world_size;
    std::vector<std::int64_t> all(static_cast<std::size_t>(6 * n));
    gloo::AllgatherOptions opts(context);
    opts.setInput(const_cast<std::int64_t*>(mine.data()), 6);
    opts.setOutput(all.data(), all.size());
    opts.setTag(0);
    opts.setTimeout(options.timeout);
    gloo::allgather(opts);
    for (int r = 0; r < n; ++r) {
      const std::int64_t* theirs = all.data() + 6 * r;
      if (std::equal(mine.begin(), mine.end(), theirs)) continue;
      const auto describe = [](const std::int64_t* s) {
        const auto k = static_cast<Kind>(s[1]);
        std::string d = std::string(kind_name(k)) + " #" + std::to_string(s[0]);
        if (k != Kind::Barrier)
          d += " of " + std::to_string(s[2]) + " elements of " + std::string(dtype_name(static_cast<ScalarType>(s[3])));
        if (k == Kind::Broadcast) d += " from root " + std::to_string(s[4]);
        if (k == Kind::AllReduce || k == Kind::ReduceScatter) d += " with " + to_string(static_cast<ReduceOp>(s[4]));
        return d;
      };
      throw DistributedError("the ranks disagree on a collective: rank " + std::to_string(options.rank) + " called " +
                             describe(mine.data()) + ", rank " + std::to_string(r) + " called " + describe(theirs) +
                             " (every rank must call the same collectives in the same order)");
    }
  }
};

ProcessGroup::ProcessGroup(const Options& options) : impl_(std::make_unique<Impl>()) {
  Impl& g = *impl_;
  g.options = options;
  KINDLING_CHECK_AS(DistributedError, options.world_size > 0, "WORLD_SIZE must be at least 1, got ",
                    options.world_size);
  KINDLING_CHECK_AS(DistributedError, options.rank >= 0 && options.rank < options.world_size, "RANK ", options.rank,
                    " is outside [0, ", options.world_size, ")");
  KINDLING_CHECK_AS(DistributedError, std::filesystem::is_directory(options.store_dir), "the rendezvous folder '",
                    options.store_dir, "' does not exist");
  // A write to the connection of a rank that has died raises SIGPIPE, whose default action ends
  // this process before Gloo can report the closed connection as an error. Python ignores SIGPIPE
  // at start-up, which is how PyTorch's ranks never see it; a C++ rank must say so.
  std::signal(SIGPIPE, SIG_IGN);
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = options.address;
    g.device = gloo::transport::tcp::CreateDevice(attr);
  } catch (const std::exception& e) {
    throw DistributedError("rank " + std::to_string(options.rank) + ": cannot use the address '" + options.address +
                           "' (MASTER_ADDR): " + e.what());
  }
  try {
    gloo::rendezvous::FileStore store(options.store_dir);
    // Each group a process makes has keys of its own: every rank makes its groups in one order.
    static std::atomic<int> groups_made{0};
    gloo::rendezvous::PrefixStore prefix("kindling-group-" + std::to_string(++groups_made), store);
    g.context = std::make_shared<gloo::rendezvous::Context>(options.rank, options.world_size);
    g.context->setTimeout(options.timeout);
    g.context->connectFullMesh(prefix, g.device);
  } catch (const std::exception& e) {
    throw DistributedError("rank " + std::to_string(options.rank) + " of " + std::to_string(options.world_size) +
                           ": the rendezvous failed within " + std::to_string(options.timeout.count()) +
                           " ms: " + e.what() + " (did every rank start, with the same WORLD_SIZE and folder?)");
  }
  g.worker = std::thread([&g] { g.run_worker(); });
}

ProcessGroup ProcessGroup::from_environment() { return ProcessGroup(Options::from_environment()); }

// ~Impl waits for the sends and receives in flight and stops the worker (a moved-from group has
// no Impl; a group assigned over is stopped the same way).
ProcessGroup::~ProcessGroup() = default;
ProcessGroup::ProcessGroup(ProcessGroup&&) noexcept = default;
ProcessGroup& ProcessGroup::operator=(ProcessGroup&&) noexcept = default;

int ProcessGroup::rank() const { return impl_->options.rank; }
int ProcessGroup::size() const { return impl_->options.world_size; }
std::chrono::milliseconds ProcessGroup::timeout() const { return impl_->options.timeout; }
std::int64_t ProcessGroup::bytes_sent() const { return impl_->sent.load(); }

void ProcessGroup::record_messages(bool on) {
  std::lock_guard lock(impl_->events_m);
  impl_->recording = on;
  if (on) impl_->events.clear();
}

std::vector<MessageEvent> ProcessGroup::recorded_messages() const {
  std::lock_guard lock(impl_->events_m);
  return impl_->events;
}

Work ProcessGroup::all_reduce_async(const Tensor& tensor, ReduceOp op) {
  check_tensor(tensor, "all_reduce");
  KINDLING_CHECK_AS(DistributedError, op != ReduceOp::Avg, "Cannot use ReduceOp.AVG with Gloo");
  Impl& g = *impl_;
  const Tensor t = tensor;
  return g.enqueue(Kind::AllReduce, {t.numel(), static_cast<std::int64_t>(t.dtype()), static_cast<std::int64_t>(op)},
                   [&g, t, op] {
                     by_dtype(t.dtype(), [&](auto zero) {
                       using T = decltype(zero);
                       gloo::AllreduceOptions opts(g.context);
                       opts.setOutput(static_cast<T*>(t.data_ptr()), static_cast<std::size_t>(t.numel()));
                       opts.setReduceFunction(reduce_function<T>(op));
                       opts.setTag(1);
                       opts.setTimeout(g.options.timeout);
                       gloo::allreduce(opts);
                     });
                   });
}

Work ProcessGroup::broadcast_async(const Tensor& tensor, int root) {
  check_tensor(tensor, "broadcast");
  KINDLING_CHECK_AS(DistributedError, root >= 0 && root < size(),
                    "ProcessGroupGloo::broadcast: invalid root rank: ", root);
  Impl& g = *impl_;
  const Tensor t = tensor;
  return g.enqueue(Kind::Broadcast, {t.numel(), static_cast<std::int64_t>(t.dtype()), root}, [&g, t, root] {
    by_dtype(t.dtype(), [&](auto zero) {
      using T = decltype(zero);
      gloo::BroadcastOptions opts(g.context);
      opts.setOutput(static_cast<T*>(t.data_ptr()), static_cast<std::size_t>(t.numel()));
      opts.setRoot(root);
      opts.setTag(2);
      opts.setTimeout(g.options.timeout);
      gloo::broadcast(opts);
    });
  });
}

Work ProcessGroup::all_gather_async(const std::vector<Tensor>& outputs, const Tensor& input) {
  for (const Tensor& o : outputs) check_layout(o, "all_gather");
  check_layout(input, "all_gather");
  // Then PyTorch 1.13's checks in its order and words: torch.distributed's one dtype over the outputs
  // and then the input (its message lacks a space and has two), Gloo's list length, each output's
  // sizes, and the scalar type.
  std::vector<const Tensor*> in_order;
  for (const Tensor& o : outputs) in_order.push_back(&o);
  in_order.push_back(&input);
  const ScalarType first = in_order.front()->dtype();
  for (const Tensor* t : in_order)
    KINDLING_CHECK_AS(DistributedError, t->dtype() == first,
                      "Invalid usage of tensors with different dtypesFound torch.", dtype_name(first), " and  torch.",
                      dtype_name(t->dtype()));
  KINDLING_CHECK_AS(DistributedError, static_cast<int>(outputs.size()) == size(),
                    "ProcessGroupGloo::allgather: invalid output tensor list at index 0 (expected length ", size(),
                    ", got ", outputs.size(), ")");
  for (std::size_t i = 0; i < outputs.size(); ++i)
    KINDLING_CHECK_AS(DistributedError, outputs[i].sizes().equals(input.sizes()),
                      "ProcessGroupGloo::allgather: invalid tensor size at index ", i, " (expected ",
                      gloo_sizes(input.sizes()), ", got ", gloo_sizes(outputs[i].sizes()), ")");
  check_scalar_type(input);
  Impl& g = *impl_;
  const Tensor in = input;
  const std::vector<Tensor> outs = outputs;
  return g.enqueue(Kind::AllGather, {in.numel(), static_cast<std::int64_t>(in.dtype())}, [&g, in, outs] {
    by_dtype(in.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const auto n = static_cast<std::size_t>(in.numel());
      std::vector<T> gathered(n * outs.size());
      gloo::AllgatherOptions opts(g.context);
      opts.setInput(static_cast<T*>(in.data_ptr()), n);
      opts.setOutput(gathered.data(), gathered.size());
      opts.setTag(3);
      opts.setTimeout(g.options.timeout);
      gloo::allgather(opts);
      for (std::size_t r = 0; r < outs.size(); ++r)
        std::copy_n(gathered.data() + r * n, n, static_cast<T*>(outs[r].data_ptr()));
    });
  });
}

// Gloo 0.0~git2022 has no reduce-scatter in its options API: the inputs are all-reduced and each
// rank keeps its slice. The result is reduce_scatter's; the traffic is an all-reduce's.
Work ProcessGroup::reduce_scatter_async(const Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op) {
  check_tensor(output, "reduce_scatter");
  KINDLING_CHECK_AS(DistributedError, op != ReduceOp::Avg, "Cannot use ReduceOp.AVG with Gloo");
  KINDLING_CHECK_AS(DistributedError, static_cast<int>(inputs.size()) == size(), "reduce_scatter: expected ", size(),
                    " input tensors (one per rank), got ", inputs.size());
  for (const Tensor& i : inputs) {
    check_tensor(i, "reduce_scatter");
    KINDLING_CHECK_AS(DistributedError, i.numel() == output.numel() && i.dtype() == output.dtype(),
                      "reduce_scatter: every input must have the output's numel and dtype");
  }
  Impl& g = *impl_;
  const Tensor out = output;
  const std::vector<Tensor> ins = inputs;
  return g.enqueue(
      Kind::ReduceScatter, {out.numel(), static_cast<std::int64_t>(out.dtype()), static_cast<std::int64_t>(op)},
      [&g, out, ins, op] {
        by_dtype(out.dtype(), [&](auto zero) {
          using T = decltype(zero);
          const auto n = static_cast<std::size_t>(out.numel());
          std::vector<T> all(n * ins.size());
          for (std::size_t r = 0; r < ins.size(); ++r)
            std::copy_n(static_cast<const T*>(ins[r].data_ptr()), n, all.data() + r * n);
          gloo::AllreduceOptions opts(g.context);
          opts.setOutput(all.data(), all.size());
          opts.setReduceFunction(reduce_function<T>(op));
          opts.setTag(4);
          opts.setTimeout(g.options.timeout);
          gloo::allreduce(opts);
          std::copy_n(all.data() + static_cast<std::size_t>(g.options.rank) * n, n, static_cast<T*>(out.data_ptr()));
        });
      });
}

void ProcessGroup::barrier() {
  Impl& g = *impl_;
  g.enqueue(Kind::Barrier, {}, [&g] {
     gloo::BarrierOptions opts(g.context);
     opts.setTag(5);
     opts.setTimeout(g.options.timeout);
     gloo::barrier(opts);
   }).wait();
}

// A message is two: its size in bytes (8 bytes, on the tag's first slot), then its data (on the
// second, when there is any). The receiver compares the size with its own before it posts the data:
// Gloo would otherwise abort the receiving process on a larger message, and leave a smaller one's
// missing bytes unwritten.
namespace {
std::uint64_t header_slot(int tag) { return kP2PSlotBase + 2 * static_cast<std::uint64_t>(tag); }
std::uint64_t data_slot(int tag) { return kP2PSlotBase + 2 * static_cast<std::uint64_t>(tag) + 1; }
}  // namespace

Work ProcessGroup::send(const Tensor& tensor, int dst, int tag) {
  check_tensor(tensor, "send");
  KINDLING_CHECK_AS(DistributedError, dst >= 0 && dst < size(), "send: invalid destination rank ", dst,
                    " (the group has ranks 0 to ", size() - 1, ")");
  KINDLING_CHECK_AS(DistributedError, dst != rank(), "send: rank ", rank(), " cannot send to itself");
  KINDLING_CHECK_AS(DistributedError, tag >= 0, "send: the tag must not be negative, got ", tag);
  Impl& g = *impl_;
  auto state = std::make_shared<Work::State>();
  state->p2p = true;
  state->what = g.who() + ": send to rank " + std::to_string(dst) + " (tag " + std::to_string(tag) + ")";
  state->timeout = g.options.timeout;
  state->keep = tensor;
  const auto bytes = static_cast<std::size_t>(tensor.numel()) * tensor.element_size();
  state->header = static_cast<std::int64_t>(bytes);
  try {
    state->header_buffer = g.context->createUnboundBuffer(&state->header, sizeof state->header);
    state->header_buffer->send(dst, header_slot(tag));
    if (bytes > 0) {
      state->data_buffer = g.context->createUnboundBuffer(tensor.data_ptr(), bytes);
      state->data_buffer->send(dst, data_slot(tag));
    }
  } catch (const gloo::IoException& e) {
    g.mark_lost_peer();
    throw DistributedError(state->what + " failed: " + e.what() + " (did the receiving rank exit?)");
  }
  g.sent += static_cast<std::int64_t>(bytes);
  const long event = g.record(true, dst, tag, static_cast<std::int64_t>(bytes));
  Work::State* raw = state.get();
  state->waiter = [raw, &g, event](std::chrono::milliseconds limit) {
    try {
      raw->header_buffer->waitSend(limit);
      if (raw->data_buffer) raw->data_buffer->waitSend(limit);
      g.record_done(event);
    } catch (const gloo::IoException& e) {
      g.mark_lost_peer();
      throw DistributedError(raw->what + " failed: " + e.what() +
                             " (did the receiving rank exit, refuse the message, or not post the recv?)");
    }
  };
  g.keep_pending(state);
  return Work(state);
}

Work ProcessGroup::recv(const Tensor& tensor, int src, int tag) {
  check_tensor(tensor, "recv");
  KINDLING_CHECK_AS(DistributedError, src >= 0 && src < size(), "recv: invalid source rank ", src,
                    " (the group has ranks 0 to ", size() - 1, ")");
  KINDLING_CHECK_AS(DistributedError, src != rank(), "recv: rank ", rank(), " cannot receive from itself");
  KINDLING_CHECK_AS(DistributedError, tag >= 0, "recv: the tag must not be negative, got ", tag);
  Impl& g = *impl_;
  auto state = std::make_shared<Work::State>();
  state->p2p = true;
  state->what = g.who() + ": recv from rank " + std::to_string(src) + " (tag " + std::to_string(tag) + ")";
  state->timeout = g.options.timeout;
  state->keep = tensor;
  try {
    state->header_buffer = g.context->createUnboundBuffer(&state->header, sizeof state->header);
    state->header_buffer->recv(src, header_slot(tag));
  } catch (const gloo::IoException& e) {
    g.mark_lost_peer();
    throw DistributedError(state->what + " failed: " + e.what() + " (did the sending rank exit?)");
  }
  const long event = g.record(false, src, tag, static_cast<std::int64_t>(tensor.numel()) * tensor.element_size());
  Work::State* raw = state.get();
  state->waiter = [raw, &g, event, src, tag](std::chrono::milliseconds limit) {
    const std::int64_t bytes = raw->keep.numel() * static_cast<std::int64_t>(raw->keep.element_size());
    try {
      raw->header_buffer->waitRecv(limit);
    } catch (const gloo::IoException& e) {
      g.mark_lost_peer();
      throw DistributedError(raw->what + " failed: " + e.what() + " (did the sending rank exit, or not send?)");
    }
    if (raw->header != bytes)
      throw DistributedError(raw->what + ": rank " + std::to_string(src) + " sent " + std::to_string(raw->header) +
                             " bytes, and this recv's tensor has " + std::to_string(bytes) +
                             " (the two ranks must agree on every message's numel and dtype)");
    if (bytes > 0) {
      try {
        raw->data_buffer = g.context->createUnboundBuffer(raw->keep.data_ptr(), static_cast<std::size_t>(bytes));
        raw->data_buffer->recv(src, data_slot(tag));
        raw->data_buffer->waitRecv(limit);
      } catch (const gloo::IoException& e) {
        g.mark_lost_peer();
        throw DistributedError(raw->what + " failed: " + e.what() + " (did the sending rank exit?)");
      }
    }
    g.record_done(event);
  };
  g.keep_pending(state);
  return Work(state);
}

}  // namespace kindling::distributed
