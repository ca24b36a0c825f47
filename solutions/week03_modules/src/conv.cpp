// Convolution as im2col + GEMM: every output pixel's receptive field becomes a
// column of a matrix, so the whole layer is one matrix product per group.
//
// Layout: cols is (C * kh * kw, N * OH * OW), row r = (c, ki, kj); for group g
// the weight (O/G, C/G * kh * kw) times cols' rows of that group gives
// (O/G, N * OH * OW). Batching all images into the columns makes the GEMM wide
// enough to be efficient even for 28 x 28 inputs.

#include <algorithm>

#include <kindling/conv.hpp>
#include <kindling/device_hooks.hpp>
#include <kindling/factory.hpp>
#include <kindling/grad_mode.hpp>

#include "internal.hpp"
#include "nn_internal.hpp"

namespace kindling::nn::functional {
namespace {

struct ConvGeometry {
  std::int64_t N, C, H, W, O, kh, kw, sh, sw, ph, pw, dh, dw, OH, OW, G;
  std::int64_t L() const { return OH * OW; }
  std::int64_t K() const { return C / G * kh * kw; }  // rows of cols per group
};

// The output columns [lo, hi) whose input column ow * sw - pw + kj * dw lies inside [0, W).
struct ValidRange {
  std::int64_t lo, hi;
};
ValidRange valid_columns(const ConvGeometry& g, std::int64_t kj) {
  const std::int64_t shift = kj * g.dw - g.pw;  // iw = ow * sw + shift
  auto ceil_div = [](std::int64_t a, std::int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); };
  const std::int64_t lo = std::clamp<std::int64_t>(ceil_div(-shift, g.sw), 0, g.OW);
  const std::int64_t hi = std::clamp<std::int64_t>(ceil_div(g.W - shift, g.sw), lo, g.OW);
  return {lo, hi};
}

template <class T>
void im2col(const T* x, T* cols, const ConvGeometry& g) {
  const std::int64_t L = g.L(), NL = g.N * L, rows = g.C * g.kh * g.kw;
  const int threads = kindling::detail::parallel_threads("conv2d.im2col", rows * NL, rows);
  KINDLING_OMP_FOR(threads, rows)
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t c = r / (g.kh * g.kw), ki = r / g.kw % g.kh, kj = r % g.kw;
    const auto [lo, hi] = valid_columns(g, kj);
    const std::int64_t shift = kj * g.dw - g.pw;
    for (std::int64_t n = 0; n < g.N; ++n) {
      const T* plane = x + (n * g.C + c) * g.H * g.W;
      T* out = cols + r * NL + n * L;
      for (std::int64_t oh = 0; oh < g.OH; ++oh) {
        const std::int64_t ih = oh * g.sh - g.ph + ki * g.dh;
        T* o = out + oh * g.OW;
        if (ih < 0 || ih >= g.H) {
          std::fill(o, o + g.OW, T(0));
          continue;
        }
        const T* row = plane + ih * g.W + shift;  // row[ow * sw] is input column ow * sw + shift
        std::fill(o, o + lo, T(0));
        if (g.sw == 1)
          std::copy(row + lo, row + hi, o + lo);
        else
          for (std::int64_t ow = lo; ow < hi; ++ow) o[ow] = row[ow * g.sw];
        std::fill(o + hi, o + g.OW, T(0));
      }
    }
  }
}

