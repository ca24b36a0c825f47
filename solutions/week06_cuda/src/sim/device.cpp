// The simulated device behind the runtime interface: device memory from the simulator's heap,
// a registry of pinned host ranges, streams as in-order queues (lazy, eager or threaded),
// events, CUDA's blocking rules for copies, a sticky error, and the modelled timeline.
//
// Note on the queues: every operation gets a sequence number in its stream and a list of
// (stream, sequence) pairs it must wait for: the previous work of every other stream when it is
// queued on the default stream (or, queued elsewhere, the default stream's previous work: the
// legacy default stream's rule), and the events it was told to wait for. In lazy and eager mode
// the host's own thread runs the queues (drain), running a waited-for stream first; in threaded
// mode one worker per stream does, and waits on a condition variable.

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "simulator_internal.hpp"

namespace kindling::cuda::sim {

namespace {

struct SimStream;

struct Op {
  std::uint64_t seq = 0;
  std::string what;
  double issue_us = 0;
  std::vector<std::pair<SimStream*, std::uint64_t>> waits;
  std::function<double()> run;  // does the work, returns its modelled duration in microseconds
};

struct SimStream {
  std::uint64_t index = 0;
  std::deque<Op> queue;
  std::uint64_t enqueued = 0;       // sequence number of the last queued op
  std::uint64_t completed = 0;      // of the last finished op
  std::vector<double> end_us{0.0};  // end_us[seq]: when op seq ended on the model's clock
  bool destroyed = false;
  bool running = false;                                              // a thread is running its front op
  std::vector<std::pair<SimStream*, std::uint64_t>> pending_waits_;  // from stream_wait_event, for the next op
  std::thread worker;
};

struct SimEvent {
  SimStream* stream = nullptr;  // of the last record (null: never recorded)
  std::uint64_t seq = 0;
};

double us_for(std::size_t bytes, double gbps) { return static_cast<double>(bytes) / (gbps * 1e3); }

class SimDevice final : public Runtime {
 public:
  SimDevice() {
    streams_.push_back(std::make_unique<SimStream>());  // the default stream, index 0
    if (const char* m = std::getenv("KINDLING_SIM_MODE")) {
      const std::string s = m;
      if (s == "eager") mode_ = SimMode::Eager;
      if (s == "threaded") mode_ = SimMode::Threaded;
    }
  }

  Backend backend() const override { return Backend::Simulator; }
  std::string name() const override { return "simulated device"; }
  int device_count() override { return 1; }
  DeviceProperties properties(int) override { return DeviceProperties{name(), capacity(), 0, 0, 1}; }

  void* malloc(std::size_t bytes) override {
    check_sticky();
    try {
      return allocate(bytes, 1, "byte")->data;
    } catch (const Error& e) {
      if (dynamic_cast<const KernelError*>(&e)) throw;
      throw OutOfMemoryError(e.what());
    }
  }
  void free(void* ptr) override {
    if (ptr == nullptr) return;
    synchronize();  // cudaFree waits for the device
    std::size_t offset = 0;
    Allocation* a = find(ptr, &offset);
    KINDLING_CHECK_AS(CudaError, a != nullptr && offset == 0 && !a->shared, "cudaFree: ", ptr,
                      " is not the start of a device allocation (invalid argument)");
    release(a);
  }

