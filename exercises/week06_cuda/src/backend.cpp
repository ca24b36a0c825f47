// CUDA's DeviceBackend (device_hooks.hpp): what week 1's engine calls for a tensor on `cuda`.
// Memory from the caching allocator, copies through the runtime (asynchronous from pinned
// memory when asked), and the elementwise kernels of kernels/elementwise.cu.

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include <kindling/cuda/caching_allocator.hpp>
#include <kindling/cuda/runtime.hpp>
#include <kindling/cuda/sim.hpp>
#include <kindling/deterministic.hpp>
#include <kindling/device_hooks.hpp>
#include <kindling/factory.hpp>

#include "kernels/elementwise.hpp"

namespace kindling::cuda {

namespace {
// PyTorch's TensorImpl::is_non_overlapping_and_dense: contiguous (every tensor with no elements
// is), or, leaving out the dims of size 0 or 1 and ordering the others by stride, the smallest
// stride is 1 and each next one is the previous times the previous size (a permutation of a
// contiguous tensor's dims).
bool is_non_overlapping_and_dense(const Tensor& t) {
  if (t.is_contiguous()) return true;
  std::vector<std::size_t> dims;
  for (std::size_t d = 0; d < static_cast<std::size_t>(t.dim()); ++d)
    if (t.sizes()[d] >= 2) dims.push_back(d);
  std::sort(dims.begin(), dims.end(), [&](std::size_t a, std::size_t b) { return t.strides()[a] < t.strides()[b]; });
  std::int64_t expected = 1;
  for (const std::size_t d : dims) {
    if (t.strides()[d] != expected) return false;
    expected *= t.sizes()[d];
  }
  return true;
}

static_assert(static_cast<int>(UnaryOp::LogicalNot) == 19 && static_cast<int>(UnaryOp::IsNan) == 17,
              "kernels/elementwise.cu numbers UnaryOp in the same order");
static_assert(static_cast<int>(BinaryOp::Eq) == 7 && static_cast<int>(BinaryOp::Ge) == 12,
              "kernels/elementwise.cu numbers BinaryOp in the same order");
static_assert(static_cast<int>(ReduceOp::Sum) == kernels::kReduceSum &&
                  static_cast<int>(ReduceOp::Max) == kernels::kReduceMax &&
                  static_cast<int>(ReduceOp::Min) == kernels::kReduceMin &&
                  static_cast<int>(ReduceOp::Prod) == kernels::kReduceProd,
              "kernels/reduce.cu numbers ReduceOp in the same order");

kernels::Operand operand_of(const Tensor& t) {
  kernels::Operand o;
  if (t.device().is_cpu()) {  // a 0-d CPU operand: its value
    o.is_scalar = true;
    o.scalar = t.item<double>();
    o.scalar_int = t.dtype() == kFloat32 || t.dtype() == kFloat64 ? 0 : t.item<std::int64_t>();
    return o;
  }
  KINDLING_CHECK(t.dim() <= kernels::kMaxDims, "a CUDA tensor of more than ", kernels::kMaxDims,
                 " dimensions reached a kernel (make it contiguous and view it with fewer)");
  o.data = t.storage().data();
  o.layout.ndim = static_cast<int>(t.dim());
  for (int d = 0; d < o.layout.ndim; ++d) {
    o.layout.sizes[d] = t.sizes()[static_cast<std::size_t>(d)];
    o.layout.strides[d] = t.strides()[static_cast<std::size_t>(d)];
  }
  o.layout.offset = t.storage_offset();
  return o;
}

kernels::Window window_of(const Window2d& g) {
  return kernels::Window{g.N, g.C, g.H, g.W, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw, g.OH, g.OW};
}

// A tensor with more dims than a kernel indexes is read through a contiguous copy of fewer.
void check_dims(const Tensor& t) {
  KINDLING_CHECK(t.dim() <= kernels::kMaxDims, "CUDA tensors of more than ", kernels::kMaxDims,
                 " dimensions are not supported by Kindling's kernels unless their dims can be merged ",
                 "(a contiguous tensor of any rank can)");
}

// Runs of adjacent dims that every one of `ts` (device tensors of equal sizes) steps across as
// across one dim (stride[d] == stride[d + 1] * size[d + 1]), and that `group` (when given, one
// value per dim) puts together: a contiguous tensor of any rank is one run.
std::vector<std::vector<std::size_t>> merged_runs(const std::vector<Tensor>& ts, const std::vector<int>& group = {}) {
  const std::vector<std::int64_t> sizes = ts.front().sizes().vec();
  std::vector<std::vector<std::size_t>> runs;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    bool merge = !runs.empty() && (group.empty() || group[runs.back().back()] == group[d]);
    for (const Tensor& t : ts)
      if (merge) merge = t.strides()[runs.back().back()] == t.strides()[d] * sizes[d];
    if (merge)
      runs.back().push_back(d);
    else
      runs.push_back({d});
  }
  return runs;
}

// `t` viewed with each run of dims as one dim.
Tensor merged(const Tensor& t, const std::vector<std::vector<std::size_t>>& runs) {
  std::vector<std::int64_t> sizes, strides;
  for (const auto& run : runs) {
    std::int64_t n = 1;
    for (const std::size_t d : run) n *= t.sizes()[d];
    sizes.push_back(n);
    strides.push_back(t.strides()[run.back()]);
  }
  return t.as_strided(sizes, strides, t.storage_offset());
}

// The device operands of one elementwise kernel, with their dims merged (merged_runs) when one
// of them has more dims than the kernels index (kMaxDims): a contiguous tensor of any rank
// reaches a kernel as one dim (a host tensor copied to or from the device too). Unchanged
// otherwise, or when their sizes differ; a CPU scalar among them stays as it is.
std::vector<Tensor> fold_dims(std::vector<Tensor> ts) {
  const auto is_scalar = [](const Tensor& t) { return t.device().is_cpu() && t.dim() == 0; };
  std::vector<Tensor> operands;
  bool too_many = false;
  for (const Tensor& t : ts) {
    if (is_scalar(t)) continue;
    if (!operands.empty() && t.sizes().vec() != operands.front().sizes().vec()) return ts;
    operands.push_back(t);
    too_many |= t.dim() > kernels::kMaxDims;
  }
  if (!too_many) return ts;
  const auto runs = merged_runs(operands);
  for (Tensor& t : ts)
    if (!is_scalar(t)) t = merged(t, runs);
  return ts;
}

// Benchmark mode (set_benchmark): its flag, the default algorithm and the choices by shape.
std::atomic<bool> g_benchmark{false};
std::atomic<GemmAlgorithm> g_default_gemm{GemmAlgorithm::Tiled};
std::mutex g_choices_mutex;
std::map<std::array<std::int64_t, 4>, GemmAlgorithm> g_choices;

bool benchmark_choice(const kernels::GemmLayout& L, GemmAlgorithm* algorithm) {
  const std::lock_guard lock(g_choices_mutex);
  const auto it = g_choices.find({L.m, L.k, L.n, L.batch});
  if (it == g_choices.end()) return false;
  *algorithm = it->second;
  return true;
}
void remember_choice(const kernels::GemmLayout& L, GemmAlgorithm algorithm) {
  const std::lock_guard lock(g_choices_mutex);
  g_choices[{L.m, L.k, L.n, L.batch}] = algorithm;
}

class CudaBackend final : public DeviceBackend {
 public:
  void* allocate(std::size_t bytes, Device) override {
    if (caching_enabled()) return caching_allocator().allocate(bytes);
    return bytes == 0 ? nullptr : runtime().malloc(bytes);
  }
  void deallocate(void* ptr, Device) override {
    if (caching_enabled())
      caching_allocator().free(ptr);
    else
      runtime().free(ptr);
  }
  Device resolve(Device device) override {
    const int index = device.has_index() ? device.index : 0;
    KINDLING_CHECK(index < runtime().device_count(), "CUDA error: invalid device ordinal");
    return Device(DeviceType::CUDA, index);
  }

