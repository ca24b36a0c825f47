// The engine's convolution and pooling kernels: im2col and its adjoint (a convolution is then
// one GEMM per group), max pooling with its indices and their backward, and window means (average
// and adaptive average pooling) with theirs. Each backward gathers or works one plane per thread,
// so no two threads add into one element: the results do not depend on the order threads run in.
// One source for nvcc and the simulator.

#include "common.hpp"

namespace kindling::cuda::kernels {
namespace {

template <class T>
__global__ void im2col_kernel(DevPtr<T> cols, DevPtr<const T> x, Window g) {
  const std::int64_t L = g.OH * g.OW, NL = g.N * L, total = g.C * g.kh * g.kw * NL;
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < total; i += stride) {
    const std::int64_t r = i / NL, col = i % NL;
    const std::int64_t c = r / (g.kh * g.kw), ki = r / g.kw % g.kh, kj = r % g.kw;
    const std::int64_t n = col / L, oh = col % L / g.OW, ow = col % g.OW;
    const std::int64_t ih = oh * g.sh - g.ph + ki * g.dh, iw = ow * g.sw - g.pw + kj * g.dw;
    const bool inside = ih >= 0 && ih < g.H && iw >= 0 && iw < g.W;
    cols[i] = inside ? static_cast<T>(x[((n * g.C + c) * g.H + ih) * g.W + iw]) : T(0);
  }
}

// One thread per input pixel: the sum of the column entries taken from it.
template <class T>
__global__ void col2im_kernel(DevPtr<T> dx, DevPtr<const T> cols, Window g) {
  const std::int64_t L = g.OH * g.OW, NL = g.N * L, total = g.N * g.C * g.H * g.W;
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < total; i += stride) {
    const std::int64_t iw = i % g.W, ih = i / g.W % g.H, c = i / (g.H * g.W) % g.C, n = i / (g.C * g.H * g.W);
    T s = 0;
    for (std::int64_t ki = 0; ki < g.kh; ++ki) {
      const std::int64_t hn = ih + g.ph - ki * g.dh;  // oh * sh, if this tap of some output reads ih
      if (hn < 0 || hn % g.sh != 0 || hn / g.sh >= g.OH) continue;
      for (std::int64_t kj = 0; kj < g.kw; ++kj) {
        const std::int64_t wn = iw + g.pw - kj * g.dw;
        if (wn < 0 || wn % g.sw != 0 || wn / g.sw >= g.OW) continue;
        const std::int64_t r = (c * g.kh + ki) * g.kw + kj;
        s += cols[r * NL + n * L + hn / g.sh * g.OW + wn / g.sw];
      }
    }
    dx[i] = s;
  }
}

// One thread per output: the taps in PyTorch's order (row by row); a larger value or a NaN
// replaces the maximum so far.
template <class T>
__global__ void max_pool_kernel(DevPtr<T> out, DevPtr<std::int64_t> indices, DevPtr<const T> x, Window g) {
  const std::int64_t OHW = g.OH * g.OW, total = g.N * g.C * OHW;
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < total; i += stride) {
    const std::int64_t plane = i / OHW, oh = i % OHW / g.OW, ow = i % g.OW;
    T best = 0;
    std::int64_t at = -1;
    for (std::int64_t a = 0; a < g.kh; ++a) {
      const std::int64_t h = oh * g.sh - g.ph + a * g.dh;
      if (h < 0 || h >= g.H) continue;
      for (std::int64_t b = 0; b < g.kw; ++b) {
        const std::int64_t w = ow * g.sw - g.pw + b * g.dw;
        if (w < 0 || w >= g.W) continue;
        const T v = x[(plane * g.H + h) * g.W + w];
        if (at < 0 || v > best || is_nan(v)) {
          best = v;
          at = h * g.W + w;
        }
      }
    }
    out[i] = best;
    indices[i] = at;
  }
}

// One thread per plane, as on the CPU: windows may overlap, and a plane's outputs are added in order.
template <class T>
__global__ void max_pool_backward_kernel(DevPtr<T> dx, DevPtr<const T> grad, DevPtr<const std::int64_t> indices,
                                         Window g) {
  const std::int64_t P = g.N * g.C, HW = g.H * g.W, OHW = g.OH * g.OW;
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t plane = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; plane < P; plane += stride)
    for (std::int64_t o = 0; o < OHW; ++o) {
      const std::int64_t at = plane * HW + indices[plane * OHW + o];
      dx[at] = static_cast<T>(static_cast<T>(dx[at]) + static_cast<T>(grad[plane * OHW + o]));
    }
}

