// Pooling kernels. Each works on planes: (N, C, H, W) is N * C independent
// H x W images. Average pools (fixed and adaptive) share one kernel that takes,
// per spatial axis, each output cell's window [start, end) and divisor.

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#ifdef __AVX512F__
#include <immintrin.h>
#endif

#include <kindling/device_hooks.hpp>
#include <kindling/factory.hpp>
#include <kindling/grad_mode.hpp>
#include <kindling/pooling.hpp>

#include "internal.hpp"
#include "nn_internal.hpp"

namespace kindling::nn::functional {
namespace {

struct Window {
  std::int64_t start, end, divisor;
};

// The input as contiguous planes, and the shape the output should have.
struct Planes {
  Tensor x;    // (P, H, W)
  Shape lead;  // (N, C) or (C)
  std::int64_t P, H, W;
};

// PyTorch's words for an input that is not 3-D or 4-D differ by op.
void check_rank(const Tensor& input, const std::string& op) {
  if (input.dim() == 3 || input.dim() == 4) return;
  if (op == "adaptive_avg_pool2d")
    throw Error("adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got " + to_string(input.sizes()));
  if (op == "avg_pool2d") {
    (void)wrap_dim(-3, input.dim());  // fewer than 3 dims: PyTorch reads size(-3) first (IndexError)
    throw Error("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:" +
                to_string(input.sizes()));
  }
  throw Error("non-empty 3D or 4D (batch mode) tensor expected for input");
}

Planes planes_of(const Tensor& input, const char* op) {
  check_rank(input, op);
  KINDLING_CHECK(input.is_floating_point(), "\"", op, "\" not implemented for '", dtype_short_name(input.dtype()), "'");
  Planes p;
  const auto s = input.sizes();
  p.H = s[s.size() - 2];
  p.W = s[s.size() - 1];
  p.lead.assign(s.begin(), s.end() - 2);
  p.P = 1;
  for (auto v : p.lead) p.P *= v;
  p.x = input.contiguous().reshape({p.P, p.H, p.W});
  return p;
}

Shape out_shape(const Planes& p, std::int64_t oh, std::int64_t ow) {
  Shape s = p.lead;
  s.push_back(oh);
  s.push_back(ow);
  return s;
}

void check_output_size(const Planes& p, std::int64_t oh, std::int64_t ow) {
  const std::int64_t c = p.lead.back();
  KINDLING_CHECK(oh >= 1 && ow >= 1, "Given input size: (", c, "x", p.H, "x", p.W, "). Calculated output size: (", c,
                 "x", oh, "x", ow, "). Output size is too small");
}

// Mean over windows[h] x windows[w] of every plane.
// The windows of a device's window_mean: (start, end) per row and per column, and each
// window's divisor, as int64 CPU tensors.
struct DeviceWindows {
  Tensor rows, cols, divisors;
};
DeviceWindows device_windows(const std::vector<Window>& hw, const std::vector<Window>& ww, bool clipped_divisor) {
  const auto OH = static_cast<std::int64_t>(hw.size()), OW = static_cast<std::int64_t>(ww.size());
  DeviceWindows d{empty({OH, 2}, kInt64), empty({OW, 2}, kInt64), empty({OH, OW}, kInt64)};
  std::int64_t* r = d.rows.data_ptr<std::int64_t>();
  std::int64_t* c = d.cols.data_ptr<std::int64_t>();
  std::int64_t* v = d.divisors.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < OH; ++i) {
    r[2 * i] = hw[static_cast<std::size_t>(i)].start;
    r[2 * i + 1] = hw[static_cast<std::size_t>(i)].end;
  }
  for (std::int64_t j = 0; j < OW; ++j) {
    c[2 * j] = ww[static_cast<std::size_t>(j)].start;
    c[2 * j + 1] = ww[static_cast<std::size_t>(j)].end;
  }
  for (std::int64_t i = 0; i < OH; ++i)
    for (std::int64_t j = 0; j < OW; ++j) {
      const Window& a = hw[static_cast<std::size_t>(i)];
      const Window& b = ww[static_cast<std::size_t>(j)];
      v[i * OW + j] = clipped_divisor ? (a.end - a.start) * (b.end - b.start) : a.divisor * b.divisor;
    }
  return d;
}

Tensor window_mean(const Planes& p, const std::vector<Window>& hw, const std::vector<Window>& ww, bool clipped_divisor,
                   const char* node_name) {
  const std::int64_t OH = static_cast<std::int64_t>(hw.size()), OW = static_cast<std::int64_t>(ww.size());
  Tensor out = kindling::detail::empty_contiguous(out_shape(p, OH, OW), p.x.dtype(), p.x.device());
  if (!p.x.device().is_cpu()) {  // on a device: its window_mean kernel, forward and backward
    const DeviceWindows d = device_windows(hw, ww, clipped_divisor);
    device_backend(p.x.device().type).window_mean(out.view({p.P, OH, OW}), p.x, d.rows, d.cols, d.divisors, false);
    const std::int64_t P = p.P, H = p.H, W = p.W;
    nn::detail::record_function(
        node_name, out, {p.x}, {},
        [d, P, H, W, OH, OW](const Tensor& grad, const TensorList&, const std::vector<bool>&) -> TensorList {
          Tensor gx = zeros({P, H, W}, TensorOptions(grad.dtype()).device(grad.device()));
          device_backend(grad.device().type)
              .window_mean(grad.contiguous().view({P, OH, OW}), gx, d.rows, d.cols, d.divisors, true);
          return {gx};
        });
    return out;
  }
  nn::detail::visit_float(p.x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = p.x.data_ptr<T>();
    T* y = out.data_ptr<T>();
    const int threads = kindling::detail::parallel_threads("avg_pool2d", p.P * p.H * p.W, p.P);
    KINDLING_OMP_FOR(threads, p.P)
    for (std::int64_t plane = 0; plane < p.P; ++plane)
      for (std::int64_t i = 0; i < OH; ++i)
        for (std::int64_t j = 0; j < OW; ++j) {
          T s = 0;
          for (std::int64_t h = hw[i].start; h < hw[i].end; ++h)
            for (std::int64_t w = ww[j].start; w < ww[j].end; ++w) s += x[(plane * p.H + h) * p.W + w];
          const std::int64_t div =
              clipped_divisor ? (hw[i].end - hw[i].start) * (ww[j].end - ww[j].start) : hw[i].divisor * ww[j].divisor;
          y[(plane * OH + i) * OW + j] = s / static_cast<T>(div);
        }
  });
  const Tensor& result = out;
  const std::int64_t P = p.P, H = p.H, W = p.W;
  nn::detail::record_function(
      node_name, result, {p.x}, {},
      [hw, ww, clipped_divisor, P, H, W](const Tensor& grad, const TensorList&,
                                         const std::vector<bool>&) -> TensorList {
        const std::int64_t OH2 = static_cast<std::int64_t>(hw.size()), OW2 = static_cast<std::int64_t>(ww.size());
        const Tensor g = grad.contiguous();
        Tensor gx = zeros({P, H, W}, g.dtype());
        nn::detail::visit_float(g.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T* gy = g.data_ptr<T>();
          T* dx = gx.data_ptr<T>();
          const int threads = kindling::detail::parallel_threads("avg_pool2d.backward", P * H * W, P);
          KINDLING_OMP_FOR(threads, P)
          for (std::int64_t plane = 0; plane < P; ++plane)
            for (std::int64_t i = 0; i < OH2; ++i)
              for (std::int64_t j = 0; j < OW2; ++j) {
                const std::int64_t div = clipped_divisor ? (hw[i].end - hw[i].start) * (ww[j].end - ww[j].start)
                                                         : hw[i].divisor * ww[j].divisor;
                const T v = gy[(plane * OH2 + i) * OW2 + j] / static_cast<T>(div);
                for (std::int64_t h = hw[i].start; h < hw[i].end; ++h)
                  for (std::int64_t w = ww[j].start; w < ww[j].end; ++w) dx[(plane * H + h) * W + w] += v;
              }
        });
        return {gx.view({P, H, W})};
      });
  return result;
}