  void* host_alloc(std::size_t bytes) override {
    void* p = ::operator new (bytes == 0 ? 1 : bytes, std::align_val_t{4096});
    std::lock_guard lock(mutex_);
    pinned_[static_cast<const std::byte*>(p)] = {bytes, true};
    return p;
  }
  void host_free(void* ptr) override {
    if (ptr == nullptr) return;
    synchronize();
    std::lock_guard lock(mutex_);
    auto it = pinned_.find(static_cast<const std::byte*>(ptr));
    KINDLING_CHECK_AS(CudaError, it != pinned_.end() && it->second.owned, "cudaFreeHost: ", ptr,
                      " was not allocated by cudaHostAlloc (invalid argument)");
    pinned_.erase(it);
    ::operator delete (ptr, std::align_val_t{4096});
  }
  void host_register(void* ptr, std::size_t bytes) override {
    std::lock_guard lock(mutex_);
    KINDLING_CHECK_AS(CudaError, !pinned_locked(ptr), "cudaHostRegister: ", ptr,
                      " is already registered (host memory already registered)");
    pinned_[static_cast<const std::byte*>(ptr)] = {bytes, false};
  }
  void host_unregister(void* ptr) override {
    std::lock_guard lock(mutex_);
    auto it = pinned_.find(static_cast<const std::byte*>(ptr));
    KINDLING_CHECK_AS(CudaError, it != pinned_.end() && !it->second.owned, "cudaHostUnregister: ", ptr,
                      " was not registered (host memory not registered)");
    pinned_.erase(it);
  }
  bool is_pinned(const void* ptr) override {
    std::lock_guard lock(mutex_);
    return pinned_locked(ptr);
  }

  void memcpy(void* dst, const void* src, std::size_t bytes, CopyKind kind) override {
    // cudaMemcpy is a copy on the default stream that the host waits for.
    const void* host = kind == CopyKind::HostToDevice ? src : kind == CopyKind::DeviceToHost ? dst : nullptr;
    const bool pinned = host == nullptr || is_pinned(host);
    const std::uint64_t seq = queue_copy(dst, src, bytes, kind, nullptr, pinned, "memcpy");
    wait_for(stream(nullptr), seq);
  }
  void memcpy_async(void* dst, const void* src, std::size_t bytes, CopyKind kind, Stream s) override {
    const void* host = kind == CopyKind::HostToDevice ? src : kind == CopyKind::DeviceToHost ? dst : nullptr;
    const bool pinned = host == nullptr || is_pinned(host);
    if (kind == CopyKind::DeviceToHost && pinned && mode_ == SimMode::Lazy && bytes)
      std::memset(dst, 0xff, bytes);  // what the host sees of a copy that has not run yet
    const std::uint64_t seq = queue_copy(dst, src, bytes, kind, s, pinned, "memcpyAsync");
    // From or to pageable memory the copy is synchronous for the host (staged through a
    // pinned buffer): it returns when done.
    if (!pinned) wait_for(stream(s), seq);
  }
  void memset_async(void* dst, int value, std::size_t bytes, Stream s) override {
    std::size_t offset = 0;
    Allocation* a = find(dst, &offset);
    KINDLING_CHECK_AS(CudaError, a != nullptr, "cudaMemsetAsync: ", dst, " is not device memory");
    enqueue(stream(s), "memset " + std::to_string(bytes) + " B", [this, a, offset, value, bytes] {
      set_bytes(a, offset, value, bytes);
      return us_for(bytes, model_.device_gbps);
    });
  }

  Stream create_stream() override {
    check_sticky();
    std::lock_guard lock(mutex_);
    auto s = std::make_unique<SimStream>();
    s->index = streams_.size();
    SimStream* raw = s.get();
    streams_.push_back(std::move(s));
    if (mode_ == SimMode::Threaded) start_worker(raw);
    return raw;
  }
  void destroy_stream(Stream s) override {
    KINDLING_CHECK_AS(CudaError, s != nullptr, "cudaStreamDestroy: the default stream cannot be destroyed");
    SimStream* st = stream(s);
    // As cudaStreamDestroy: returns at once; the work queued on it still runs (when the host
    // synchronises the device, in lazy mode). The record stays: events and timelines name it.
    std::lock_guard lock(mutex_);
    st->destroyed = true;
  }
  void synchronize_stream(Stream s) override {
    SimStream* st = stream(s);
    wait_for(st, st->enqueued);
  }
  bool query_stream(Stream s) override {
    check_sticky();
    std::lock_guard lock(mutex_);
    const SimStream* st = stream(s);
    return st->completed == st->enqueued;
  }
  void stream_wait_event(Stream s, Event e) override {
    std::lock_guard lock(mutex_);
    const auto* ev = static_cast<SimEvent*>(e);
    if (ev->stream != nullptr) stream(s)->pending_waits_.push_back({ev->stream, ev->seq});
  }

