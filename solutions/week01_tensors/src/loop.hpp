#pragma once
// Private to the engine: the strided loop every kernel runs on (a small
// TensorIterator). Operands are broadcast to one shape; dimensions are put in
// memory order, size-1 dimensions dropped and mergeable ones coalesced, so that
// most loops become one long inner run with constant byte strides.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <numeric>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <kindling/parallel.hpp>
#include <kindling/tensor.hpp>

// OpenMP's pragmas only where the build has OpenMP (the TSan preset builds without it: libgomp
// is not instrumented).
#define KINDLING_LOOP_PRAGMA(text) _Pragma(#text)
// `#pragma omp parallel for` over a loop of `n` iterations that gives at most `threads` threads (a
// variable that parallel_threads set) one contiguous block each, of ceil(n / threads) iterations;
// none when it is 1 or the build has no OpenMP. Every region starts OpenMP's whole team and the threads past `threads`
// get no block (as PyTorch's at::parallel_for does): libgomp ends the pool's threads that a smaller team leaves idle
// and creates them again for the next larger one, so regions of 16, 2 and 6 threads in turn cost a thread creation each
// (measured: docs/performance.md, "One team for every region").
#ifdef _OPENMP
#define KINDLING_OMP_FOR(threads, n)                     \
  KINDLING_LOOP_PRAGMA(omp parallel for if (threads > 1) \
                       schedule(static, ::kindling::detail::block_of(n, threads)))
#else
#define KINDLING_OMP_FOR(threads, n)
#endif