// The adjoint of im2col: adds each column entry back into the pixel it came from. `dx` need not
// be zeroed: each plane is zeroed by the thread that fills it, while it is in that thread's cache.
template <class T>
void col2im(const T* cols, T* dx, const ConvGeometry& g) {
  const std::int64_t L = g.L(), NL = g.N * L;
  const int threads = kindling::detail::parallel_threads("conv2d.col2im", g.C * g.kh * g.kw * NL, g.N * g.C);
  KINDLING_OMP_FOR(threads, g.N * g.C)
  for (std::int64_t nc = 0; nc < g.N * g.C; ++nc) {  // one image plane per iteration: no races
    const std::int64_t n = nc / g.C, c = nc % g.C;
    T* plane = dx + nc * g.H * g.W;
    std::fill(plane, plane + g.H * g.W, T(0));
    for (std::int64_t ki = 0; ki < g.kh; ++ki)
      for (std::int64_t kj = 0; kj < g.kw; ++kj) {
        const auto [lo, hi] = valid_columns(g, kj);
        const std::int64_t shift = kj * g.dw - g.pw;
        const T* in = cols + ((c * g.kh + ki) * g.kw + kj) * NL + n * L;
        for (std::int64_t oh = 0; oh < g.OH; ++oh) {
          const std::int64_t ih = oh * g.sh - g.ph + ki * g.dh;
          if (ih < 0 || ih >= g.H) continue;
          T* row = plane + ih * g.W + shift;
          const T* src = in + oh * g.OW;
          for (std::int64_t ow = lo; ow < hi; ++ow) row[ow * g.sw] += src[ow];
        }
      }
  }
}

Window2d window_of(const ConvGeometry& g) {
  return Window2d{g.N, g.C, g.H, g.W, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw, g.OH, g.OW};
}

// The forward product's (O, N L) result laid out as the (N, O, OH, OW) output, plus the bias
// when there is one: one pass over (n, o) planes (a copy and an add_ were two, each over the
// whole output). The same numbers: y + b as add_ computed them, or y itself.
void output_planes(const Tensor& y, const Tensor& bias, const Tensor& out, const ConvGeometry& g) {
  const Tensor b = bias.defined() ? bias.contiguous() : Tensor();
  nn::detail::visit_float(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* ys = y.data_ptr<T>();
    const T* bs = b.defined() ? b.data_ptr<T>() : nullptr;
    T* o = out.data_ptr<T>();
    const std::int64_t L = g.L(), NL = g.N * L, planes = g.N * g.O;
    const int threads = kindling::detail::parallel_threads("conv2d.output", planes * L, planes);
    KINDLING_OMP_FOR(threads, planes)
    for (std::int64_t p = 0; p < planes; ++p) {
      const std::int64_t n = p / g.O, oc = p % g.O;
      const T* src = ys + oc * NL + n * L;
      T* dst = o + p * L;
      if (bs) {
        const T add = bs[oc];
        for (std::int64_t l = 0; l < L; ++l) dst[l] = src[l] + add;
      } else {
        std::copy(src, src + L, dst);
      }
    }
  });
}

// im2col of a contiguous (N, C, H, W) image, on its device: the (C kh kw, N OH OW) columns.
Tensor im2col_of(const Tensor& x, const ConvGeometry& g) {
  Tensor cols = kindling::detail::empty_contiguous({g.C * g.kh * g.kw, g.N * g.L()}, x.dtype(), x.device());
  if (!x.device().is_cpu())  // on a device: its im2col kernel
    device_backend(x.device().type).im2col(cols, x, window_of(g));
  else
    nn::detail::visit_float(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      im2col(x.data_ptr<T>(), cols.data_ptr<T>(), g);
    });
  return cols;
}

