// Reductions. One strided kernel reduces any set of dims: the accumulator is
// viewed with stride 0 along the reduced dims, so the loop walks the input in
// memory order and adds into the right output element (PyTorch's TensorIterator
// does the same). Sums accumulate in double (floats) or int64 (integers).

#include <cmath>
#include <cstdlib>
#include <limits>

#include <kindling/device_hooks.hpp>
#include <kindling/factory.hpp>
#include <kindling/join.hpp>
#include <kindling/ops.hpp>

#include "autograd_hooks.hpp"
#include "internal.hpp"
#include "loop.hpp"

namespace kindling {
namespace {

enum class Red { Sum, Prod, Max, Min };

// Integer sums and products wrap around on overflow, as PyTorch's do: computed in
// detail::Wrapping<A> (internal.hpp; found by fuzzing a checkpoint of large int64 values).
using detail::Wrapping;

template <class T>
using SumAcc = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;

template <Red R, class A, class T>
A combine(A acc, T v) {
  using W = Wrapping<A>;
  if constexpr (R == Red::Sum)
    return static_cast<A>(static_cast<W>(acc) + static_cast<W>(static_cast<A>(v)));
  else if constexpr (R == Red::Prod)
    return static_cast<A>(static_cast<W>(acc) * static_cast<W>(static_cast<A>(v)));
  else {
    if constexpr (std::is_floating_point_v<T>)
      if (v != v) return v;  // NaN propagates
    if constexpr (R == Red::Max)
      return v > acc ? v : acc;
    else
      return v < acc ? v : acc;
  }
}

// acc[out index] = combine(acc, x) over the loop. `acc` has x's dims with size 1 on
// the reduced ones, so broadcasting gives it stride 0 there; a full reduction of a
// contiguous x is then a single run with no loop set-up at all.
// Elements per piece of a parallel full reduction (see reduce_kernel).
constexpr std::int64_t kPiece = std::int64_t{1} << 18;

// One run of a reduction: out (stride s[0], 0 when every element goes to one output)
// combined with n elements of x (stride s[1]).
template <Red R, class A, class T>
void reduce_run(std::array<char*, 2> p, std::array<std::int64_t, 2> s, std::int64_t n) {
  A* out = reinterpret_cast<A*>(p[0]);
  if (s[0] == 0 && s[1] == static_cast<std::int64_t>(sizeof(T))) {
    const T* in = reinterpret_cast<const T*>(p[1]);
    if constexpr (R == Red::Sum && std::is_same_v<T, float>) {
      // Blocks of 4096 floats summed in 64 float lanes: four AVX-512 registers (or eight
      // AVX2 ones) with no dependency between them, so the adds overlap instead of each
      // waiting for the last. Each lane adds 64 floats of a block; the lanes are then
      // added pairwise (in float, then the last 16 in double), and the blocks in double:
      // as fast as memory delivers, and far more accurate than a sequential float sum.
      // A short run (a sum along a narrow row) skips what it cannot use: under 16 floats
      // it adds in double directly, and under 256 it keeps only 16 lanes, since setting up
      // and folding 64 would cost more than the adds. A 16-wide loop takes what the
      // 64-wide one leaves of a block, so a run of 100 is not mostly a serial tail.
      constexpr int kLanes = 64;
      double total = *out;
      std::int64_t i = 0;
      if (n < 16) {
        for (; i < n; ++i) total += in[i];
        *out = total;
        return;
      }
      while (i < n) {
        const std::int64_t end = std::min(n, i + 64 * kLanes);
        float lanes[16] = {};
        if (end - i >= 4 * kLanes) {
          float wide[kLanes] = {};
          for (; i + kLanes <= end; i += kLanes)
            for (int j = 0; j < kLanes; ++j) wide[j] += in[i + j];
          for (int j = 0; j < 16; ++j) lanes[j] = (wide[j] + wide[j + 16]) + (wide[j + 32] + wide[j + 48]);
        }
        for (; i + 16 <= end; i += 16)
          for (int j = 0; j < 16; ++j) lanes[j] += in[i + j];
        double fold[16];
        for (int j = 0; j < 16; ++j) fold[j] = lanes[j];
        for (int w = 8; w >= 1; w /= 2)
          for (int j = 0; j < w; ++j) fold[j] += fold[j + w];
        double block = fold[0];
        for (; i < end; ++i) block += in[i];
        total += block;
      }
      *out = total;
    } else if constexpr (R == Red::Sum) {
      // Eight independent partial sums let the compiler keep several vector adds in flight.
      using W = Wrapping<A>;
      W part[8] = {};
      std::int64_t i = 0;
      for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; ++j) part[j] += static_cast<W>(static_cast<A>(in[i + j]));
      W a = static_cast<W>(*out);
      for (; i < n; ++i) a += static_cast<W>(static_cast<A>(in[i]));
      *out = static_cast<A>(
          a + (((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]))));
    } else {
      A a = *out;
      for (std::int64_t i = 0; i < n; ++i) a = combine<R>(a, in[i]);
      *out = a;
    }
  } else if (s[0] == static_cast<std::int64_t>(sizeof(A)) && s[1] == static_cast<std::int64_t>(sizeof(T))) {
    const T* in = reinterpret_cast<const T*>(p[1]);
    for (std::int64_t i = 0; i < n; ++i) out[i] = combine<R>(out[i], in[i]);
  } else {
    for (std::int64_t i = 0; i < n; ++i) {
      A& a = *reinterpret_cast<A*>(p[0] + i * s[0]);
      a = combine<R>(a, *reinterpret_cast<const T*>(p[1] + i * s[1]));
    }
  }
}