namespace kindling::detail {

/// The error of a CPU kernel handed a tensor on another device (device.cpp).
[[noreturn]] void throw_not_on_cpu(const Tensor& t);

/// Operands laid over one loop shape, strides in bytes.
template <std::size_t N>
struct StridedLoop {
  Shape shape;
  std::array<Shape, N> strides;
  std::array<char*, N> data{};
};

/// Lays `operands` (each broadcastable to `shape`) over `shape`. Dimensions are
/// ordered by operand `order_by`'s strides, largest outermost, so the inner loop
/// walks that operand's memory in order.
template <std::size_t N>
StridedLoop<N> make_loop(IntArrayRef shape, const std::array<const Tensor*, N>& operands, std::size_t order_by = 0) {
  const std::size_t nd = shape.size();
  StridedLoop<N> loop;
  std::array<Shape, N> strides;
  for (std::size_t k = 0; k < N; ++k) {
    const Tensor& t = *operands[k];
    const auto es = static_cast<std::int64_t>(t.element_size());
    strides[k].assign(nd, 0);
    const std::size_t lead = nd - static_cast<std::size_t>(t.dim());
    for (std::size_t d = lead; d < nd; ++d) {
      const std::size_t td = d - lead;
      strides[k][d] = t.sizes()[td] == 1 ? 0 : t.strides()[td] * es;
    }
    loop.data[k] = static_cast<char*>(t.storage().data()) + t.storage_offset() * es;
  }
  // Memory order: sort dims by |stride| of the chosen operand, largest first. An
  // insertion sort: stable, and with no buffer to allocate for a handful of dims.
  Shape order(nd);
  std::iota(order.begin(), order.end(), 0);
  const Shape& key = strides[order_by];
  for (std::size_t i = 1; i < nd; ++i) {
    const std::int64_t d = order[i];
    std::size_t j = i;
    for (; j > 0 && std::abs(key[static_cast<std::size_t>(order[j - 1])]) < std::abs(key[static_cast<std::size_t>(d)]);
         --j)
      order[j] = order[j - 1];
    order[j] = d;
  }
  // Drop size-1 dims: they never move any pointer.
  for (const std::int64_t od : order) {
    const auto d = static_cast<std::size_t>(od);
    if (shape[d] == 1) continue;
    loop.shape.push_back(shape[d]);
    for (std::size_t k = 0; k < N; ++k) loop.strides[k].push_back(strides[k][d]);
  }
  // Coalesce from the inside out: outer dim i merges into inner dim i+1 when
  // stride[i] == stride[i+1] * size[i+1] for every operand.
  Shape cs;
  std::array<Shape, N> cst;
  for (std::size_t i = 0; i < loop.shape.size(); ++i) {
    cs.push_back(loop.shape[i]);
    for (std::size_t k = 0; k < N; ++k) cst[k].push_back(loop.strides[k][i]);
    while (cs.size() >= 2) {
      const std::size_t o = cs.size() - 2, in = cs.size() - 1;
      bool ok = true;
      for (std::size_t k = 0; k < N; ++k) ok = ok && cst[k][o] == cst[k][in] * cs[in];
      if (!ok) break;
      cs[o] *= cs[in];
      for (std::size_t k = 0; k < N; ++k) cst[k][o] = cst[k][in];
      cs.pop_back();
      for (std::size_t k = 0; k < N; ++k) cst[k].pop_back();
    }
  }
  loop.shape = std::move(cs);
  loop.strides = std::move(cst);
  if (loop.shape.empty()) {  // a single element
    loop.shape.push_back(1);
    for (std::size_t k = 0; k < N; ++k) loop.strides[k].push_back(0);
  }
  return loop;
}

/// True when every element of `t` is the same memory (a single element, or one
/// expanded: the gradient that sum's backward hands on).
inline bool one_element_everywhere(const Tensor& t) {
  for (auto s : t.strides())
    if (s != 0) return false;
  return true;
}

/// The common case, with no allocation: every operand is either contiguous with
/// exactly `shape` or a single element (possibly expanded). Then the whole loop is
/// one run, and this fills its base pointers and byte strides (element size, or 0).
template <std::size_t N>
bool flat_layout(IntArrayRef shape, const std::array<const Tensor*, N>& operands, std::array<char*, N>& data,
                 std::array<std::int64_t, N>& strides) {
  for (std::size_t k = 0; k < N; ++k) {
    const Tensor& t = *operands[k];
    const auto es = static_cast<std::int64_t>(t.element_size());
    data[k] = static_cast<char*>(t.storage().data()) + t.storage_offset() * es;
    if (t.numel() == 1 || (k > 0 && one_element_everywhere(t)))
      strides[k] = 0;
    else if (t.sizes().equals(shape) && t.is_contiguous())
      strides[k] = es;
    else
      return false;
  }
  return true;
}

/// Calls `inner(ptrs, inner_strides, n)` once per inner run; `ptrs` point at the
/// run's first element of each operand and `inner_strides` are byte strides.
template <std::size_t N, class Inner>
void run_loop(const StridedLoop<N>& loop, Inner&& inner) {
  for (auto s : loop.shape)
    if (s == 0) return;
  const std::size_t nd = loop.shape.size();
  const std::int64_t n = loop.shape.back();
  std::array<std::int64_t, N> inner_strides;
  for (std::size_t k = 0; k < N; ++k) inner_strides[k] = loop.strides[k].back();
  std::array<char*, N> ptr = loop.data;
  if (nd == 1) {
    inner(ptr, inner_strides, n);
    return;
  }
  Shape counter(nd - 1, 0);
  while (true) {
    inner(ptr, inner_strides, n);
    std::size_t d = nd - 1;
    while (d-- > 0) {
      for (std::size_t k = 0; k < N; ++k) ptr[k] += loop.strides[k][d];
      if (++counter[d] < loop.shape[d]) break;
      for (std::size_t k = 0; k < N; ++k) ptr[k] -= loop.strides[k][d] * loop.shape[d];
      counter[d] = 0;
      if (d == 0) return;
    }
  }
}

/// Runs `inner(ptrs, inner_strides, n)` over `operands` broadcast to `shape`: one
/// call when flat_layout applies, else through make_loop and run_loop.
template <std::size_t N, class Inner>
void for_each_run(IntArrayRef shape, const std::array<const Tensor*, N>& operands, Inner&& inner,
                  std::size_t order_by = 0) {
  for (const Tensor* t : operands)  // a CPU loop must never read a device's memory
    if (!t->device().is_cpu()) [[unlikely]]
      throw_not_on_cpu(*t);
  std::array<char*, N> data;
  std::array<std::int64_t, N> strides;
  if (flat_layout(shape, operands, data, strides)) {
    if (const std::int64_t n = numel_of(shape); n > 0) inner(data, strides, n);
    return;
  }
  run_loop(make_loop<N>(shape, operands, order_by), inner);
}

/// Like run_loop, but hands over the two innermost dims at once:
/// `f(ptrs, row_strides, col_strides, rows, cols)`, so a kernel can tile them
/// (a transposed copy reads one operand down its columns).
template <std::size_t N, class F>
void run_loop_2d(const StridedLoop<N>& loop, F&& f) {
  for (auto s : loop.shape)
    if (s == 0) return;
  if (loop.shape.size() < 2) {
    std::array<std::int64_t, N> zero{};
    std::array<std::int64_t, N> col;
    for (std::size_t k = 0; k < N; ++k) col[k] = loop.strides[k].back();
    f(loop.data, zero, col, std::int64_t{1}, loop.shape.back());
    return;
  }
  StridedLoop<N> outer;
  outer.shape.assign(loop.shape.begin(), loop.shape.end() - 2);
  outer.shape.push_back(1);  // run_loop calls back once per outer position
  std::array<std::int64_t, N> row, col;
  for (std::size_t k = 0; k < N; ++k) {
    outer.strides[k].assign(loop.strides[k].begin(), loop.strides[k].end() - 2);
    outer.strides[k].push_back(0);
    row[k] = loop.strides[k][loop.shape.size() - 2];
    col[k] = loop.strides[k].back();
  }
  outer.data = loop.data;
  const std::int64_t rows = loop.shape[loop.shape.size() - 2], cols = loop.shape.back();
  run_loop(outer,
           [&](std::array<char*, N> p, std::array<std::int64_t, N>, std::int64_t) { f(p, row, col, rows, cols); });
}

/// True in a child made by fork() (set by a pthread_atfork handler, tensor.cpp). OpenMP
/// (libgomp) cannot start a team there once the parent has run one: the child would wait
/// forever for the parent's threads, which it does not have. Such a child runs every loop on
/// its own thread.
inline std::atomic<bool> in_forked_child{false};

/// The threads a parallel kernel may use: OpenMP's limit (OMP_NUM_THREADS, or one
/// per core), 1 in a build without OpenMP, inside another parallel region or in a
/// forked child.
inline int max_threads() {
#ifdef _OPENMP
  return omp_in_parallel() || in_forked_child.load(std::memory_order_relaxed) ? 1 : omp_get_max_threads();
#else
  return 1;
#endif
}

/// Elements per thread below which a loop is not split (kindling::kParallelGrain).
inline constexpr std::int64_t kParallelGrain = ::kindling::kParallelGrain;
/// Multiply-adds per thread below which a matrix product is not split: OpenBLAS's rule (a GEMM of
/// at most 65536 x GEMM_MULTITHREAD_THRESHOLD (4 by default) = 262,144 multiply-adds runs on one thread, a larger
/// one on at most MNK / 262,144). A packed product does that many in a few microseconds, about what
/// waking a second thread costs: at 65,536 the three 163,840-multiply-add products of a Linear
/// 256 -> 10 step at batch 64 ran on 2 threads and the step took 35-40 us on 2 cores against
/// 28-33 us on one (docs/performance.md).
inline constexpr std::int64_t kMatmulGrain = 262144;

/// The one rule of every parallel loop in the engine, and its thread counter: a loop of `work`
/// units (elements; multiply-adds for a product) runs on min(max_threads(), work / grain,
/// max_pieces) threads, at least 1: on one below two grains, and never so many that a thread gets
/// less than a grain. `max_pieces` is how many pieces the loop can be cut into (its rows, its
/// planes). `op` names the loop for record_parallel_use. Defined in tensor.cpp.
int parallel_threads(const char* op, std::int64_t work,
                     std::int64_t max_pieces = std::numeric_limits<std::int64_t>::max(),
                     std::int64_t grain = kParallelGrain);

/// KINDLING_OMP_FOR's block: `n` iterations cut into `threads` blocks (at least 1 iteration).
inline std::int64_t block_of(std::int64_t n, std::int64_t threads) {
  return threads <= 1 || n <= threads ? 1 : (n + threads - 1) / threads;
}

/// Runs `fn(lo, hi)` on `pieces` contiguous ranges that together cover [0, len), one
/// range per thread (`fn(0, len)` on this thread when pieces <= 1). Every cut but the
/// last falls on a multiple of `align`: 16 floats keep two threads off one cache line.
/// The caller picks `pieces` so that no range comes out empty. Like KINDLING_OMP_FOR, the
/// region starts OpenMP's whole team; thread p runs piece p and the rest wait at its end.
template <class F>
void parallel_ranges(std::int64_t len, std::int64_t pieces, F&& fn, std::int64_t align = 1) {
  if (pieces <= 1) {
    fn(std::int64_t{0}, len);
    return;
  }
  const auto cut = [&](std::int64_t p) { return p == pieces ? len : len * p / pieces / align * align; };
#ifdef _OPENMP
#pragma omp parallel for schedule(static, 1)
#endif
  for (std::int64_t p = 0; p < pieces; ++p) fn(cut(p), cut(p + 1));
}

/// Runs `first(p)` for every piece p in [0, pieces), then, once all of them have returned,
/// `second(p)` for every piece: two steps of one region of OpenMP's whole team, with a barrier
/// between them (a step that fills shared buffers, then one that reads them). Thread t runs the
/// pieces t, t + team, ...; on one piece, both on this thread. Neither may throw.
template <class F, class G>
void parallel_phases(std::int64_t pieces, F&& first, G&& second) {
  if (pieces <= 1) {
    first(std::int64_t{0});
    second(std::int64_t{0});
    return;
  }
#ifdef _OPENMP
#pragma omp parallel
  {
    const std::int64_t t = omp_get_thread_num(), team = omp_get_num_threads();
    for (std::int64_t p = t; p < pieces; p += team) first(p);
#pragma omp barrier
    for (std::int64_t p = t; p < pieces; p += team) second(p);
  }
#else
  for (std::int64_t p = 0; p < pieces; ++p) first(p);
  for (std::int64_t p = 0; p < pieces; ++p) second(p);
#endif
}

/// The loop restricted to positions [lo, hi) of its dim `d`.
template <std::size_t N>
StridedLoop<N> slice_loop(const StridedLoop<N>& loop, std::size_t d, std::int64_t lo, std::int64_t hi) {
  StridedLoop<N> s = loop;
  s.shape[d] = hi - lo;
  for (std::size_t k = 0; k < N; ++k) s.data[k] += lo * loop.strides[k][d];
  return s;
}

/// Runs `fn(piece)` on pieces of `loop` cut along its dim `d`, one piece per thread, as many
/// as parallel_threads allows (`fn(loop)` on this thread when that is 1).
/// Only for loops whose pieces write disjoint memory: every written operand must have
/// a nonzero stride along `d`. Each element is then computed exactly as on one thread.
template <std::size_t N, class F>
void parallel_pieces(const char* op, const StridedLoop<N>& loop, std::size_t d, F&& fn) {
  const std::int64_t pieces = parallel_threads(op, numel_of(loop.shape), loop.shape[d]);
  if (pieces <= 1) {
    fn(loop);
    return;
  }
  parallel_ranges(loop.shape[d], pieces, [&](std::int64_t lo, std::int64_t hi) { fn(slice_loop(loop, d, lo, hi)); });
}

/// for_each_run, split across threads along the outermost dim (or the one run) for
/// large loops. For elementwise kernels whose output (operand 0) is written at every
/// position with a nonzero stride; small loops take for_each_run's fast path.
template <std::size_t N, class Inner>
void parallel_for_each_run(const char* op, IntArrayRef shape, const std::array<const Tensor*, N>& operands,
                           Inner&& inner, std::size_t order_by = 0) {
  for (const Tensor* t : operands)
    if (!t->device().is_cpu()) [[unlikely]]
      throw_not_on_cpu(*t);
  const std::int64_t work = numel_of(shape);
  if (work < 2 * kParallelGrain || max_threads() <= 1) {  // one thread: for_each_run's fast path
    (void)parallel_threads(op, work);                     // (counted as such)
    for_each_run(shape, operands, inner, order_by);
    return;
  }
  parallel_pieces(op, make_loop<N>(shape, operands, order_by), 0,
                  [&inner](const StridedLoop<N>& piece) { run_loop(piece, inner); });
}

/// Throws PyTorch's error when a tensor about to be written has two indices
/// that name one memory location (a stride-0, expanded dimension).
inline void check_no_internal_overlap(const Tensor& t) {
  if (t.numel() == 0) return;  // no element to write (PyTorch: contiguous, so no overlap)
  for (std::int64_t d = 0; d < t.dim(); ++d)
    KINDLING_CHECK(!(t.sizes()[d] > 1 && t.strides()[d] == 0),
                   "unsupported operation: more than one element of the written-to tensor refers to a "
                   "single memory location. Please clone() the tensor before performing the operation.");
}

}  // namespace kindling::detail