  Event create_event() override {
    std::lock_guard lock(mutex_);
    events_.push_back(std::make_unique<SimEvent>());
    return events_.back().get();
  }
  void destroy_event(Event e) override {
    std::lock_guard lock(mutex_);
    std::erase_if(events_, [e](const auto& p) { return p.get() == e; });
  }
  void record_event(Event e, Stream s) override {
    SimStream* st = stream(s);
    const std::uint64_t seq = enqueue(st, "event", [] { return 0.0; });
    std::lock_guard lock(mutex_);
    auto* ev = static_cast<SimEvent*>(e);
    ev->stream = st;
    ev->seq = seq;
  }
  bool query_event(Event e) override {
    check_sticky();
    std::lock_guard lock(mutex_);
    const auto* ev = static_cast<SimEvent*>(e);
    return ev->stream == nullptr || ev->stream->completed >= ev->seq;
  }
  void synchronize_event(Event e) override {
    SimStream* st = nullptr;
    std::uint64_t seq = 0;
    {
      std::lock_guard lock(mutex_);
      const auto* ev = static_cast<SimEvent*>(e);
      st = ev->stream;
      seq = ev->seq;
    }
    if (st != nullptr) wait_for(st, seq);
  }
  float elapsed_ms(Event start, Event end) override {
    std::lock_guard lock(mutex_);
    const auto* a = static_cast<SimEvent*>(start);
    const auto* b = static_cast<SimEvent*>(end);
    KINDLING_CHECK_AS(CudaError,
                      a->stream && b->stream && a->stream->completed >= a->seq && b->stream->completed >= b->seq,
                      "cudaEventElapsedTime: an event has not been recorded or has not completed (device not ready)");
    return static_cast<float>((b->stream->end_us[b->seq] - a->stream->end_us[a->seq]) / 1000.0);
  }

  void synchronize() override {
    std::vector<std::pair<SimStream*, std::uint64_t>> all;
    {
      std::lock_guard lock(mutex_);
      for (auto& s : streams_) all.push_back({s.get(), s->enqueued});
    }
    for (auto& [s, seq] : all) wait_for(s, seq);
  }
  std::pair<std::size_t, std::size_t> mem_info() override {
    const std::size_t cap = capacity();
    return {cap - std::min(cap, bytes_in_use()), cap};
  }
  std::string get_last_error() override {
    std::lock_guard lock(mutex_);
    if (!sticky_.empty()) return sticky_;
    return std::exchange(last_error_, "");
  }

  void enqueue_kernel(Stream s, const std::string& name, std::function<std::uint64_t()> run) override {
    enqueue(stream(s), "kernel " + name, [this, run = std::move(run)] {
      const std::uint64_t elements = run();
      return model_.launch_us + us_for(elements * 4, model_.device_gbps);
    });
  }

  // ---- the simulator's own controls ---------------------------------------------------------
  void set_last_error(const std::string& e) {
    std::lock_guard lock(mutex_);
    last_error_ = e;
  }
  void set_mode(SimMode m) {
    synchronize();
    std::vector<SimStream*> all;
    {
      std::lock_guard lock(mutex_);
      for (auto& s : streams_) all.push_back(s.get());
    }
    for (SimStream* s : all) stop_worker(s);
    mode_ = m;
    if (m == SimMode::Threaded)
      for (SimStream* s : all)
        if (!s->destroyed || !s->queue.empty()) start_worker(s);
  }
  SimMode mode() const { return mode_; }
  std::vector<TimelineEntry> timeline() {
    std::lock_guard lock(mutex_);
    return timeline_;
  }
  void clear_timeline() {
    std::lock_guard lock(mutex_);
    timeline_.clear();
  }
  void reset() {
    std::vector<SimStream*> all;
    {
      std::lock_guard lock(mutex_);
      for (auto& s : streams_) all.push_back(s.get());
    }
    for (SimStream* s : all) stop_worker(s);
    std::lock_guard lock(mutex_);
    for (SimStream* s : all) {
      s->queue.clear();
      s->completed = s->enqueued;
      s->pending_waits_.clear();
      if (s->end_us.size() < s->enqueued + 1) s->end_us.resize(s->enqueued + 1, host_us_);
    }
    sticky_.clear();
    last_error_.clear();
    if (mode_ == SimMode::Threaded)
      for (SimStream* s : all)
        if (!s->destroyed || !s->queue.empty()) start_worker(s);
  }
  bool pending() {
    std::lock_guard lock(mutex_);
    for (auto& s : streams_)
      if (s->completed != s->enqueued) return true;
    return false;
  }
  std::uint64_t index_of(Stream s) {
    std::lock_guard lock(mutex_);
    return stream(s)->index;
  }
  Model& model() { return model_; }