// The argument checks max and average pooling share, in PyTorch's order and words (average
// pooling has no dilation): the output size's, height then width (a zero stride, a negative pad,
// a pad over half the kernel), then the shape check's (kernel, stride, dilation).
void check_window(Pair2 kernel_size, Pair2 stride, Pair2 padding, Pair2 dilation = 1) {
  for (const auto& [k, s, pad] : {std::array<std::int64_t, 3>{kernel_size.h, stride.h, padding.h},
                                  std::array<std::int64_t, 3>{kernel_size.w, stride.w, padding.w}}) {
    KINDLING_CHECK(s != 0, "stride should not be zero");
    KINDLING_CHECK(pad >= 0, "pad must be non-negative, but got pad: ", pad);
    KINDLING_CHECK(pad <= k / 2, "pad should be at most half of kernel size, but got pad=", pad,
                   " and kernel_size=", k);
  }
  KINDLING_CHECK(kernel_size.h > 0 && kernel_size.w > 0,
                 "kernel size should be greater than zero, but got kH: ", kernel_size.h, " kW: ", kernel_size.w);
  KINDLING_CHECK(stride.h > 0 && stride.w > 0, "stride should be greater than zero, but got dH: ", stride.h,
                 " dW: ", stride.w);
  KINDLING_CHECK(dilation.h > 0 && dilation.w > 0,
                 "dilation should be greater than zero, but got dilationH: ", dilation.h, " dilationW: ", dilation.w);
}