  void copy(const Tensor& dst_in, const Tensor& src_in, bool non_blocking) override {
    sim::ScopedRaceCheckOrders engine_kernels(1);
    const auto folded = fold_dims({dst_in, src_in});
    const Tensor &dst = folded[0], &src = folded[1];
    check_dims(dst);
    check_dims(src);
    const bool dst_dev = !dst.device().is_cpu(), src_dev = !src.device().is_cpu();
    if (dst_dev && src_dev) return device_copy(dst, src);
    // The same dense layout on both sides (a transpose moved with its strides kept, as
    // Tensor::to does): the bytes of the one span, in one copy.
    if (dst.dtype() == src.dtype() && dst.strides().equals(src.strides()) && is_non_overlapping_and_dense(src)) {
      if (dst_dev) return transfer(dst.data_ptr(), src, CopyKind::HostToDevice, non_blocking);
      return transfer_to_host(dst.data_ptr(), src, dst, non_blocking);
    }
    if (dst_dev) {  // host to device: one copy of a contiguous host tensor of dst's dtype
      const Tensor host = src.to(dst.dtype()).contiguous();
      if (dst.is_contiguous()) return transfer(dst.data_ptr(), host, CopyKind::HostToDevice, non_blocking);
      const Tensor staging = empty_on_device(dst);
      transfer(staging.data_ptr(), host, CopyKind::HostToDevice, non_blocking);
      return device_copy(dst, staging);
    }
    // device to host: a contiguous device tensor of dst's dtype, then one copy
    Tensor dev = src;
    if (src.dtype() != dst.dtype() || !src.is_contiguous()) {
      dev = empty(dst.sizes(), TensorOptions(dst.dtype()).device(src.device()));
      device_copy(dev, src);
    }
    if (dst.is_contiguous()) return transfer_to_host(dst.data_ptr(), dev, dst, non_blocking);
    const Tensor host = empty(dst.sizes(), dst.dtype());
    transfer_to_host(host.data_ptr(), dev, host, false);
    dst.copy_(host);
  }