 private:
  struct PinnedRange {
    std::size_t bytes = 0;
    bool owned = false;  // host_alloc'ed (else host_register'ed)
  };

  SimStream* stream(Stream s) {
    if (s == nullptr) return streams_.front().get();
    auto* st = static_cast<SimStream*>(s);
    KINDLING_CHECK_AS(CudaError, !st->destroyed, "a destroyed stream was used (invalid resource handle)");
    return st;
  }

  bool pinned_locked(const void* ptr) const {
    const auto* p = static_cast<const std::byte*>(ptr);
    auto it = pinned_.upper_bound(p);
    if (it == pinned_.begin()) return false;
    --it;
    return p < it->first + it->second.bytes;
  }

  void check_sticky() {
    std::lock_guard lock(mutex_);
    if (!sticky_.empty())
      throw CudaError(
          "the simulated device is unusable after an earlier kernel failed (a sticky error, as on a GPU): " + sticky_);
  }

  std::uint64_t queue_copy(void* dst, const void* src, std::size_t bytes, CopyKind kind, Stream s, bool pinned,
                           const char* call) {
    Allocation* da = nullptr;
    const Allocation* sa = nullptr;
    std::size_t doff = 0, soff = 0;
    const bool to_device = kind == CopyKind::HostToDevice || kind == CopyKind::DeviceToDevice;
    const bool from_device = kind == CopyKind::DeviceToHost || kind == CopyKind::DeviceToDevice;
    if (to_device) {
      da = find(dst, &doff);
      KINDLING_CHECK_AS(CudaError, da != nullptr && !da->freed, "cuda", call, ": the destination ", dst,
                        " is not live device memory (invalid argument)");
    }
    if (from_device) {
      sa = find(src, &soff);
      KINDLING_CHECK_AS(CudaError, sa != nullptr && !sa->freed, "cuda", call, ": the source ", src,
                        " is not live device memory (invalid argument)");
    }
    static constexpr const char* kKind[] = {"HtoH", "HtoD", "DtoH", "DtoD"};
    const double gbps = kind == CopyKind::DeviceToDevice ? model_.device_gbps / 2
                        : pinned                         ? model_.pinned_gbps
                                                         : model_.pageable_gbps;
    std::string what = std::string(call) + " " + kKind[static_cast<int>(kind)] + " " + std::to_string(bytes) + " B";
    if (kind == CopyKind::HostToDevice || kind == CopyKind::DeviceToHost) what += pinned ? " (pinned)" : " (pageable)";
    // A pageable source is staged at once (the caller may reuse it when the call returns).
    std::shared_ptr<std::vector<std::byte>> staged;
    if (kind == CopyKind::HostToDevice && bytes) {
      staged = std::make_shared<std::vector<std::byte>>(static_cast<const std::byte*>(src),
                                                        static_cast<const std::byte*>(src) + bytes);
      if (pinned) staged.reset();  // a pinned source is read when the copy runs
    }
    return enqueue(stream(s), what, [=, this] {
      switch (kind) {
        case CopyKind::HostToHost:
          if (bytes) std::memmove(dst, src, bytes);
          break;
        case CopyKind::HostToDevice:
          copy_to_device(da, doff, staged ? staged->data() : src, bytes);
          break;
        case CopyKind::DeviceToHost:
          read_device(dst, sa, soff, bytes);
          break;
        case CopyKind::DeviceToDevice: {
          std::vector<std::byte> tmp(bytes);
          read_device(tmp.data(), sa, soff, bytes);
          copy_to_device(da, doff, tmp.data(), bytes);
          break;
        }
      }
      return us_for(bytes, gbps);
    });
  }