template <Red R, class A, class T>
void reduce_kernel(const Tensor& acc, const Tensor& x) {
  const auto inner = [](std::array<char*, 2> p, std::array<std::int64_t, 2> s, std::int64_t n) {
    reduce_run<R, A, T>(p, s, n);
  };
  // The loop walks x in memory order (x.t().sum() reads rows, not columns).
  if (x.numel() < 2 * detail::kParallelGrain) {
    (void)detail::parallel_threads("reduce", x.numel(), 1);  // one thread (counted as such)
    detail::for_each_run<2>(x.sizes(), {&acc, &x}, inner, 1);
    return;
  }
  const detail::StridedLoop<2> loop = detail::make_loop<2>(x.sizes(), {&acc, &x}, 1);
  // Two ways to cut it. Which one is taken depends on the sizes alone, never on the thread
  // count, so that the result has the same bits for any number of threads (the two add in
  // different orders).
  // 1. Along a kept dim: pieces write disjoint outputs, and each output is reduced in the
  //    same order as on one thread (on one thread it is the plain loop).
  // 2. A full reduction, or a large one whose kept dims are too short to share out: the
  //    outermost dim cut into a number of pieces that depends on the size alone, each
  //    reduced into its own copy of the accumulator (in parallel), the copies combined in
  //    order.
  // 1 is taken when a kept dim is at least as long as 2's count of pieces.
  const std::int64_t pieces = std::min<std::int64_t>(loop.shape[0], x.numel() / kPiece);
  const std::int64_t wanted = std::min<std::int64_t>(detail::max_threads(), x.numel() / detail::kParallelGrain);
  std::size_t first = loop.shape.size(), longest = loop.shape.size();  // kept dims (none: a full reduction)
  for (std::size_t d = 0; d < loop.shape.size(); ++d) {
    if (loop.strides[0][d] == 0) continue;
    if (first == loop.shape.size() && loop.shape[d] >= wanted) first = d;  // room for every thread
    if (longest == loop.shape.size() || loop.shape[d] > loop.shape[longest]) longest = d;
  }
  const auto on_one_thread = [&] {
    (void)detail::parallel_threads("reduce", x.numel(), 1);  // counted as such
    detail::run_loop(loop, inner);
  };
  const bool kept = longest < loop.shape.size();
  if (pieces <= 1 || (kept && loop.shape[longest] >= pieces)) {
    if (!kept) return on_one_thread();
    // The outermost kept dim with room for every thread, else the longest (a convolution's
    // bias gradient, its (8, 64 * 26 * 26) output gradient summed along rows: 8 threads at most).
    const std::size_t d = first < loop.shape.size() ? first : longest;
    // Threads whose outputs share a cache line fight over it at every write: fine when each
    // output is written once (every reduced dim inside one run), not when it is written run
    // after run (8 channels summed over 64 images). Such a loop stays on one thread.
    bool written_once = loop.strides[0].back() == 0;
    for (std::size_t k = 0; k + 1 < loop.shape.size(); ++k) written_once = written_once && loop.strides[0][k] != 0;
    const std::int64_t per_piece = loop.shape[d] / std::min(wanted, loop.shape[d]);
    if (!written_once && per_piece * std::abs(loop.strides[0][d]) < 64) return on_one_thread();
    detail::parallel_pieces("reduce", loop, d,
                            [&inner](const detail::StridedLoop<2>& piece) { detail::run_loop(piece, inner); });
    return;
  }
  const int threads = detail::parallel_threads("reduce", x.numel(), pieces);
  std::vector<Tensor> partial(static_cast<std::size_t>(pieces));
  for (auto& t : partial) t = acc.clone();
  char* const acc_base = static_cast<char*>(acc.data_ptr());
  KINDLING_OMP_FOR(threads, pieces)
  for (std::int64_t p = 0; p < pieces; ++p) {
    detail::StridedLoop<2> piece =
        detail::slice_loop(loop, 0, loop.shape[0] * p / pieces, loop.shape[0] * (p + 1) / pieces);
    piece.data[0] = static_cast<char*>(partial[static_cast<std::size_t>(p)].data_ptr()) + (piece.data[0] - acc_base);
    detail::run_loop(piece, inner);
  }
  A* a = static_cast<A*>(acc.data_ptr());
  for (const Tensor& t : partial) {
    const A* q = static_cast<const A*>(t.data_ptr());
    for (std::int64_t i = 0; i < acc.numel(); ++i) a[i] = combine<R>(a[i], q[i]);
  }
}