// col2im of (C kh kw, N OH OW) columns, on their device: the (N, C, H, W) image each of whose
// pixels sums the entries that came from it.
Tensor col2im_of(const Tensor& cols, const ConvGeometry& g) {
  if (!cols.device().is_cpu()) {  // on a device: its col2im kernel (a gather: no two threads add into one pixel)
    Tensor image = zeros({g.N, g.C, g.H, g.W}, TensorOptions(cols.dtype()).device(cols.device()));
    device_backend(cols.device().type).col2im(image, cols, window_of(g));
    return image;
  }
  Tensor image = kindling::detail::empty_contiguous({g.N, g.C, g.H, g.W}, cols.dtype(), cols.device());
  nn::detail::visit_float(cols.dtype(), [&](auto tag) {
    using T = decltype(tag);
    col2im(cols.data_ptr<T>(), image.data_ptr<T>(), g);
  });
  return image;
}

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, Pair2 stride, Pair2 padding,
              Pair2 dilation, std::int64_t groups) {
  KINDLING_CHECK(
      input.dim() == 3 || input.dim() == 4,
      "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: ", to_string(input.sizes()));
  KINDLING_CHECK(weight.dim() == 4, "weight should have 4 dimensions, got ", weight.dim());
  KINDLING_CHECK(groups > 0, "non-positive groups is not supported");
  KINDLING_CHECK(stride.h > 0 && stride.w > 0, "non-positive stride is not supported");
  KINDLING_CHECK(padding.h >= 0 && padding.w >= 0, "negative padding is not supported");
  KINDLING_CHECK(dilation.h > 0 && dilation.w > 0, "dilation should be greater than zero");
  KINDLING_CHECK(input.is_floating_point() && input.dtype() == weight.dtype(), "expected scalar type ",
                 dtype_short_name(weight.dtype()), " but found ", dtype_short_name(input.dtype()));
  const bool batched = input.dim() == 4;
  const Tensor x = (batched ? input : input.unsqueeze(0)).contiguous();
  const auto ws = weight.sizes();
  ConvGeometry g{x.sizes()[0], x.sizes()[1], x.sizes()[2], x.sizes()[3], ws[0],      ws[2], ws[3], stride.h,
                 stride.w,     padding.h,    padding.w,    dilation.h,   dilation.w, 0,     0,     groups};
  KINDLING_CHECK(g.O % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ", groups,
                 " at dimension 0, but got weight of size ", to_string(ws), " instead");
  KINDLING_CHECK(g.C == ws[1] * groups, "Given groups=", groups, ", weight of size ", to_string(ws), ", expected input",
                 to_string(input.sizes()), " to have ", ws[1] * groups, " channels, but got ",
                 input.sizes()[batched ? 1 : 0], " channels instead");
  if (bias.defined()) {
    KINDLING_CHECK(bias.dim() == 1 && bias.sizes()[0] == g.O, "Given weight of size ", to_string(ws),
                   ", expected bias to be 1-dimensional with ", g.O, " elements, but got bias of size ",
                   to_string(bias.sizes()), " instead");
    // PyTorch names the types as C++ does ("float", "double").
    const auto cpp_name = [](ScalarType t) { return t == kFloat64 ? "double" : t == kFloat32 ? "float" : "other"; };
    KINDLING_CHECK(bias.dtype() == input.dtype(), "Input type (", cpp_name(input.dtype()), ") and bias type (",
                   cpp_name(bias.dtype()), ") should be the same");
  }
  const std::int64_t eff_h = g.dh * (g.kh - 1) + 1, eff_w = g.dw * (g.kw - 1) + 1;
  KINDLING_CHECK(g.H + 2 * g.ph >= eff_h && g.W + 2 * g.pw >= eff_w, "Calculated padded input size per channel: (",
                 g.H + 2 * g.ph, " x ", g.W + 2 * g.pw, "). Kernel size: (", eff_h, " x ", eff_w,
                 "). Kernel size can't be greater than actual input size");
  g.OH = conv_output_size(g.H, g.kh, g.sh, g.ph, g.dh);
  g.OW = conv_output_size(g.W, g.kw, g.sw, g.pw, g.dw);

  const ScalarType dtype = x.dtype();
  const Device device = kindling::detail::common_device({&x, &weight, &bias});
  Tensor cols, out;
  {
    AutoGradMode off(false);
    cols = im2col_of(x, g);
    const Tensor wmat = weight.contiguous().view({g.O, g.K()});
    Tensor y = kindling::detail::empty_contiguous({g.O, g.N * g.L()}, dtype, device);
    const std::int64_t og = g.O / g.G;
    for (std::int64_t grp = 0; grp < g.G; ++grp)
      kindling::detail::gemm(y.narrow(0, grp * og, og), wmat.narrow(0, grp * og, og),
                             cols.narrow(0, grp * g.K(), g.K()), 1, false);
    // A fresh tensor of the final shape (not a view): the node attaches to it.
    out = batched ? kindling::detail::empty_contiguous({g.N, g.O, g.OH, g.OW}, dtype, device)
                  : kindling::detail::empty_contiguous({g.O, g.OH, g.OW}, dtype, device);
    if (device.is_cpu()) {
      output_planes(y, bias, out, g);  // (O, N L) -> (N, O, L), plus the bias, in one pass
    } else {
      if (bias.defined()) y.add_(bias.view({g.O, 1}));
      kindling::detail::copy(out.view({g.N, g.O, g.OH, g.OW}), y.view({g.O, g.N, g.OH, g.OW}).permute({1, 0, 2, 3}));
    }
  }
  nn::detail::record_function(
      "ConvolutionBackward0", out, {input, weight, bias}, {weight, cols},
      [g, batched](const Tensor& grad, const TensorList& saved, const std::vector<bool>& needs) -> TensorList {
        const Tensor& w = saved[0];
        const Tensor& cols_saved = saved[1];
        const std::int64_t og = g.O / g.G, NL = g.N * g.L();
        // grad (N, O, OH, OW) -> (O, N * OH * OW), the layout of the forward GEMM's result.
        const Tensor gy = grad.reshape({g.N, g.O, g.L()}).permute({1, 0, 2}).contiguous().view({g.O, NL});
        const Tensor wmat = w.contiguous().view({g.O, g.K()});
        Tensor gx, gw, gb;
        if (needs[1]) {  // dW_g = dY_g cols_g^T
          gw = kindling::detail::empty_contiguous({g.O, g.K()}, gy.dtype(), gy.device());
          for (std::int64_t grp = 0; grp < g.G; ++grp)
            kindling::detail::gemm(gw.narrow(0, grp * og, og), gy.narrow(0, grp * og, og),
                                   cols_saved.narrow(0, grp * g.K(), g.K()).t(), 1, false);
          gw = gw.view(w.sizes());
        }
        if (needs[0]) {  // dcols_g = W_g^T dY_g, then scattered back to the pixels
          Tensor gcols = kindling::detail::empty_contiguous({g.C * g.kh * g.kw, NL}, gy.dtype(), gy.device());
          for (std::int64_t grp = 0; grp < g.G; ++grp)
            kindling::detail::gemm(gcols.narrow(0, grp * g.K(), g.K()), wmat.narrow(0, grp * og, og).t(),
                                   gy.narrow(0, grp * og, og), 1, false);
          gx = col2im_of(gcols, g);
          if (!batched) gx = gx.squeeze(0);
        }
        if (needs.size() > 2 && needs[2]) gb = sum(gy, {1});
        return {gx, gw, gb};
      });
  return out;
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, Pair2 stride, Pair2 padding,
                        Pair2 output_padding, Pair2 dilation) {
  KINDLING_CHECK(input.dim() == 3 || input.dim() == 4,
                 "Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of size: ",
                 to_string(input.sizes()));
  KINDLING_CHECK(weight.dim() == 4, "weight should have 4 dimensions, got ", weight.dim());
  KINDLING_CHECK(stride.h > 0 && stride.w > 0, "non-positive stride is not supported");
  KINDLING_CHECK(padding.h >= 0 && padding.w >= 0, "negative padding is not supported");
  KINDLING_CHECK(dilation.h > 0 && dilation.w > 0, "dilation should be greater than zero");
  KINDLING_CHECK(output_padding.h >= 0 && output_padding.w >= 0 &&
                     (output_padding.h < stride.h || output_padding.h < dilation.h) &&
                     (output_padding.w < stride.w || output_padding.w < dilation.w),
                 "output padding must be smaller than either stride or dilation, but got output_padding_height: ",
                 output_padding.h, " output_padding_width: ", output_padding.w, " stride_height: ", stride.h,
                 " stride_width: ", stride.w, " dilation_height: ", dilation.h, " dilation_width: ", dilation.w);
  KINDLING_CHECK(input.is_floating_point() && input.dtype() == weight.dtype(), "expected scalar type ",
                 dtype_short_name(weight.dtype()), " but found ", dtype_short_name(input.dtype()));
  const bool batched = input.dim() == 4;
  const Tensor x = (batched ? input : input.unsqueeze(0)).contiguous();
  const auto ws = weight.sizes();
  KINDLING_CHECK(x.sizes()[1] == ws[0], "Given transposed=1, weight of size ", to_string(ws), ", expected input",
                 to_string(input.sizes()), " to have ", ws[0], " channels, but got ", x.sizes()[1],
                 " channels instead");
  const std::int64_t H = x.sizes()[2], W = x.sizes()[3];
  // The convolution whose input gradient this is: from the output (C = ws[1] channels, OH x OW)
  // to the input (O = ws[0] channels, H x W), the same window, stride, padding and dilation.
  const std::int64_t out_h = (H - 1) * stride.h - 2 * padding.h + dilation.h * (ws[2] - 1) + output_padding.h + 1;
  const std::int64_t out_w = (W - 1) * stride.w - 2 * padding.w + dilation.w * (ws[3] - 1) + output_padding.w + 1;
  KINDLING_CHECK(out_h > 0 && out_w > 0, "Given input size per channel: (", H, " x ", W,
                 "). Calculated output size per channel: (", out_h, " x ", out_w, "). Output size is too small");
  ConvGeometry g{x.sizes()[0], ws[1],     out_h,     out_w,      ws[0],      ws[2], ws[3], stride.h,
                 stride.w,     padding.h, padding.w, dilation.h, dilation.w, H,     W,     1};
  if (bias.defined())
    KINDLING_CHECK(bias.dim() == 1 && bias.sizes()[0] == g.C, "Given transposed=1, weight of size ", to_string(ws),
                   ", expected bias to be 1-dimensional with ", g.C, " elements, but got bias of size ",
                   to_string(bias.sizes()), " instead");
  const ScalarType dtype = x.dtype();
  const Device device = kindling::detail::common_device({&x, &weight, &bias});
  const std::int64_t NL = g.N * g.L();
  Tensor out;
  {
    AutoGradMode off(false);
    const Tensor xm = x.reshape({g.N, g.O, g.L()}).permute({1, 0, 2}).contiguous().view({g.O, NL});
    const Tensor wmat = weight.contiguous().view({g.O, g.K()});
    Tensor cols = kindling::detail::empty_contiguous({g.K(), NL}, dtype, device);
    kindling::detail::gemm(cols, wmat.t(), xm, 1, false);
    out = col2im_of(cols, g);  // the scatter of a convolution's input gradient
    if (bias.defined()) out.add_(bias.view({1, g.C, 1, 1}));
    if (!batched) out = out.squeeze(0).contiguous();
  }
  nn::detail::record_function(
      "ConvolutionBackward0", out, {input, weight, bias}, {input, weight},
      [g, batched](const Tensor& grad, const TensorList& saved, const std::vector<bool>& needs) -> TensorList {
        AutoGradMode off(false);
        const Tensor x_saved = (batched ? saved[0] : saved[0].unsqueeze(0)).contiguous();
        const Tensor& w = saved[1];
        const std::int64_t rows = g.N * g.L();
        const Tensor cols = im2col_of((batched ? grad : grad.unsqueeze(0)).contiguous(), g);  // (C kh kw, N L)
        Tensor gx, gw, gb;
        if (needs[0]) {  // the forward convolution of the gradient: W cols
          const Tensor wmat = w.contiguous().view({g.O, g.K()});
          Tensor y = kindling::detail::empty_contiguous({g.O, rows}, grad.dtype(), grad.device());
          kindling::detail::gemm(y, wmat, cols, 1, false);
          gx = y.view({g.O, g.N, g.OH, g.OW}).permute({1, 0, 2, 3}).contiguous();
          if (!batched) gx = gx.squeeze(0);
        }
        if (needs[1]) {  // x cols^T
          const Tensor xm = x_saved.reshape({g.N, g.O, g.L()}).permute({1, 0, 2}).contiguous().view({g.O, rows});
          gw = kindling::detail::empty_contiguous({g.O, g.K()}, grad.dtype(), grad.device());
          kindling::detail::gemm(gw, xm, cols.t(), 1, false);
          gw = gw.view(w.sizes());
        }
        if (needs.size() > 2 && needs[2]) gb = batched ? grad.sum({0, 2, 3}) : grad.sum({1, 2});
        return {gx, gw, gb};
      });
  return out;
}

}  // namespace kindling::nn::functional