std::vector<Window> avg_windows(std::int64_t in, std::int64_t out, std::int64_t k, std::int64_t s, std::int64_t pad) {
  std::vector<Window> w(static_cast<std::size_t>(out));
  for (std::int64_t o = 0; o < out; ++o) {
    std::int64_t start = o * s - pad;
    std::int64_t end = std::min(start + k, in + pad);
    const std::int64_t divisor = end - start;  // counts the padding
    start = std::max<std::int64_t>(start, 0);
    end = std::min(end, in);
    w[static_cast<std::size_t>(o)] = {start, end, divisor};
  }
  return w;
}

struct PoolGeometry {
  std::int64_t P, H, W, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw;
};

// Whether tap value `v` replaces the maximum so far, as in PyTorch's CPU kernel:
// a larger value does (so of equal maxima the first stays), and so does every NaN
// (so a NaN propagates, and of several NaNs the last one gets the gradient).
template <class T>
bool better(T v, T best) {
  return (v > best) | (v != v);
}

// MaxPool2d(2), by far the most common window (2 x 2, stride 2, no padding or
// dilation: every window is whole), over one plane.
//
// This and max_pool_plane are plain functions of values, called once per plane
// from the parallel loop: code written inside an OpenMP region reaches the sizes
// through a pointer to the region's shared variables, and since the stores to
// `y` might alias them the compiler reloads them at every step (measured: 2.6x
// slower for this loop).
template <class T>
[[gnu::noinline]] void max_pool_plane_2x2(const T* __restrict x, T* __restrict y, std::int64_t* __restrict ix,
                                          std::int64_t W, std::int64_t OH, std::int64_t OW) {
  for (std::int64_t i = 0; i < OH; ++i) {
    const T* r0 = x + 2 * i * W;
    const T* r1 = r0 + W;
    T* out = y + i * OW;
    std::int64_t* arg = ix + i * OW;
    const std::int64_t corner = 2 * i * W;  // flat index of the window's top-left tap at j = 0
    for (std::int64_t j = 0; j < OW; ++j) {
      // The taps in PyTorch's order: (0, 0), (0, 1), (1, 0), (1, 1).
      const std::int64_t c = 2 * j;
      T best = r0[c];
      std::int64_t at = 0;
      bool take = better(r0[c + 1], best);
      best = kindling::detail::select(take, r0[c + 1], best);
      at = kindling::detail::select<std::int64_t>(take, 1, at);
      take = better(r1[c], best);
      best = kindling::detail::select(take, r1[c], best);
      at = kindling::detail::select<std::int64_t>(take, W, at);
      take = better(r1[c + 1], best);
      best = kindling::detail::select(take, r1[c + 1], best);
      at = kindling::detail::select<std::int64_t>(take, W + 1, at);
      out[j] = best;
      arg[j] = corner + c + at;
    }
  }
}