// Which dims are reduced; empty `dims` means all.
std::vector<bool> reduced_mask(const Tensor& x, IntArrayRef dims) {
  std::vector<bool> mask(static_cast<std::size_t>(x.dim()), dims.empty());
  for (auto d : dims) {
    const std::int64_t w = wrap_dim(d, x.dim());
    KINDLING_CHECK(!mask[w], "dim ", w, " appears multiple times in the list of dims");
    mask[w] = true;
  }
  return mask;
}

Shape reduced_shape(const Tensor& x, const std::vector<bool>& mask, bool keepdim) {
  Shape shape;
  for (std::int64_t d = 0; d < x.dim(); ++d) {
    if (!mask[d])
      shape.push_back(x.sizes()[d]);
    else if (keepdim)
      shape.push_back(1);
  }
  return shape;
}

// Reduces x (of type T) over `mask`, returning the accumulator with keepdim shape.
// A reduction's result in its final shape: `acc`, a fresh contiguous tensor, seen
// with `shape` as a tensor of its own. A view of it would make the result a view
// (is_view(), and detach_() refuses a view), which PyTorch's reductions never return.
Tensor as_result(const Tensor& acc, IntArrayRef shape) {
  return Tensor::make(acc.storage(), Shape(shape.begin(), shape.end()), contiguous_strides(shape), acc.storage_offset(),
                      acc.dtype());
}

template <Red R, class A, class T>
Tensor reduce_to_acc(const Tensor& x, const std::vector<bool>& mask, A init) {
  Tensor acc = full(reduced_shape(x, mask, true), init, dtype_of<A>());
  reduce_kernel<R, A, T>(acc, x);
  return acc;
}

// ---- on a device (week 6): the same reductions through the device's kernels -----------------
// The accumulator is a fresh contiguous tensor on x's device in keepdim shape, of `acc_type`.
Tensor device_reduce(ReduceOp op, const Tensor& x, const std::vector<bool>& mask, ScalarType acc_type,
                     const Scalar& init) {
  Tensor acc = detail::empty_contiguous(reduced_shape(x, mask, true), acc_type, x.device());
  device_backend(x.device().type).reduce(op, acc, x, init);
  return acc;
}

// -inf or the type's lowest value (max), +inf or its largest (min).
Scalar extreme_init(ScalarType t, bool is_max) {
  switch (t) {
    case kFloat32:
    case kFloat64:
      return is_max ? -INFINITY : INFINITY;
    case kBool:
    case kUInt8:
      return is_max ? 0 : 255;
    case kInt32:
      return is_max ? std::numeric_limits<std::int32_t>::lowest() : std::numeric_limits<std::int32_t>::max();
    default:
      return is_max ? std::numeric_limits<std::int64_t>::lowest() : std::numeric_limits<std::int64_t>::max();
  }
}