  void fill(const Tensor& dst_in, const Scalar& value) override {
    sim::ScopedRaceCheckOrders engine_kernels(1);
    const Tensor dst = fold_dims({dst_in})[0];
    check_dims(dst);
    kernels::fill(dst.dtype(), operand_of(dst), value.to<double>(),
                  value.is_floating_point() ? static_cast<std::int64_t>(value.to<double>()) : value.to<std::int64_t>(),
                  dst.numel(), nullptr);
  }

  void unary(UnaryOp op, const Tensor& out_in, const Tensor& x_in) override {
    sim::ScopedRaceCheckOrders engine_kernels(1);
    const auto folded = fold_dims({out_in, x_in});
    const Tensor &out = folded[0], &x = folded[1];
    check_dims(x);
    kernels::unary(static_cast<int>(op), out.dtype(), operand_of(out), x.dtype(), operand_of(x), out.numel(), nullptr);
  }

  void binary(BinaryOp op, const Tensor& out_in, const Tensor& a_in, const Tensor& b_in, const Scalar& alpha) override {
    sim::ScopedRaceCheckOrders engine_kernels(1);
    const auto folded = fold_dims({out_in, a_in, b_in});
    const Tensor &out = folded[0], &a = folded[1], &b = folded[2];
    check_dims(out);
    kernels::binary(static_cast<int>(op), a.dtype(), operand_of(out), operand_of(a), operand_of(b), alpha.to<double>(),
                    alpha.is_floating_point() ? 0 : alpha.to<std::int64_t>(), out.numel(), nullptr);
  }

  void reduce(ReduceOp op, const Tensor& out_in, const Tensor& x_in, const Scalar& init) override {
    sim::ScopedRaceCheckOrders engine_kernels(1);
    // Dims merge only with dims of their kind (both reduced, or both kept); out (x's shape with 1
    // where x is reduced) is viewed with the same runs.
    Tensor x = x_in, out = out_in;
    if (x_in.dim() > kernels::kMaxDims && out_in.dim() == x_in.dim()) {
      std::vector<int> reduced_dims;
      for (std::size_t d = 0; d < static_cast<std::size_t>(x_in.dim()); ++d)
        reduced_dims.push_back(out_in.sizes()[d] == 1 && x_in.sizes()[d] != 1 ? 1 : 0);
      const auto runs = merged_runs({x_in}, reduced_dims);
      x = merged(x_in, runs);
      out = merged(out_in, runs);
    }
    check_dims(x);
    kernels::Strided kept, reduced;
    kept.ndim = reduced.ndim = static_cast<int>(x.dim());
    kept.offset = x.storage_offset();
    std::int64_t count = 1;
    for (int d = 0; d < kept.ndim; ++d) {
      const auto i = static_cast<std::size_t>(d);
      const bool is_reduced = out.sizes()[i] == 1 && x.sizes()[i] != 1;
      kept.sizes[d] = is_reduced ? 1 : x.sizes()[i];
      reduced.sizes[d] = is_reduced ? x.sizes()[i] : 1;
      kept.strides[d] = reduced.strides[d] = x.strides()[i];
      if (is_reduced) count *= x.sizes()[i];
    }
    if (count == 0) return fill(out, init);  // nothing to reduce: the identity
    kernels::reduce(static_cast<int>(op), out.dtype(), operand_of(out), x.dtype(), operand_of(x), kept, reduced,
                    out.numel(), count, init.to<double>(), nullptr);
  }