template <class T>
__global__ void window_mean_kernel(DevPtr<T> out, DevPtr<const T> x, DevPtr<const std::int64_t> rows,
                                   DevPtr<const std::int64_t> cols, DevPtr<const std::int64_t> divisors, std::int64_t P,
                                   std::int64_t H, std::int64_t W, std::int64_t OH, std::int64_t OW) {
  const std::int64_t OHW = OH * OW, total = P * OHW;
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < total; i += stride) {
    const std::int64_t plane = i / OHW, oi = i % OHW / OW, oj = i % OW;
    T s = 0;
    for (std::int64_t h = rows[2 * oi]; h < rows[2 * oi + 1]; ++h)
      for (std::int64_t w = cols[2 * oj]; w < cols[2 * oj + 1]; ++w) s += x[(plane * H + h) * W + w];
    out[i] = s / static_cast<T>(static_cast<std::int64_t>(divisors[oi * OW + oj]));
  }
}

template <class T>
__global__ void window_mean_backward_kernel(DevPtr<T> dx, DevPtr<const T> grad, DevPtr<const std::int64_t> rows,
                                            DevPtr<const std::int64_t> cols, DevPtr<const std::int64_t> divisors,
                                            std::int64_t P, std::int64_t H, std::int64_t W, std::int64_t OH,
                                            std::int64_t OW) {
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t plane = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; plane < P; plane += stride)
    for (std::int64_t oi = 0; oi < OH; ++oi)
      for (std::int64_t oj = 0; oj < OW; ++oj) {
        const T v = static_cast<T>(grad[(plane * OH + oi) * OW + oj]) /
                    static_cast<T>(static_cast<std::int64_t>(divisors[oi * OW + oj]));
        for (std::int64_t h = rows[2 * oi]; h < rows[2 * oi + 1]; ++h)
          for (std::int64_t w = cols[2 * oj]; w < cols[2 * oj + 1]; ++w) {
            const std::int64_t at = (plane * H + h) * W + w;
            dx[at] = static_cast<T>(static_cast<T>(dx[at]) + v);
          }
      }
}

// Calls f(T{}) for float32 or float64.
template <class F>
void with_float(ScalarType type, F&& f) {
  if (type == ScalarType::Float32)
    f(float{});
  else
    f(double{});
}

}  // namespace

void im2col(ScalarType type, void* cols, const void* x, const Window& g, void* stream) {
  const std::int64_t total = g.C * g.kh * g.kw * g.N * g.OH * g.OW;
  if (total == 0) return;
  with_float(type, [&](auto t) {
    using T = decltype(t);
    launch<im2col_kernel<T>>(config_for(total, stream), device_ptr<T>(cols), device_ptr<const T>(x), g);
  });
}

void col2im(ScalarType type, void* dx, const void* cols, const Window& g, void* stream) {
  const std::int64_t total = g.N * g.C * g.H * g.W;
  if (total == 0) return;
  with_float(type, [&](auto t) {
    using T = decltype(t);
    launch<col2im_kernel<T>>(config_for(total, stream), device_ptr<T>(dx), device_ptr<const T>(cols), g);
  });
}

void max_pool2d(ScalarType type, void* out, void* indices, const void* x, const Window& g, void* stream) {
  const std::int64_t total = g.N * g.C * g.OH * g.OW;
  if (total == 0) return;
  with_float(type, [&](auto t) {
    using T = decltype(t);
    launch<max_pool_kernel<T>>(config_for(total, stream), device_ptr<T>(out), device_ptr<std::int64_t>(indices),
                               device_ptr<const T>(x), g);
  });
}

void max_pool2d_backward(ScalarType type, void* dx, const void* grad, const void* indices, const Window& g,
                         void* stream) {
  if (g.N * g.C * g.OH * g.OW == 0) return;
  with_float(type, [&](auto t) {
    using T = decltype(t);
    launch<max_pool_backward_kernel<T>>(config_for(g.N * g.C, stream), device_ptr<T>(dx), device_ptr<const T>(grad),
                                        device_ptr<const std::int64_t>(indices), g);
  });
}

void window_mean(ScalarType type, void* out, void* x, const void* rows, const void* cols, const void* divisors,
                 std::int64_t P, std::int64_t H, std::int64_t W, std::int64_t OH, std::int64_t OW, bool backward,
                 void* stream) {
  if (P * OH * OW == 0) return;
  with_float(type, [&](auto t) {
    using T = decltype(t);
    const auto r = device_ptr<const std::int64_t>(rows), c = device_ptr<const std::int64_t>(cols);
    const auto d = device_ptr<const std::int64_t>(divisors);
    if (backward)
      launch<window_mean_backward_kernel<T>>(config_for(P, stream), device_ptr<T>(x), device_ptr<const T>(out), r, c, d,
                                             P, H, W, OH, OW);
    else
      launch<window_mean_kernel<T>>(config_for(P * OH * OW, stream), device_ptr<T>(out), device_ptr<const T>(x), r, c,
                                    d, P, H, W, OH, OW);
  });
}

}  // namespace kindling::cuda::kernels