#ifdef __AVX512F__
// max_pool_plane_2x2 for float with AVX-512, 16 outputs at a time, masked at a row's end. The
// rows of MaxPool2d(2) are short (14 and 7 outputs in a 28 x 28 network), too short for the
// compiler's 16-wide loop, which left them to its scalar code: 1.2 ns per input element. The
// same choices in the same order: a tap replaces the maximum when better() says so.
[[gnu::noinline]] void max_pool_plane_2x2_avx512(const float* x, float* y, std::int64_t* ix, std::int64_t W,
                                                 std::int64_t OH, std::int64_t OW) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  // A tap's offset from its window's top-left input: 0, 1, W, W + 1 (W < 2^30: see the caller).
  const __m512i right = _mm512_set1_epi32(1), below = _mm512_set1_epi32(static_cast<int>(W)),
                below_right = _mm512_set1_epi32(static_cast<int>(W + 1));
  // Lanes 8 * half .. 8 * half + 7 of v as int64 (the zero-masking forms: GCC 12 warns that the
  // plain ones use an uninitialised register).
  const auto widen = [](__m512i v, int half) {
    const __m256i part =
        half == 0 ? _mm512_maskz_extracti64x4_epi64(0xF, v, 0) : _mm512_maskz_extracti64x4_epi64(0xF, v, 1);
    return _mm512_maskz_cvtepi32_epi64(0xFF, part);
  };
  const auto better = [](__m512 v, __m512 best) {
    return static_cast<__mmask16>(_mm512_cmp_ps_mask(v, best, _CMP_GT_OQ) | _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q));
  };
  for (std::int64_t i = 0; i < OH; ++i) {
    const float* r0 = x + 2 * i * W;
    const float* r1 = r0 + W;
    for (std::int64_t j0 = 0; j0 < OW; j0 += 16) {
      const auto n = static_cast<unsigned>(std::min<std::int64_t>(16, OW - j0));  // outputs in this block
      const auto out_mask = static_cast<__mmask16>((1u << n) - 1);
      const auto low = static_cast<__mmask16>(n >= 8 ? 0xFFFFu : (1u << (2 * n)) - 1);   // inputs 0..15
      const auto high = static_cast<__mmask16>(n <= 8 ? 0u : (1u << (2 * n - 16)) - 1);  // inputs 16..31
      const float* a = r0 + 2 * j0;
      const float* b = r1 + 2 * j0;
      const __m512 a0 = _mm512_maskz_loadu_ps(low, a), a1 = _mm512_maskz_loadu_ps(high, a + 16);
      const __m512 b0 = _mm512_maskz_loadu_ps(low, b), b1 = _mm512_maskz_loadu_ps(high, b + 16);
      // The taps in PyTorch's order: (0, 0), (0, 1), (1, 0), (1, 1).
      __m512 best = _mm512_permutex2var_ps(a0, even, a1);
      __m512i at = _mm512_setzero_si512();
      const __m512 t01 = _mm512_permutex2var_ps(a0, odd, a1), t10 = _mm512_permutex2var_ps(b0, even, b1),
                   t11 = _mm512_permutex2var_ps(b0, odd, b1);
      __mmask16 take = better(t01, best);
      best = _mm512_mask_mov_ps(best, take, t01);
      at = _mm512_mask_mov_epi32(at, take, right);
      take = better(t10, best);
      best = _mm512_mask_mov_ps(best, take, t10);
      at = _mm512_mask_mov_epi32(at, take, below);
      take = better(t11, best);
      best = _mm512_mask_mov_ps(best, take, t11);
      at = _mm512_mask_mov_epi32(at, take, below_right);
      _mm512_mask_storeu_ps(y + i * OW + j0, out_mask, best);
      // The flat index h * W + w: the block's first window corner, plus 2 * lane, plus the tap.
      const __m512i offset = _mm512_add_epi32(even, at);
      const __m512i corner = _mm512_set1_epi64(2 * i * W + 2 * j0);
      std::int64_t* arg = ix + i * OW + j0;
      _mm512_mask_storeu_epi64(arg, static_cast<__mmask8>(out_mask & 0xFF), _mm512_add_epi64(corner, widen(offset, 0)));
      _mm512_mask_storeu_epi64(arg + 8, static_cast<__mmask8>(out_mask >> 8),
                               _mm512_add_epi64(corner, widen(offset, 1)));
    }
  }
}
#endif