  void extreme_along(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& x,
                     std::int64_t dim) override {
    sim::ScopedRaceCheckOrders engine_kernels(1);
    check_dims(x);
    kernels::Strided kept;
    kept.ndim = static_cast<int>(x.dim());
    kept.offset = x.storage_offset();
    for (int d = 0; d < kept.ndim; ++d) {
      const auto i = static_cast<std::size_t>(d);
      kept.sizes[d] = d == dim ? 1 : x.sizes()[i];
      kept.strides[d] = x.strides()[i];
    }
    kernels::extreme_along(is_max, x.dtype(), operand_of(values), operand_of(indices), operand_of(x), kept,
                           x.strides()[static_cast<std::size_t>(dim)], values.numel(),
                           x.sizes()[static_cast<std::size_t>(dim)], nullptr);
  }

  void softmax_rows(const Tensor& out, const Tensor& x, bool log) override {
    sim::ScopedRaceCheckOrders engine_kernels(1);
    kernels::softmax_rows(log, x.dtype(), operand_of(out), operand_of(x), x.sizes()[0], x.sizes()[1], nullptr);
  }

  void where(const Tensor& out_in, const Tensor& cond_in, const Tensor& a_in, const Tensor& b_in) override {
    sim::ScopedRaceCheckOrders engine_kernels(1);
    const auto folded = fold_dims({out_in, cond_in, a_in, b_in});
    const Tensor &out = folded[0], &cond = folded[1], &a = folded[2], &b = folded[3];
    check_dims(out);
    kernels::where(out.dtype(), operand_of(out), operand_of(cond), operand_of(a), operand_of(b), out.numel(), nullptr);
  }

  void gemm(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha, bool accumulate) override {
    sim::ScopedRaceCheckOrders engine_kernels(1);
    KINDLING_CHECK(a.is_floating_point(), "\"addmm_cuda\" not implemented for '", dtype_short_name(a.dtype()), "'");
    const kernels::GemmLayout L = gemm_layout(out, a, b);
    GemmAlgorithm algorithm = g_default_gemm.load();
    if (benchmark_enabled() && !kernels_built_for_device() && !benchmark_choice(L, &algorithm)) {
      // The first product of this shape: time each algorithm on scratch copies of the output, keep
      // the fastest (cudnn.benchmark's auto-tuner; the timing, not the data, decides).
      double best = 0;
      for (const GemmAlgorithm candidate : {GemmAlgorithm::Tiled, GemmAlgorithm::SplitK}) {
        const Tensor scratch = empty_on_device(out);
        const auto start = std::chrono::steady_clock::now();
        run_gemm(candidate, gemm_layout(scratch, a, b), scratch, a, b, alpha, false);
        runtime().synchronize();
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (candidate == GemmAlgorithm::Tiled || seconds < best) {
          best = seconds;
          algorithm = candidate;
        }
      }
      remember_choice(L, algorithm);
    }
    run_gemm(algorithm, L, out, a, b, alpha, accumulate);
  }