Tensor sum_impl(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  if (!x.device().is_cpu()) {
    const Tensor in = dtype ? x.to(*dtype) : x;
    const ScalarType out_type = dtype ? *dtype : (is_integral(x.dtype(), true) ? kInt64 : x.dtype());
    const auto mask = reduced_mask(in, dims);
    const ScalarType acc_type = is_integral(in.dtype(), true) ? kInt64 : in.dtype();
    const Tensor acc = device_reduce(ReduceOp::Sum, in, mask, acc_type, 0);
    return as_result(acc.to(out_type), reduced_shape(in, mask, keepdim));
  }
  if (!dtype && dims.empty() && !keepdim && x.numel() < 2 * kPiece && x.is_contiguous()) {
    // The whole of a small contiguous tensor: the same single run reduce_kernel would
    // make, into an accumulator on the stack, and no accumulator tensor to convert.
    std::optional<Tensor> out;
    visit_dtype(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_arithmetic_v<T>) {
        using A = SumAcc<T>;
        using Out = std::conditional_t<std::is_floating_point_v<T>, T, std::int64_t>;
        A total = 0;
        reduce_run<Red::Sum, A, T>({reinterpret_cast<char*>(&total), static_cast<char*>(x.data_ptr())},
                                   {0, static_cast<std::int64_t>(sizeof(T))}, x.numel());
        out = detail::empty_contiguous({}, dtype_of<Out>());
        *static_cast<Out*>(out->data_ptr()) = static_cast<Out>(total);
      }
    });
    if (out) return *std::move(out);
  }
  const Tensor in = dtype ? x.to(*dtype) : x;
  const ScalarType out_type = dtype ? *dtype : (is_integral(x.dtype(), true) ? kInt64 : x.dtype());
  const auto mask = reduced_mask(in, dims);
  Tensor acc = visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return reduce_to_acc<Red::Sum, SumAcc<T>, T>(in, mask, SumAcc<T>{0});
  });
  return as_result(acc.to(out_type), reduced_shape(in, mask, keepdim));
}

Tensor extreme_all(const Tensor& x, Red r, const char* name) {
  KINDLING_CHECK(x.numel() > 0, name,
                 "(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                 "reduction dim with the 'dim' argument.");
  const std::vector<bool> mask(static_cast<std::size_t>(x.dim()), true);
  if (!x.device().is_cpu()) {
    const bool is_max = r == Red::Max;
    return as_result(
        device_reduce(is_max ? ReduceOp::Max : ReduceOp::Min, x, mask, x.dtype(), extreme_init(x.dtype(), is_max)), {});
  }
  return visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const bool is_max = r == Red::Max;
    T init;
    if constexpr (std::is_floating_point_v<T>)
      init = is_max ? -INFINITY : INFINITY;
    else
      init = is_max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    Tensor acc = is_max ? reduce_to_acc<Red::Max, T, T>(x, mask, init) : reduce_to_acc<Red::Min, T, T>(x, mask, init);
    return as_result(acc, {});
  });
}

// Values and first indices of the extreme along one dim.
// Max over dims, keeping them; non-finite maxima become 0 (the shift for log-sum-exp).
Tensor stable_shift(const Tensor& x, const std::vector<bool>& mask) {
  if (!x.device().is_cpu()) {
    KINDLING_CHECK(x.is_floating_point(), "logsumexp: expected a floating point tensor");
    const Tensor m = device_reduce(ReduceOp::Max, x, mask, x.dtype(), -INFINITY);
    return where(isfinite(m), m, zeros_like(m));
  }
  return visit_dtype(x.dtype(), [&](auto tag) -> Tensor {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      Tensor m = reduce_to_acc<Red::Max, T, T>(x, mask, -INFINITY);
      T* p = static_cast<T*>(m.data_ptr());
      for (std::int64_t i = 0; i < m.numel(); ++i)
        if (!std::isfinite(p[i])) p[i] = 0;
      return m;
    } else {
      throw Error("logsumexp: expected a floating point tensor");
    }
  });
}