  std::uint64_t enqueue(SimStream* st, std::string what, std::function<double()> run) {
    check_sticky();
    std::uint64_t seq = 0;
    {
      std::lock_guard lock(mutex_);
      Op op;
      op.seq = seq = ++st->enqueued;
      op.what = std::move(what);
      op.issue_us = host_us_;
      op.run = std::move(run);
      op.waits = std::move(st->pending_waits_);
      st->pending_waits_.clear();
      // The legacy default stream: its work waits for every other stream's, and theirs for its.
      SimStream* dflt = streams_.front().get();
      if (st == dflt) {
        for (auto& other : streams_)
          if (other.get() != dflt && other->enqueued > 0) op.waits.push_back({other.get(), other->enqueued});
      } else if (dflt->enqueued > 0) {
        op.waits.push_back({dflt, dflt->enqueued});
      }
      st->queue.push_back(std::move(op));
      st->end_us.push_back(-1.0);
    }
    if (mode_ == SimMode::Eager) wait_for(st, seq);
    if (mode_ == SimMode::Threaded) cv_.notify_all();
    return seq;
  }

  // Runs (or, threaded, waits for) stream `st` up to and including op `seq`.
  void wait_for(SimStream* st, std::uint64_t seq) {
    if (mode_ == SimMode::Threaded) {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [&] { return st->completed >= seq || !sticky_.empty(); });
      host_us_ = std::max(host_us_, st->end_us[std::min<std::size_t>(seq, st->end_us.size() - 1)]);
      if (!sticky_.empty()) throw_sticky_locked();
      return;
    }
    drain(st, seq);
    std::lock_guard lock(mutex_);
    host_us_ = std::max(host_us_, st->end_us[seq]);
  }

  // Runs stream `st` until op `seq` has run (greedy: as far as it can). A stream that another
  // stream waits for is run greedily, as far as its own waits allow: copies race ahead of the
  // kernels that read their buffers, so a missing wait shows on every run, not once in a while.
  // A stream busy further up this call chain is never entered; a wait on it stops the drain.
  void drain(SimStream* st, std::uint64_t seq, bool greedy = false) {
    while (true) {
      std::vector<std::pair<SimStream*, std::uint64_t>> waits;
      {
        std::lock_guard lock(mutex_);
        if (!sticky_.empty()) throw_sticky_locked();
        if (st->queue.empty() || st->running || (!greedy && st->completed >= seq)) return;
        waits = st->queue.front().waits;
        st->running = true;  // busy: resolving its next op's waits, then running it
      }
      struct Idle {
        SimDevice* d;
        SimStream* s;
        bool armed = true;
        ~Idle() {
          if (!armed) return;
          std::lock_guard lock(d->mutex_);
          s->running = false;
        }
      } idle{this, st};
      for (auto& [other, s] : waits)
        if (other != st) drain(other, s, /*greedy=*/true);
      Op op;
      {
        std::lock_guard lock(mutex_);
        for (auto& [other, s] : waits)
          if (other->completed < s) {
            if (!greedy && st->completed < seq)
              throw CudaError("the simulated device's streams wait for each other in a cycle (on a GPU this hangs)");
            return;  // (Idle marks the stream free again)
          }
        op = std::move(st->queue.front());
        st->queue.pop_front();
      }
      idle.armed = false;  // run_op clears the flag when the op is done
      run_op(st, op);
    }
  }

  void run_op(SimStream* st, Op& op) {
    double start = op.issue_us;
    {
      std::lock_guard lock(mutex_);
      start = std::max(start, st->end_us[op.seq - 1]);
      for (auto& [other, s] : op.waits) start = std::max(start, other->end_us[s]);
    }
    double duration = 0;
    try {
      duration = op.run();
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex_);
      st->running = false;
      // A kernel that faulted leaves the device unusable (a sticky error); other failures
      // (a bad copy) are the caller's error and end only this operation.
      if (dynamic_cast<const KernelError*>(&e)) {
        sticky_ = e.what();
        for (auto& s : streams_) {
          s->queue.clear();
          s->end_us.resize(s->enqueued + 1, start);
          s->completed = s->enqueued;
        }
      } else {
        st->end_us[op.seq] = start;
        st->completed = op.seq;
        last_error_ = e.what();
      }
      cv_.notify_all();
      throw;
    }
    std::lock_guard lock(mutex_);
    st->end_us[op.seq] = start + duration;
    st->completed = op.seq;
    st->running = false;
    if (op.what != "event") timeline_.push_back({op.what, st->index, start, start + duration});
    cv_.notify_all();
  }