// Any window, over one plane: a whole output row at a time, one window tap after
// another, so that the loop over j has no dependence between iterations. `shift`,
// `lo` and `hi` give, for window column b, the input column offset and the range
// of outputs j whose input column j * sw + shift[b] lies inside the row.
template <class T>
[[gnu::noinline]] void max_pool_plane(const T* __restrict x, T* __restrict y, std::int64_t* __restrict ix,
                                      const PoolGeometry& g, const std::vector<std::int64_t>& shift,
                                      const std::vector<std::int64_t>& lo, const std::vector<std::int64_t>& hi) {
  const std::int64_t H = g.H, W = g.W, OH = g.OH, OW = g.OW, sw = g.sw;
  for (std::int64_t i = 0; i < OH; ++i) {
    T* best = y + i * OW;
    std::int64_t* arg = ix + i * OW;
    std::fill(best, best + OW, -std::numeric_limits<T>::infinity());
    std::fill(arg, arg + OW, std::int64_t{-1});
    for (std::int64_t a = 0; a < g.kh; ++a) {
      const std::int64_t h = i * g.sh - g.ph + a * g.dh;
      if (h < 0 || h >= H) continue;
      for (std::size_t b = 0; b < shift.size(); ++b) {
        const T* row = x + h * W + shift[b];
        const std::int64_t base = h * W + shift[b];
        for (std::int64_t j = lo[b]; j < hi[b]; ++j) {
          const T v = row[j * sw];
          const bool take = (arg[j] < 0) | better(v, best[j]);
          best[j] = kindling::detail::select(take, v, best[j]);
          arg[j] = kindling::detail::select(take, base + j * sw, arg[j]);
        }
      }
    }
  }
}

template <class T>
void max_pool_kernel(const T* x, T* y, std::int64_t* ix, const PoolGeometry g) {
  const std::int64_t P = g.P, HW = g.H * g.W, OHW = g.OH * g.OW;
  // Window column b's offset and output range depend on b alone: worked out once
  // here rather than with two divisions per row and tap.
  std::vector<std::int64_t> shift(static_cast<std::size_t>(g.kw)), lo(shift.size()), hi(shift.size());
  for (std::size_t b = 0; b < shift.size(); ++b) {
    shift[b] = static_cast<std::int64_t>(b) * g.dw - g.pw;
    lo[b] = std::clamp<std::int64_t>((-shift[b] + g.sw - 1) / g.sw, 0, g.OW);
    hi[b] = std::clamp<std::int64_t>((g.W - shift[b] + g.sw - 1) / g.sw, lo[b], g.OW);
  }
  const bool two_by_two = g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 && g.ph == 0 && g.pw == 0 && g.dh == 1 &&
                          g.dw == 1 && 2 * g.OH <= g.H && 2 * g.OW <= g.W;  // ceil_mode can add a partial window
  const int threads = kindling::detail::parallel_threads("max_pool2d", P * HW, P);
  KINDLING_OMP_FOR(threads, P)
  for (std::int64_t plane = 0; plane < P; ++plane) {
    if (two_by_two) {
#ifdef __AVX512F__
      if constexpr (std::is_same_v<T, float>)
        if (g.W < (std::int64_t{1} << 30)) {
          max_pool_plane_2x2_avx512(x + plane * HW, y + plane * OHW, ix + plane * OHW, g.W, g.OH, g.OW);
          continue;
        }
#endif
      max_pool_plane_2x2(x + plane * HW, y + plane * OHW, ix + plane * OHW, g.W, g.OH, g.OW);
    } else
      max_pool_plane(x + plane * HW, y + plane * OHW, ix + plane * OHW, g, shift, lo, hi);
  }
}

}  // namespace

Tensor avg_pool2d(const Tensor& input, Pair2 kernel_size, std::optional<Pair2> stride_opt, Pair2 padding,
                  bool ceil_mode, bool count_include_pad) {
  const Pair2 stride = stride_opt.value_or(kernel_size);
  if (input.dim() < 3) check_rank(input, "avg_pool2d");  // PyTorch: before the window's checks
  check_window(kernel_size, stride, padding);
  const Planes p = planes_of(input, "avg_pool2d");
  const std::int64_t oh = conv_output_size(p.H, kernel_size.h, stride.h, padding.h, 1, ceil_mode);
  const std::int64_t ow = conv_output_size(p.W, kernel_size.w, stride.w, padding.w, 1, ceil_mode);
  check_output_size(p, oh, ow);
  return window_mean(p, avg_windows(p.H, oh, kernel_size.h, stride.h, padding.h),
                     avg_windows(p.W, ow, kernel_size.w, stride.w, padding.w), !count_include_pad,
                     "AvgPool2DBackward0");
}