// Applies a row-wise kernel along `dim`: moves it last, runs f(in_row, out_row, n), moves it back.
template <class F>
Tensor along_dim(const Tensor& x, std::int64_t dim, F f) {
  if (x.dim() == 0) {
    wrap_dim(dim, 0);
    return along_dim(x.reshape({1}), 0, f).reshape(Shape{});
  }
  const std::int64_t d = wrap_dim(dim, x.dim());
  const Tensor moved = x.movedim(d, -1).contiguous();
  Tensor out = detail::empty_contiguous(moved.sizes(), x.dtype());
  const std::int64_t n = moved.sizes().back();
  const std::int64_t rows = n == 0 ? 0 : moved.numel() / n;
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      const T* in = static_cast<const T*>(moved.data_ptr());
      T* o = static_cast<T*>(out.data_ptr());
      const int threads = detail::parallel_threads("rowwise", rows * n, rows);
      KINDLING_OMP_FOR(threads, rows)
      for (std::int64_t r = 0; r < rows; ++r) f(in + r * n, o + r * n, n);
    }
  });
  return out.movedim(-1, d).contiguous();
}

// On a device: the rows moved last and made contiguous, the device's row kernel, and back.
Tensor device_softmax(const Tensor& x, std::int64_t dim, bool log) {
  if (x.dim() == 0) {
    wrap_dim(dim, 0);
    return device_softmax(x.reshape({1}), 0, log).reshape(Shape{});
  }
  const std::int64_t d = wrap_dim(dim, x.dim());
  const Tensor moved = x.movedim(d, -1).contiguous();
  Tensor out = detail::empty_contiguous(moved.sizes(), x.dtype(), x.device());
  const std::int64_t n = moved.sizes().back();
  if (moved.numel() > 0)
    device_backend(x.device().type)
        .softmax_rows(out.view({moved.numel() / n, n}), moved.view({moved.numel() / n, n}), log);
  return out.movedim(-1, d).contiguous();
}

Tensor softmax_impl(const Tensor& x, std::int64_t dim, std::optional<ScalarType> dtype, bool log) {
  const Tensor in = dtype ? x.to(*dtype) : x;
  // The dim is checked first; an integer input then names the kernel PyTorch's CPU dispatch would
  // have run: the last-dim kernels (one per function), or the one general kernel both share.
  const bool last_dim = wrap_dim(dim, in.dim()) == std::max<std::int64_t>(in.dim() - 1, 0);
  const char* kernel = !last_dim ? "softmax_kernel_impl"
                       : log     ? "log_softmax_lastdim_kernel_impl"
                                 : "softmax_lastdim_kernel_impl";
  // An empty input returns before PyTorch's dispatch, whatever its dtype.
  if (in.numel() == 0) return detail::empty_contiguous(in.sizes(), in.dtype(), in.device());
  KINDLING_CHECK(in.is_floating_point(), "\"", kernel, "\" not implemented for '", dtype_short_name(in.dtype()), "'");
  if (!in.device().is_cpu()) return device_softmax(in, dim, log);
  return along_dim(in, dim, [log](const auto* row, auto* out, std::int64_t n) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(out)>>;
    T m = -INFINITY;
    for (std::int64_t i = 0; i < n; ++i) m = row[i] > m || row[i] != row[i] ? row[i] : m;
    // (The shift is the maximum whatever it is, as in PyTorch: +inf in a row gives NaN throughout,
    // as inf - inf is NaN; so does a row of -inf only.)
    double s = 0;
    for (std::int64_t i = 0; i < n; ++i) s += std::exp(static_cast<double>(row[i] - m));
    if (log) {
      const T lse = static_cast<T>(std::log(s));
      for (std::int64_t i = 0; i < n; ++i) out[i] = row[i] - m - lse;
    } else {
      for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(std::exp(static_cast<double>(row[i] - m)) / s);
    }
  });
}

}  // namespace

using detail::autograd::differentiable;
using detail::autograd::Op;
using detail::autograd::OpArgs;
namespace {
Tensor mean_impl(const Tensor& x, IntArrayRef dims, bool keepdim);
}  // namespace

Tensor sum(const Tensor& x, std::optional<ScalarType> dtype) {
  return differentiable(Op::Sum, {x}, [&] { return sum_impl(x, {}, false, dtype); });
}
Tensor sum(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  return differentiable(
      Op::Sum, {x}, [&] { return sum_impl(x, dims, keepdim, dtype); },
      [&] { return OpArgs{.dims = dims.vec(), .keepdim = keepdim}; });
}

