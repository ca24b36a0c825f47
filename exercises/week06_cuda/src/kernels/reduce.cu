// The engine's reductions on the device: sums, products, maxima and minima over any dims (one
// block per output, a tree in shared memory), the extreme along one dim with its index, the
// softmax of rows, and where(). One source for nvcc and the simulator.

#include <math.h>

#include "common.hpp"

namespace kindling::cuda::kernels {
namespace {

constexpr unsigned kMaxThreads = 256;  // the shared arrays' size: reduction_threads() never asks for more

template <class A>
__device__ inline A combine(int op, A x, A y) {
  switch (op) {
    case kReduceSum:
      return static_cast<A>(x + y);
    case kReduceProd:
      return static_cast<A>(x * y);
    case kReduceMax:
      if (is_nan(x)) return x;
      if (is_nan(y)) return y;
      return x < y ? y : x;
    default:
      if (is_nan(x)) return x;
      if (is_nan(y)) return y;
      return y < x ? y : x;
  }
}

// One lane's value from `delta` lanes down the warp; the narrow integer types travel as int,
// which is what __shfl_down_sync takes.
template <class A>
__device__ inline A shuffle_down(A v, unsigned delta) {
  if constexpr (sizeof(A) < sizeof(int))
    return static_cast<A>(__shfl_down_sync(0xffffffffu, static_cast<int>(v), delta));
  else
    return __shfl_down_sync(0xffffffffu, v, delta);
}

// The block's combine: thread t holds `acc`; thread 0 gets the block's result. blockDim.x is a
// multiple of 32 (reduction_threads()).
template <int Op, class A, class P>
__device__ inline A block_combine(P partial, A acc) {
  // (The reference engine does this as task week06.warp_reduce asks; the
  // worksheet's engine has a plainer form here, so that it gives no task's answer.)
  const unsigned t = threadIdx.x;
  partial[t] = acc;
  __syncthreads();
  if (t == 0)
    for (unsigned i = 1; i < blockDim.x; ++i) acc = combine<A>(Op, acc, static_cast<A>(partial[i]));
  return acc;
}

// Any layout: output o's elements found through `kept` and `reduced`.
template <int Op, class A, class T>
__global__ void reduce_kernel(DevPtr<A> out, DevPtr<const T> x, Strided kept, Strided reduced, std::int64_t count,
                              A init) {
  KINDLING_SHARED(A[kMaxThreads], partial);
  const std::int64_t o = blockIdx.x;
  const std::int64_t base = offset_of(kept, o);
  A acc = init;
  for (std::int64_t r = threadIdx.x; r < count; r += blockDim.x)
    acc = combine<A>(Op, acc, static_cast<A>(static_cast<T>(x[base + offset_of(reduced, r)])));
  const A total = block_combine<Op, A>(partial, acc);
  if (threadIdx.x == 0) out[o] = total;
}

// The common case, apart: each output reduces a contiguous run of `count` elements, the runs
// `step` apart (the rows of a row-major matrix, reduced along its last dim). No layout travels
// with the launch: a kernel that indexes a by-value struct's arrays at run time can make each
// thread copy the struct to its local memory first, which on an H200 held x.sum(1) of 16384 x
// 4096 floats at 0.35 of the copy bandwidth.
template <int Op, class A, class T>
__global__ void reduce_runs_kernel(DevPtr<A> out, DevPtr<const T> x, std::int64_t step, std::int64_t count, A init) {
  KINDLING_SHARED(A[kMaxThreads], partial);
  const std::int64_t o = blockIdx.x;
  const DevPtr<const T> run = x + o * step;
  A acc = init;
  // Four loads in flight before the first of them is combined: with one, each thread waits for
  // every load in turn (x.sum(1) of 16384 x 4096 floats at 0.55 of the copy on an H200).
  const std::int64_t threads = blockDim.x;
  std::int64_t r = threadIdx.x;
  for (; r + 3 * threads < count; r += 4 * threads) {
    const T v0 = run[r], v1 = run[r + threads], v2 = run[r + 2 * threads], v3 = run[r + 3 * threads];
    acc = combine<A>(Op, acc, static_cast<A>(v0));
    acc = combine<A>(Op, acc, static_cast<A>(v1));
    acc = combine<A>(Op, acc, static_cast<A>(v2));
    acc = combine<A>(Op, acc, static_cast<A>(v3));
  }
  for (; r < count; r += threads) acc = combine<A>(Op, acc, static_cast<A>(static_cast<T>(run[r])));
  const A total = block_combine<Op, A>(partial, acc);
  if (threadIdx.x == 0) out[o] = total;
}

template <int Op, class A, class T>
void launch_reduce(const LaunchConfig& config, DevPtr<A> out, DevPtr<const T> x, const Strided& kept,
                   const Strided& reduced, std::int64_t count, A init) {
  if (kept.ndim <= 1 && reduced.ndim == 1 && reduced.strides[0] == 1)
    launch<reduce_runs_kernel<Op, A, T>>(config, out, x + (kept.offset + reduced.offset),
                                         kept.ndim == 1 ? kept.strides[0] : std::int64_t{0}, count, init);
  else
    launch<reduce_kernel<Op, A, T>>(config, out, x, kept, reduced, count, init);
}

// Is (v, i) the better candidate than (w, j)? NaN first, then the extreme, then the first index.
template <class T>
__device__ inline bool better(bool is_max, T v, std::int64_t i, T w, std::int64_t j) {
  if (j < 0) return i >= 0;
  if (i < 0) return false;
  if (is_nan(v)) return !is_nan(w) || i < j;
  if (is_nan(w)) return false;
  if (v == w) return i < j;
  return is_max ? w < v : v < w;
}

template <class T>
__global__ void extreme_kernel(bool is_max, DevPtr<T> values, DevPtr<std::int64_t> indices, DevPtr<const T> x,
                               Strided kept, std::int64_t step, std::int64_t count) {
  KINDLING_SHARED(T[kMaxThreads], best);
  KINDLING_SHARED(std::int64_t[kMaxThreads], where);
  const unsigned t = threadIdx.x;
  const std::int64_t o = blockIdx.x;
  const std::int64_t base = offset_of(kept, o);
  T v = T{};
  std::int64_t at = -1;
  for (std::int64_t r = t; r < count; r += blockDim.x) {
    const T candidate = x[base + r * step];
    if (better<T>(is_max, candidate, r, v, at)) {
      v = candidate;
      at = r;
    }
  }
  best[t] = v;
  where[t] = at;
  __syncthreads();
  // (The reference engine does this as task week06.block_reduce asks; the
  // worksheet's engine has a plainer form here, so that it gives no task's answer.)
  if (t == 0)
    for (unsigned i = 1; i < blockDim.x; ++i)
      if (better<T>(is_max, best[i], where[i], best[0], where[0])) {
        best[0] = best[i];
        where[0] = where[i];
      }
  if (t == 0) {
    values[o] = best[0];
    indices[o] = where[0];
  }
}

template <class T>
__device__ inline T exp_of(T v) {
  if constexpr (sizeof(T) == 4)
    return expf(v);
  else
    return exp(v);
}
template <class T>
__device__ inline T log_of(T v) {
  if constexpr (sizeof(T) == 4)
    return logf(v);
  else
    return log(v);
}

// One block per row: the row's maximum, the sum of exp(x - max), then every element. As in
// PyTorch, the shift is the maximum whatever it is: +inf in a row (inf - inf is NaN), NaN, or a
// row of -inf only, gives NaN throughout.
template <class T>
__global__ void softmax_kernel(bool log_softmax, DevPtr<T> out, DevPtr<const T> x, std::int64_t cols) {
  KINDLING_SHARED(T[kMaxThreads], scratch);
  const unsigned t = threadIdx.x;
  const std::int64_t base = std::int64_t{blockIdx.x} * cols;
  // (The reference engine does this as task week06.row_softmax asks; the
  // worksheet's engine has a plainer form here, so that it gives no task's answer.)
  if (t == 0) {
    T m = -INFINITY, s = 0;
    for (std::int64_t j = 0; j < cols; ++j) m = combine<T>(kReduceMax, m, static_cast<T>(x[base + j]));
    for (std::int64_t j = 0; j < cols; ++j) s += exp_of<T>(static_cast<T>(x[base + j]) - m);
    scratch[0] = m;
    scratch[1] = s;
  }
  __syncthreads();
  const T shift = scratch[0], total = scratch[1];
  const T log_total = log_of<T>(total);
  for (std::int64_t j = t; j < cols; j += blockDim.x) {
    const T d = static_cast<T>(x[base + j]) - shift;
    out[base + j] = log_softmax ? d - log_total : exp_of<T>(d) / total;
  }
}

template <class T>
__global__ void where_kernel(DevPtr<T> out, Strided so, DevPtr<const bool> cond, Strided sc, DevPtr<const T> a,
                             Strided sa, T a_value, DevPtr<const T> b, Strided sb, T b_value, std::int64_t n) {
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    const bool c = cond[offset_of(sc, i)];
    out[offset_of(so, i)] =
        c ? (a ? static_cast<T>(a[offset_of(sa, i)]) : a_value) : (b ? static_cast<T>(b[offset_of(sb, i)]) : b_value);
  }
}

}  // namespace