Tensor adaptive_avg_pool2d(const Tensor& input, Pair2 output_size) {
  KINDLING_CHECK(output_size.h >= 0 && output_size.w >= 0,
                 "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {",
                 output_size.h, ", ", output_size.w, "}");
  const Planes p = planes_of(input, "adaptive_avg_pool2d");
  auto bins = [](std::int64_t in, std::int64_t out) {
    std::vector<Window> w(static_cast<std::size_t>(out));
    for (std::int64_t o = 0; o < out; ++o) {
      const auto [start, end] = adaptive_pool_bin(o, in, out);
      w[static_cast<std::size_t>(o)] = {start, end, end - start};
    }
    return w;
  };
  return window_mean(p, bins(p.H, output_size.h), bins(p.W, output_size.w), true, "AdaptiveAvgPool2DBackward0");
}

Tensor max_pool2d(const Tensor& input, Pair2 kernel_size, std::optional<Pair2> stride_opt, Pair2 padding,
                  Pair2 dilation, bool ceil_mode) {
  const Pair2 stride = stride_opt.value_or(kernel_size);
  check_rank(input, "max_pool2d");
  check_window(kernel_size, stride, padding, dilation);
  const Planes p = planes_of(input, "max_pool2d");
  const std::int64_t OH = conv_output_size(p.H, kernel_size.h, stride.h, padding.h, dilation.h, ceil_mode);
  const std::int64_t OW = conv_output_size(p.W, kernel_size.w, stride.w, padding.w, dilation.w, ceil_mode);
  check_output_size(p, OH, OW);
  Tensor out = kindling::detail::empty_contiguous(out_shape(p, OH, OW), p.x.dtype(), p.x.device());
  Tensor idx = kindling::detail::empty_contiguous({p.P, OH, OW}, kInt64, p.x.device());  // flat h * W + w of each max
  const PoolGeometry geom{p.P,      p.H,      p.W,       OH,        OW,         kernel_size.h, kernel_size.w,
                          stride.h, stride.w, padding.h, padding.w, dilation.h, dilation.w};
  if (!p.x.device().is_cpu()) {  // on a device: its max-pool kernels, N C planes as N = P images of one channel
    const Window2d w{p.P,           1,          p.H,      p.W,       kernel_size.h,
                     kernel_size.w, stride.h,   stride.w, padding.h, padding.w,
                     dilation.h,    dilation.w, OH,       OW};
    device_backend(p.x.device().type).max_pool2d(out.view({p.P, OH, OW}), idx, p.x, w);
    const std::int64_t P = p.P, H = p.H, W = p.W;
    nn::detail::record_function(
        "MaxPool2DWithIndicesBackward0", out, {p.x}, {idx},
        [w, P, H, W](const Tensor& grad, const TensorList& saved, const std::vector<bool>&) -> TensorList {
          Tensor gx = zeros({P, H, W}, TensorOptions(grad.dtype()).device(grad.device()));
          device_backend(grad.device().type).max_pool2d_backward(gx, grad.contiguous(), saved[0], w);
          return {gx};
        });
    return out;
  }
  nn::detail::visit_float(p.x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    max_pool_kernel(p.x.data_ptr<T>(), out.data_ptr<T>(), idx.data_ptr<std::int64_t>(), geom);
  });
  const std::int64_t P = p.P, H = p.H, W = p.W;
  const Tensor& result = out;
  // The node's input is the (P, H, W) planes view, so its gradient has that shape.
  const std::int64_t HW = H * W, OHW = OH * OW;
  nn::detail::record_function(
      "MaxPool2DWithIndicesBackward0", result, {p.x}, {idx},
      [P, H, W, HW, OHW](const Tensor& grad, const TensorList& saved, const std::vector<bool>&) -> TensorList {
        const Tensor g = grad.contiguous();
        const std::int64_t* ix = saved[0].data_ptr<std::int64_t>();
        Tensor gx = kindling::detail::empty_contiguous({P, HW}, g.dtype());
        nn::detail::visit_float(g.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T* gy = g.data_ptr<T>();
          T* dx = gx.data_ptr<T>();
          const int threads = kindling::detail::parallel_threads("max_pool2d.backward", P * OHW, P);
          KINDLING_OMP_FOR(threads, P)  // planes are independent
          for (std::int64_t plane = 0; plane < P; ++plane) {
            // Zeroed here, by the thread that adds into it, while it is in that thread's cache
            // (zeros() first was one more pass over the whole gradient).
            T* d = dx + plane * HW;
            std::fill(d, d + HW, T(0));
            for (std::int64_t o = 0; o < OHW; ++o) d[ix[plane * OHW + o]] += gy[plane * OHW + o];
          }
        });
        return {gx.view({P, H, W})};
      });
  return result;
}

}  // namespace kindling::nn::functional