Tensor mean(const Tensor& x) { return mean(x, {}, false); }
Tensor mean(const Tensor& x, IntArrayRef dims, bool keepdim) {
  return differentiable(
      Op::Mean, {x}, [&] { return mean_impl(x, dims, keepdim); },
      [&] { return OpArgs{.dims = dims.vec(), .keepdim = keepdim}; });
}

namespace {
Tensor mean_impl(const Tensor& x, IntArrayRef dims, bool keepdim) {
  KINDLING_CHECK(x.is_floating_point(),
                 "mean(): could not infer output dtype. Input dtype must be either a floating "
                 "point or complex dtype. Got: ",
                 dtype_short_name(x.dtype()));
  const auto mask = reduced_mask(x, dims);
  std::int64_t count = 1;
  for (std::int64_t d = 0; d < x.dim(); ++d)
    if (mask[d]) count *= x.sizes()[d];
  if (!x.device().is_cpu()) {
    const Tensor acc = device_reduce(ReduceOp::Sum, x, mask, x.dtype(), 0);
    return as_result(div(acc, detail::wrapped_scalar(Scalar(static_cast<double>(count)))),
                     reduced_shape(x, mask, keepdim));
  }
  Tensor acc = visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return reduce_to_acc<Red::Sum, double, T>(x, mask, 0.0);
  });
  auto* p = static_cast<double*>(acc.data_ptr());
  for (std::int64_t i = 0; i < acc.numel(); ++i) p[i] /= static_cast<double>(count);
  return as_result(acc.to(x.dtype()), reduced_shape(x, mask, keepdim));
}

Tensor prod_impl(const Tensor& x, IntArrayRef dims, bool keepdim) {
  const auto mask = reduced_mask(x, dims);
  const ScalarType out_type = is_integral(x.dtype(), true) ? kInt64 : x.dtype();
  if (!x.device().is_cpu())
    return as_result(device_reduce(ReduceOp::Prod, x, mask, out_type, 1), reduced_shape(x, mask, keepdim));
  return visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor acc = reduce_to_acc<Red::Prod, SumAcc<T>, T>(x, mask, SumAcc<T>{1});
    return as_result(acc.to(out_type), reduced_shape(x, mask, keepdim));
  });
}

// max(dim)/min(dim) of a tensor on a device: week01.max_dim's contract (src/tasks/max_dim.cpp),
// computed by the device's kernel.
std::tuple<Tensor, Tensor> device_max_min_dim(const Tensor& x, std::int64_t dim, bool keepdim, bool is_max,
                                              const char* name) {
  if (x.dim() == 0) {
    wrap_dim(dim, 0);
    return {x.clone(), zeros({}, TensorOptions(kInt64).device(x.device()))};
  }
  const std::int64_t d = wrap_dim(dim, x.dim());
  KINDLING_CHECK_AS(IndexError, x.sizes()[d] > 0, name, "(): Expected reduction dim ", d, " to have non-zero size.");
  Shape shape = x.sizes().vec();
  shape[static_cast<std::size_t>(d)] = 1;
  Tensor values = detail::empty_contiguous(shape, x.dtype(), x.device());
  Tensor indices = detail::empty_contiguous(shape, kInt64, x.device());
  device_backend(x.device().type).extreme_along(is_max, values, indices, x, d);
  if (!keepdim) return {values.squeeze(d).contiguous(), indices.squeeze(d).contiguous()};
  return {values, indices};
}
std::tuple<Tensor, Tensor> max_min_dim(const Tensor& x, std::int64_t dim, bool keepdim, bool is_max, const char* name) {
  return x.device().is_cpu() ? detail::max_min_dim(x, dim, keepdim, is_max, name)
                             : device_max_min_dim(x, dim, keepdim, is_max, name);
}

// max(dim)/min(dim): only the values are differentiable; the indices route the gradient.
std::tuple<Tensor, Tensor> extreme_dim_recorded(const Tensor& x, std::int64_t dim, bool keepdim, bool is_max) {
  Tensor indices;
  Tensor values = differentiable(
      is_max ? Op::MaxDim : Op::MinDim, {x},
      [&] {
        Tensor v;
        std::tie(v, indices) = max_min_dim(x, dim, keepdim, is_max, is_max ? "max" : "min");
        return v;
      },
      [&] { return OpArgs{.dim = dim, .keepdim = keepdim, .aux = indices}; });
  return {values, indices};
}
}  // namespace