  static kernels::GemmLayout gemm_layout(const Tensor& out, const Tensor& a, const Tensor& b) {
    const bool batched = a.dim() == 3;
    const auto at = [](const Tensor& t, std::size_t d) { return t.strides()[d]; };
    const std::size_t r = batched ? 1 : 0, c = r + 1;
    kernels::GemmLayout L;
    L.m = a.sizes()[r];
    L.k = a.sizes()[c];
    L.n = b.sizes()[c];
    L.batch = batched ? a.sizes()[0] : 1;
    L.a_offset = a.storage_offset();
    L.a_row = at(a, r);
    L.a_col = at(a, c);
    L.a_batch = batched ? at(a, 0) : 0;
    L.b_offset = b.storage_offset();
    L.b_row = at(b, r);
    L.b_col = at(b, c);
    L.b_batch = batched ? at(b, 0) : 0;
    L.c_offset = out.storage_offset();
    L.c_row = at(out, r);
    L.c_col = at(out, c);
    L.c_batch = batched ? at(out, 0) : 0;
    return L;
  }

  // The product with `out`'s layout L (gemm_layout(out, a, b)).
  static void run_gemm(GemmAlgorithm algorithm, const kernels::GemmLayout& L, const Tensor& out, const Tensor& a,
                       const Tensor& b, const Scalar& alpha, bool accumulate) {
    const bool split_k = algorithm == GemmAlgorithm::SplitK;
    Tensor workspace;  // freed after the launch: the allocator reuses it only after the stream's work
    if (split_k)
      workspace = empty({L.batch * kernels::kSplitK * L.m * L.n}, TensorOptions(out.dtype()).device(out.device()));
    kernels::gemm(a.dtype(), out.storage().data(), a.storage().data(), b.storage().data(), L, alpha.to<double>(),
                  accumulate, split_k, split_k ? workspace.data_ptr() : nullptr, nullptr);
  }

  void index_select(const Tensor& out, const Tensor& x, std::int64_t dim, const Tensor& index) override {
    sim::ScopedRaceCheckOrders engine_kernels(1);
    const auto [outer, size, inner] = around(x, dim);
    kernels::index_gather(x.dtype(), out.data_ptr(), x.data_ptr(), index.data_ptr(), outer, size, index.numel(), inner,
                          nullptr);
  }
  void index_add(const Tensor& out, std::int64_t dim, const Tensor& index, const Tensor& src) override {
    sim::ScopedRaceCheckOrders engine_kernels(1);
    const auto [outer, size, inner] = around(out, dim);
    kernels::index_add(out.dtype(), out.data_ptr(), src.data_ptr(), index.data_ptr(), outer, size, index.numel(), inner,
                       are_deterministic_algorithms_enabled(), nullptr);
  }

  void im2col(const Tensor& cols, const Tensor& x, const Window2d& g) override {
    sim::ScopedRaceCheckOrders engine_kernels(1);
    kernels::im2col(x.dtype(), cols.data_ptr(), x.data_ptr(), window_of(g), nullptr);
  }
  void col2im(const Tensor& dx, const Tensor& cols, const Window2d& g) override {
    sim::ScopedRaceCheckOrders engine_kernels(1);
    kernels::col2im(dx.dtype(), dx.data_ptr(), cols.data_ptr(), window_of(g), nullptr);
  }
  void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& x, const Window2d& g) override {
    sim::ScopedRaceCheckOrders engine_kernels(1);
    kernels::max_pool2d(x.dtype(), out.data_ptr(), indices.data_ptr(), x.data_ptr(), window_of(g), nullptr);
  }
  void max_pool2d_backward(const Tensor& dx, const Tensor& grad, const Tensor& indices, const Window2d& g) override {
    sim::ScopedRaceCheckOrders engine_kernels(1);
    kernels::max_pool2d_backward(dx.dtype(), dx.data_ptr(), grad.data_ptr(), indices.data_ptr(), window_of(g), nullptr);
  }
  void window_mean(const Tensor& out, const Tensor& x, const Tensor& rows, const Tensor& cols, const Tensor& divisors,
                   bool backward) override {
    sim::ScopedRaceCheckOrders engine_kernels(1);
    const Tensor r = rows.to(kInt64).contiguous().cuda(), c = cols.to(kInt64).contiguous().cuda(),
                 v = divisors.to(kInt64).contiguous().cuda();
    const auto at = [](const Tensor& t, std::size_t i) { return t.sizes()[i]; };
    kernels::window_mean(x.dtype(), out.data_ptr(), x.data_ptr(), r.data_ptr(), c.data_ptr(), v.data_ptr(), at(x, 0),
                         at(x, 1), at(x, 2), at(out, 1), at(out, 2), backward, nullptr);
  }