void reduce(int op, ScalarType acc_type, const Operand& out, ScalarType type, const Operand& x, const Strided& kept,
            const Strided& reduced, std::int64_t outputs, std::int64_t count, double init, void* stream) {
  if (outputs == 0) return;
  const LaunchConfig config{Dim3(static_cast<unsigned>(outputs)), Dim3(reduction_threads(count)), 0, stream};
  Strided k = kept, r = reduced;  // each indexed on its own: a contiguous run of reduced elements becomes 1-D
  coalesce({&k});
  coalesce({&r});
  with_type(type, [&](auto t) {
    using T = decltype(t);
    const auto run = [&](auto a) {
      using A = decltype(a);
      const auto px = device_ptr<const T>(x.data);
      const auto po = device_ptr<A>(out.data);
      if (op == kReduceSum)
        launch_reduce<kReduceSum, A, T>(config, po, px, k, r, count, static_cast<A>(init));
      else if (op == kReduceProd)
        launch_reduce<kReduceProd, A, T>(config, po, px, k, r, count, static_cast<A>(init));
      else if (op == kReduceMax)
        launch_reduce<kReduceMax, A, T>(config, po, px, k, r, count, static_cast<A>(init));
      else
        launch_reduce<kReduceMin, A, T>(config, po, px, k, r, count, static_cast<A>(init));
    };
    switch (acc_type) {
      case ScalarType::Float32:
        return run(float{});
      case ScalarType::Float64:
        return run(double{});
      case ScalarType::Int64:
        return run(std::int64_t{});
      default:  // max and min of the narrower types keep their type
        if constexpr (!std::is_same_v<T, bool>) return run(T{});
    }
  });
}