Tensor prod(const Tensor& x) {
  return differentiable(Op::Prod, {x}, [&] { return prod_impl(x, {}, false); });
}

Tensor prod(const Tensor& x, std::int64_t dim, bool keepdim) {
  return differentiable(
      Op::Prod, {x}, [&] { return prod_impl(x, Shape{dim}, keepdim); },
      [&] { return OpArgs{.dims = {dim}, .keepdim = keepdim}; });
}

Tensor max(const Tensor& x) {
  return differentiable(Op::MaxAll, {x}, [&] { return extreme_all(x, Red::Max, "max"); });
}
Tensor min(const Tensor& x) {
  return differentiable(Op::MinAll, {x}, [&] { return extreme_all(x, Red::Min, "min"); });
}
std::tuple<Tensor, Tensor> max(const Tensor& x, std::int64_t dim, bool keepdim) {
  return extreme_dim_recorded(x, dim, keepdim, true);
}
std::tuple<Tensor, Tensor> min(const Tensor& x, std::int64_t dim, bool keepdim) {
  return extreme_dim_recorded(x, dim, keepdim, false);
}
namespace {
// argmax and argmin: PyTorch's checks of the dim (which max(dim) shares) come before its CPU
// kernel's refusal of bool ("argmax_cpu" not implemented for 'Bool'), which max(dim) has not.
// PyTorch runs no kernel, and so refuses nothing, when a given dim has size 1 (the answer is 0)
// or the result is empty. Without a dim, keepdim keeps every dim as size 1.
Tensor arg_extreme(const Tensor& x, std::optional<std::int64_t> dim, bool keepdim, bool is_max) {
  const char* name = is_max ? "argmax" : "argmin";
  KINDLING_CHECK_AS(IndexError, dim || x.numel() > 0, name,
                    "(): Expected reduction dim to be specified for input.numel() == 0.");
  const Tensor in = dim ? x : x.reshape({-1});
  const std::int64_t d = wrap_dim(dim.value_or(0), in.dim());
  KINDLING_CHECK_AS(IndexError, in.dim() == 0 || in.sizes()[d] > 0, name, "(): Expected reduction dim ", d,
                    " to have non-zero size.");
  const bool runs_kernel = !(dim && in.dim() > 0 && (in.sizes()[d] == 1 || in.numel() == 0));
  KINDLING_CHECK(!runs_kernel || in.dtype() != kBool, "\"", name, "_cpu\" not implemented for 'Bool'");
  const Tensor indices = std::get<1>(max_min_dim(in, d, dim && keepdim, is_max, name));
  return !dim && keepdim ? indices.reshape(Shape(static_cast<std::size_t>(x.dim()), 1)) : indices;
}
}  // namespace

Tensor argmax(const Tensor& x, std::optional<std::int64_t> dim, bool keepdim) {
  return arg_extreme(x, dim, keepdim, true);
}
Tensor argmin(const Tensor& x, std::optional<std::int64_t> dim, bool keepdim) {
  return arg_extreme(x, dim, keepdim, false);
}

Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim) {
  return differentiable(
      Op::Logsumexp, {x},
      [&] {
        const Tensor in = x.is_floating_point() ? x : x.to(kDefaultDtype);
        const auto mask = reduced_mask(in, dims);
        const Tensor shift = stable_shift(in, mask);  // keepdim shape, broadcasts against in
        Tensor r = add(log(sum(exp(sub(in, shift)), dims, true)), shift);
        return as_result(r, reduced_shape(in, mask, keepdim));
      },
      [&] { return OpArgs{.dims = dims.vec(), .keepdim = keepdim}; });
}

Tensor softmax(const Tensor& x, std::int64_t dim, std::optional<ScalarType> dtype) {
  return differentiable(
      Op::Softmax, {x}, [&] { return softmax_impl(x, dim, dtype, false); }, [&] { return OpArgs{.dim = dim}; });
}
Tensor log_softmax(const Tensor& x, std::int64_t dim, std::optional<ScalarType> dtype) {
  return differentiable(
      Op::LogSoftmax, {x}, [&] { return softmax_impl(x, dim, dtype, true); }, [&] { return OpArgs{.dim = dim}; });
}

}  // namespace kindling