  void register_host(void* ptr, std::size_t bytes) override { runtime().host_register(ptr, bytes); }
  void unregister_host(void* ptr) override { runtime().host_unregister(ptr); }

 private:
  // A contiguous tensor seen as [outer, size, inner] around `dim` (a 0-d tensor: [1, 1, 1]).
  static std::array<std::int64_t, 3> around(const Tensor& t, std::int64_t dim) {
    std::int64_t outer = 1, inner = 1;
    for (std::int64_t d = 0; d < t.dim(); ++d) {
      const std::int64_t n = t.sizes()[static_cast<std::size_t>(d)];
      if (d < dim) outer *= n;
      if (d > dim) inner *= n;
    }
    return {outer, t.dim() == 0 ? 1 : t.sizes()[static_cast<std::size_t>(dim)], inner};
  }

  static Tensor empty_on_device(const Tensor& like) {
    return empty(like.sizes(), TensorOptions(like.dtype()).device(like.device()));
  }

  static void device_copy(const Tensor& dst, const Tensor& src) {
    kernels::copy(dst.dtype(), operand_of(dst), src.dtype(), operand_of(src), dst.numel(), nullptr);
  }

  // Host memory read by an asynchronous copy must outlive it: the storage is kept until an event
  // recorded after the copy has completed (PyTorch's pinned allocator does the same).
  void transfer(void* device_dst, const Tensor& host, CopyKind kind, bool non_blocking) {
    const std::size_t bytes = static_cast<std::size_t>(host.numel()) * host.element_size();
    if (bytes == 0) return;
    Runtime& rt = runtime();
    if (non_blocking && rt.is_pinned(host.data_ptr())) {
      rt.memcpy_async(device_dst, host.data_ptr(), bytes, kind, nullptr);
      keep_until_done(host.storage());
    } else {
      rt.memcpy(device_dst, host.data_ptr(), bytes, kind);
    }
  }
  void transfer_to_host(void* host_dst, const Tensor& dev, const Tensor& host, bool non_blocking) {
    const std::size_t bytes = static_cast<std::size_t>(dev.numel()) * dev.element_size();
    if (bytes == 0) return;
    Runtime& rt = runtime();
    if (non_blocking && rt.is_pinned(host_dst)) {
      rt.memcpy_async(host_dst, dev.data_ptr(), bytes, CopyKind::DeviceToHost, nullptr);
      keep_until_done(dev.storage());
      keep_until_done(host.storage());
    } else {
      rt.memcpy(host_dst, dev.data_ptr(), bytes, CopyKind::DeviceToHost);
    }
  }
  void keep_until_done(const Storage& s) {
    std::lock_guard lock(mutex_);
    Runtime& rt = runtime();
    std::erase_if(kept_, [&](const auto& k) {
      if (!rt.query_event(k.first)) return false;
      rt.destroy_event(k.first);
      return true;
    });
    Event e = rt.create_event();
    rt.record_event(e, nullptr);
    kept_.push_back({e, s});
  }

  std::mutex mutex_;
  std::vector<std::pair<Event, Storage>> kept_;
};
}  // namespace

void set_benchmark(bool on) { g_benchmark.store(on); }
bool benchmark_enabled() { return g_benchmark.load(); }
void set_default_gemm_algorithm(GemmAlgorithm algorithm) { g_default_gemm.store(algorithm); }
GemmAlgorithm gemm_algorithm(std::int64_t m, std::int64_t k, std::int64_t n, std::int64_t batch) {
  kernels::GemmLayout L;
  L.m = m;
  L.k = k;
  L.n = n;
  L.batch = batch;
  GemmAlgorithm chosen = g_default_gemm.load();
  if (g_benchmark.load()) benchmark_choice(L, &chosen);
  return chosen;
}
void clear_benchmark_cache() {
  const std::lock_guard lock(g_choices_mutex);
  g_choices.clear();
}

}  // namespace kindling::cuda

namespace kindling {

DeviceBackend& device_backend(DeviceType type) {
  KINDLING_CHECK(type == DeviceType::CUDA, "the CPU has no device backend");
  static auto* backend = new cuda::CudaBackend;  // never destroyed: tensors may be freed after main
  return *backend;
}
}  // namespace kindling