  [[noreturn]] void throw_sticky_locked() {
    throw CudaError("the simulated device is unusable after an earlier kernel failed (a sticky error, as on a GPU): " +
                    sticky_);
  }

  void read_device(void* dst, const Allocation* a, std::size_t offset, std::size_t bytes) {
    copy_to_host_unsynchronized(dst, a, offset, bytes);
  }

  void start_worker(SimStream* s) {
    s->worker = std::thread([this, s] {
      while (true) {
        Op op;
        {
          std::unique_lock lock(mutex_);
          cv_.wait(lock, [&] {
            if (stop_.count(s) != 0) return true;
            if (s->queue.empty()) return false;
            for (auto& [other, seq] : s->queue.front().waits)
              if (other != s && other->completed < seq) return false;
            return true;
          });
          if (stop_.count(s) != 0 && s->queue.empty()) return;
          if (stop_.count(s) != 0 && !sticky_.empty()) return;
          op = std::move(s->queue.front());
          s->queue.pop_front();
          s->running = true;
        }
        try {
          run_op(s, op);
        } catch (...) {  // recorded as the sticky or last error; the host sees it when it waits
        }
      }
    });
  }
  void stop_worker(SimStream* s) {
    if (!s->worker.joinable()) return;
    {
      std::lock_guard lock(mutex_);
      stop_.insert(s);
    }
    cv_.notify_all();
    s->worker.join();
    std::lock_guard lock(mutex_);
    stop_.erase(s);
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<SimStream>> streams_;
  std::vector<std::unique_ptr<SimEvent>> events_;
  std::map<const std::byte*, PinnedRange> pinned_;
  std::set<SimStream*> stop_;
  std::atomic<SimMode> mode_{SimMode::Lazy};
  std::string sticky_;
  std::string last_error_;
  double host_us_ = 0;
  std::vector<TimelineEntry> timeline_;
  Model model_;
};

SimDevice& device() {
  static SimDevice* d = new SimDevice;  // never destroyed: tensors may be freed after main
  return *d;
}

}  // namespace

void enqueue_launch(const std::string& kernel, const LaunchConfig& config, std::function<void()> run) {
  if (const std::string why = check_launch_config(config); !why.empty()) {
    const std::string message = "kernel " + kernel + ": invalid launch configuration: " + why;
    device().set_last_error(message);
    throw CudaError(message);
  }
  device().enqueue_kernel(config.stream, kernel, [run = std::move(run)] {
    run();
    const Counters c = last_counters();
    return c.global_loads + c.global_stores;
  });
}

void check_no_pending_work(const char* what) {
  if (device().pending())
    throw KernelError(std::string(what) +
                      ": the host reads device memory while work is still queued on a stream (synchronize first: "
                      "cudaStreamSynchronize, cudaDeviceSynchronize or a cudaMemcpy that waits)");
}

void set_mode(SimMode m) { device().set_mode(m); }
SimMode mode() { return device().mode(); }
std::vector<TimelineEntry> timeline() { return device().timeline(); }
void clear_timeline() { device().clear_timeline(); }
void reset_device() { device().reset(); }
Model& model() { return device().model(); }
std::uint64_t stream_index(Stream s) { return device().index_of(s); }

}  // namespace kindling::cuda::sim

namespace kindling::cuda {
Runtime& sim_runtime() { return sim::device(); }

void check_launch_or_throw(const char* kernel, const LaunchConfig& config) {
  if (const std::string why = check_launch_config(config); !why.empty())
    throw CudaError(std::string("kernel ") + kernel + ": invalid launch configuration: " + why);
}
}  // namespace kindling::cuda