void extreme_along(bool is_max, ScalarType type, const Operand& values, const Operand& indices, const Operand& x,
                   const Strided& kept, std::int64_t step, std::int64_t outputs, std::int64_t count, void* stream) {
  if (outputs == 0) return;
  const LaunchConfig config{Dim3(static_cast<unsigned>(outputs)), Dim3(reduction_threads(count)), 0, stream};
  with_type(type, [&](auto t) {
    using T = decltype(t);
    launch<extreme_kernel<T>>(config, is_max, device_ptr<T>(values.data), device_ptr<std::int64_t>(indices.data),
                              device_ptr<const T>(x.data), kept, step, count);
  });
}

void softmax_rows(bool log, ScalarType type, const Operand& out, const Operand& x, std::int64_t rows, std::int64_t cols,
                  void* stream) {
  if (rows == 0 || cols == 0) return;
  const LaunchConfig config{Dim3(static_cast<unsigned>(rows)), Dim3(reduction_threads(cols)), 0, stream};
  if (type == ScalarType::Float32)
    launch<softmax_kernel<float>>(config, log, device_ptr<float>(out.data), device_ptr<const float>(x.data), cols);
  else
    launch<softmax_kernel<double>>(config, log, device_ptr<double>(out.data), device_ptr<const double>(x.data), cols);
}

void where(ScalarType type, const Operand& out, const Operand& cond, const Operand& a, const Operand& b, std::int64_t n,
           void* stream) {
  if (n == 0) return;
  const LaunchConfig config = config_for(n, stream);
  Strided so = out.layout, sc = cond.layout, sa = a.layout, sb = b.layout;
  coalesce({&so, &sc, a.is_scalar ? nullptr : &sa, b.is_scalar ? nullptr : &sb});
  with_type(type, [&](auto t) {
    using T = decltype(t);
    const auto pa = a.is_scalar ? DevPtr<const T>() : device_ptr<const T>(a.data);
    const auto pb = b.is_scalar ? DevPtr<const T>() : device_ptr<const T>(b.data);
    launch<where_kernel<T>>(config, device_ptr<T>(out.data), so, device_ptr<const bool>(cond.data), sc, pa, sa,
                            scalar_of<T>(a), pb, sb, scalar_of<T>(b), n);
  });
}

}  // namespace kindling::cuda::kernels
