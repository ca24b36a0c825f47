// Convolution as im2col + GEMM: every output pixel's receptive field becomes a
// column of a matrix, so the layer is a matrix product per group.
//
// On the CPU, image by image: image n's columns are (C * kh * kw, OH * OW), row r =
// (c, ki, kj), in a buffer each thread keeps; the weight (O, C * kh * kw) times them is
// image n's (O, OH * OW) output, already in the (N, O, OH, OW) layout, and the backward
// recomputes the columns instead of keeping them. An image's columns stay in the cache
// between im2col and the product, the output needs no reordering, and the threads share
// the batch's images. On a device, one product over the whole batch: the columns of all
// images side by side, (C * kh * kw, N * OH * OW), and the output reordered after it.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include <kindling/conv.hpp>
#include <kindling/device_hooks.hpp>
#include <kindling/factory.hpp>
#include <kindling/grad_mode.hpp>

#include "internal.hpp"
#include "nn_internal.hpp"
#include "packed_gemm.hpp"

namespace kindling::nn::functional {
namespace {

struct ConvGeometry {
  std::int64_t N, C, H, W, O, kh, kw, sh, sw, ph, pw, dh, dw, OH, OW, G;
  std::int64_t L() const { return OH * OW; }
  std::int64_t K() const { return C / G * kh * kw; }  // rows of cols per group
};

// One window position (ki, kj) of the kernel, as the rows of its columns see it: output position
// (oh, ow) reads input row oh * sh + down and column ow * sw + shift; the output columns [lo, hi)
// are those whose input column lies inside [0, W).
struct Tap {
  std::int64_t down, shift, lo, hi;
};
Tap tap_of(const ConvGeometry& g, std::int64_t ki, std::int64_t kj) {
  const std::int64_t shift = kj * g.dw - g.pw;
  auto ceil_div = [](std::int64_t a, std::int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); };
  const std::int64_t lo = std::clamp<std::int64_t>(ceil_div(-shift, g.sw), 0, g.OW);
  const std::int64_t hi = std::clamp<std::int64_t>(ceil_div(g.W - shift, g.sw), lo, g.OW);
  return {ki * g.dh - g.ph, shift, lo, hi};
}
// The kernel's kh * kw taps, row (ki, kj) at ki * kw + kj: worked out once per call, not per row.
std::vector<Tap> taps_of(const ConvGeometry& g) {
  std::vector<Tap> taps;
  taps.reserve(static_cast<std::size_t>(g.kh * g.kw));
  for (std::int64_t ki = 0; ki < g.kh; ++ki)
    for (std::int64_t kj = 0; kj < g.kw; ++kj) taps.push_back(tap_of(g, ki, kj));
  return taps;
}

// Whether output position oh * W + ow reads input position oh * W + ow + down * W + shift: stride 1
// and output rows as wide as the input's (a 'same' padding). Then a tap's valid rows are one run of
// memory, from row oh_lo's column lo to row oh_hi - 1's column hi, and so is what they read; the
// positions in between that belong to padding (a row's last W - hi and the next row's first lo)
// are a run of W - hi + lo after each valid row but the last.
bool rows_are_runs(const ConvGeometry& g) { return g.sh == 1 && g.sw == 1 && g.OW == g.W; }
struct Rows {
  std::int64_t lo, hi;  // the output rows [lo, hi) whose input row lies inside [0, H)
};
Rows valid_rows(const ConvGeometry& g, const Tap& t) {
  const std::int64_t lo = std::clamp<std::int64_t>(-t.down, 0, g.OH);
  return {lo, std::clamp<std::int64_t>(g.H - t.down, lo, g.OH)};
}

// Zeroes `len` values at p, p + stride, ... (`count` runs): the padding between valid rows. With a
// length known when compiling, the stores are written in place (std::fill is a call to memset for
// each run of one or two values).
template <int Len, class T>
void zero_runs(T* p, std::int64_t stride, std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i)
    for (int b = 0; b < Len; ++b) p[i * stride + b] = T(0);
}
template <class T>
void zero_runs(T* p, std::int64_t stride, std::int64_t count, std::int64_t len) {
  switch (len) {
    case 0:
      return;
    case 1:
      return zero_runs<1>(p, stride, count);
    case 2:
      return zero_runs<2>(p, stride, count);
    case 3:
      return zero_runs<3>(p, stride, count);
    case 4:
      return zero_runs<4>(p, stride, count);
    default:
      for (std::int64_t i = 0; i < count; ++i) std::fill(p + i * stride, p + i * stride + len, T(0));
  }
}

// dst[i] += src[i]: a run of col2im, as one loop the compiler vectorises.
template <class T>
[[gnu::noinline]] void add_run(T* __restrict dst, const T* __restrict src, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dst[i] += src[i];
}

// One row of im2col for one image: tap t of the H x W plane `plane`, the OH x OW values
// plane[oh * sh + down][ow * sw + shift], 0 where that falls outside the plane.
template <class T>
void im2col_row(const T* plane, T* out, const ConvGeometry& g, const Tap& t) {
  if (rows_are_runs(g)) {
    const std::int64_t W = g.W;
    const auto [oh_lo, oh_hi] = valid_rows(g, t);
    if (t.lo >= t.hi || oh_lo == oh_hi) {  // every value is padding
      std::fill(out, out + g.OH * W, T(0));
      return;
    }
    if (oh_lo > 0) std::fill(out, out + oh_lo * W, T(0));
    if (oh_hi < g.OH) std::fill(out + oh_hi * W, out + g.OH * W, T(0));
    const std::int64_t first = oh_lo * W + t.lo, last = (oh_hi - 1) * W + t.hi;  // [first, last) of out
    const T* src = plane + first + t.down * W + t.shift;  // inside the plane: lo + shift >= 0, hi + shift <= W
    std::copy(src, src + (last - first), out + first);
    zero_runs(out + oh_lo * W, W, 1, t.lo);
    zero_runs(out + oh_lo * W + t.hi, W, oh_hi - 1 - oh_lo, W - t.hi + t.lo);
    zero_runs(out + (oh_hi - 1) * W + t.hi, W, 1, W - t.hi);
    return;
  }
  for (std::int64_t oh = 0; oh < g.OH; ++oh) {
    const std::int64_t ih = oh * g.sh + t.down;
    T* o = out + oh * g.OW;
    if (ih < 0 || ih >= g.H) {
      std::fill(o, o + g.OW, T(0));
      continue;
    }
    const T* row = plane + ih * g.W + t.shift;  // row[ow * sw] is input column ow * sw + shift
    zero_runs(o, 0, 1, t.lo);
    if (g.sw == 1)
      std::copy(row + t.lo, row + t.hi, o + t.lo);
    else
      for (std::int64_t ow = t.lo; ow < t.hi; ++ow) o[ow] = row[ow * g.sw];
    zero_runs(o + t.hi, 0, 1, g.OW - t.hi);
  }
}

// The adjoint of im2col_row: adds the OH x OW values at `in` into the pixels of `plane` they came
// from, a row at a time.
template <class T>
void col2im_row(const T* in, T* plane, const ConvGeometry& g, const Tap& t) {
  for (std::int64_t oh = 0; oh < g.OH; ++oh) {
    const std::int64_t ih = oh * g.sh + t.down;
    if (ih < 0 || ih >= g.H) continue;
    T* row = plane + ih * g.W + t.shift;
    const T* src = in + oh * g.OW;
    if (g.sw == 1)
      add_run(row + t.lo, src + t.lo, t.hi - t.lo);
    else
      for (std::int64_t ow = t.lo; ow < t.hi; ++ow) row[ow * g.sw] += src[ow];
  }
}
// col2im_row for values in a buffer of the caller's, which it may change: when rows are runs, the
// padding entries between valid rows are zeroed first and the valid rows added as one run.
template <class T>
void col2im_row_in_place(T* in, T* plane, const ConvGeometry& g, const Tap& t) {
  if (!rows_are_runs(g)) return col2im_row<T>(in, plane, g, t);
  const std::int64_t W = g.W;
  const auto [oh_lo, oh_hi] = valid_rows(g, t);
  if (t.lo >= t.hi || oh_lo == oh_hi) return;  // every entry came from padding
  zero_runs(in + oh_lo * W + t.hi, W, oh_hi - 1 - oh_lo, W - t.hi + t.lo);
  const std::int64_t first = oh_lo * W + t.lo, last = (oh_hi - 1) * W + t.hi;
  // Adding a zero changes no pixel (a pixel's sum starts at +0 and never becomes -0).
  add_run(plane + first + t.down * W + t.shift, in + first, last - first);
}

// The columns of the whole batch, (C kh kw, N OH OW): conv_transpose2d's backward.
template <class T>
void im2col(const T* x, T* cols, const ConvGeometry& g) {
  const std::int64_t L = g.L(), NL = g.N * L, rows = g.C * g.kh * g.kw;
  const std::vector<Tap> taps = taps_of(g);
  const int threads = kindling::detail::parallel_threads("conv2d.im2col", rows * NL, rows);
  KINDLING_OMP_FOR(threads, rows)
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t c = r / (g.kh * g.kw);
    const Tap& t = taps[static_cast<std::size_t>(r % (g.kh * g.kw))];
    for (std::int64_t n = 0; n < g.N; ++n) im2col_row(x + (n * g.C + c) * g.H * g.W, cols + r * NL + n * L, g, t);
  }
}

// The adjoint of im2col: adds each column entry back into the pixel it came from. `dx` need not
// be zeroed: each plane is zeroed by the thread that fills it, while it is in that thread's cache.
template <class T>
void col2im(const T* cols, T* dx, const ConvGeometry& g) {
  const std::int64_t L = g.L(), NL = g.N * L, taps_per_channel = g.kh * g.kw;
  const std::vector<Tap> taps = taps_of(g);
  const int threads = kindling::detail::parallel_threads("conv2d.col2im", g.C * g.kh * g.kw * NL, g.N * g.C);
  KINDLING_OMP_FOR(threads, g.N * g.C)
  for (std::int64_t nc = 0; nc < g.N * g.C; ++nc) {  // one image plane per iteration: no races
    const std::int64_t n = nc / g.C, c = nc % g.C;
    T* plane = dx + nc * g.H * g.W;
    std::fill(plane, plane + g.H * g.W, T(0));
    for (std::int64_t k = 0; k < taps_per_channel; ++k)
      col2im_row(cols + (c * taps_per_channel + k) * NL + n * L, plane, g, taps[static_cast<std::size_t>(k)]);
  }
}

// One image's columns, (C kh kw, OH OW) with row r at cols + r * ld.
template <class T>
void im2col_image(const T* image, T* cols, std::int64_t ld, const ConvGeometry& g, const std::vector<Tap>& taps) {
  const std::int64_t per_channel = g.kh * g.kw;
  for (std::int64_t c = 0; c < g.C; ++c)
    for (std::int64_t k = 0; k < per_channel; ++k)
      im2col_row(image + c * g.H * g.W, cols + (c * per_channel + k) * ld, g, taps[static_cast<std::size_t>(k)]);
}

// One image's (C, H, W) gradient from its columns' gradient (row r at cols + r * ld; the columns
// are the caller's buffer, and their padding entries are overwritten).
template <class T>
void col2im_image(T* cols, std::int64_t ld, T* image, const ConvGeometry& g, const std::vector<Tap>& taps) {
  const std::int64_t per_channel = g.kh * g.kw;
  std::fill(image, image + g.C * g.H * g.W, T(0));
  for (std::int64_t c = 0; c < g.C; ++c)
    for (std::int64_t k = 0; k < per_channel; ++k)
      col2im_row_in_place(cols + (c * per_channel + k) * ld, image + c * g.H * g.W, g,
                          taps[static_cast<std::size_t>(k)]);
}

// ---- 'same'-width convolutions: columns that share their rows ------------------------------------
// When rows are runs (stride 1, OW == W), tap (ki, kj)'s row of the columns is tap (0, kj)'s row of
// a taller band read ki * dh rows down: band (c, kj) holds the R = H + 2 ph rows of channel c
// (row r is input row r - ph) shifted by kj * dw - pw columns, 0 outside the plane, and rows
// [ki * dh, ki * dh + OH) of it are the columns' row (c, ki, kj). An image then needs C * kw bands
// of R * W values (3 times the image for a 3 x 3 kernel) instead of C * kh * kw rows of OH * W (9
// times), and each product splits into kh, one per kernel row ki, over the bands read ki * dh rows
// down: B_ki, rows (c, kj), leading dimension R * W. The weight is reordered to match: (kh, O,
// C / G * kw), row ki holding w[:, :, ki, :]. Taken when each of those products is at least
// kMinBandDepth deep (a one-channel input's three bands would make products 3 deep).
constexpr std::int64_t kMinBandDepth = 16;
struct Bands {
  ConvGeometry g;          // the bands' own geometry: one kernel row, OH = R
  std::vector<Tap> taps;   // band kj's tap
  std::int64_t size = 0;   // values per band: R * W
  std::int64_t depth = 0;  // rows of B_ki per group: C / G * kw
};
// The bands of a geometry whose rows are runs.
Bands make_bands(const ConvGeometry& g) {
  Bands b;
  b.g = g;
  b.g.kh = 1;
  b.g.OH = g.H + 2 * g.ph;  // tap (kh - 1, kj) reads band rows up to (kh - 1) dh + OH = H + 2 ph
  b.taps = taps_of(b.g);
  b.size = b.g.OH * g.W;
  b.depth = g.C / g.G * g.kw;
  return b;
}
std::optional<Bands> bands_of(const ConvGeometry& g) {
  if (!rows_are_runs(g) || g.kh < 2 || g.C / g.G * g.kw < kMinBandDepth) return std::nullopt;
  return make_bands(g);
}
// One image's C * kw bands, band (c, kj) at out + (c * kw + kj) * size.
template <class T>
void bands_of_image(const T* image, T* out, const ConvGeometry& g, const Bands& b) {
  for (std::int64_t c = 0; c < g.C; ++c)
    for (std::int64_t kj = 0; kj < g.kw; ++kj)
      im2col_row(image + c * g.H * g.W, out + (c * g.kw + kj) * b.size, b.g, b.taps[static_cast<std::size_t>(kj)]);
}
// The adjoint: one image's (C, H, W) gradient from its bands' gradient (the caller's buffer, whose
// padding entries are overwritten).
template <class T>
void image_of_bands(T* in, T* image, const ConvGeometry& g, const Bands& b) {
  std::fill(image, image + g.C * g.H * g.W, T(0));
  for (std::int64_t c = 0; c < g.C; ++c)
    for (std::int64_t kj = 0; kj < g.kw; ++kj)
      col2im_row_in_place(in + (c * g.kw + kj) * b.size, image + c * g.H * g.W, b.g,
                          b.taps[static_cast<std::size_t>(kj)]);
}
// The (O, C / G, kh, kw) weight in the band order (kh, O, C / G * kw), and back: `to_bands` says
// which way. Value (o, cg, ki, kj) is at ((o * C / G + cg) * kh + ki) * kw + kj in the first and
// at ((ki * O + o) * C / G + cg) * kw + kj in the second.
template <class T>
void reorder_by_kernel_row(const T* from, T* to, const ConvGeometry& g, bool to_bands) {
  const std::int64_t cgs = g.C / g.G;
  for (std::int64_t o = 0; o < g.O; ++o)
    for (std::int64_t cg = 0; cg < cgs; ++cg)
      for (std::int64_t ki = 0; ki < g.kh; ++ki) {
        const std::int64_t plain = ((o * cgs + cg) * g.kh + ki) * g.kw, band = ((ki * g.O + o) * cgs + cg) * g.kw;
        if (to_bands)
          std::copy(from + plain, from + plain + g.kw, to + band);
        else
          std::copy(from + band, from + band + g.kw, to + plain);
      }
}
template <class T>
std::vector<T> weight_by_kernel_row(const T* w, const ConvGeometry& g) {
  std::vector<T> out(static_cast<std::size_t>(g.O * g.K()));
  reorder_by_kernel_row(w, out.data(), g, true);
  return out;
}

// ---- shallow convolutions: sums too short for a matrix product ----------------------------------
// When each output value sums fewer than kMinBandDepth products (a one-channel input under a 3 x 3
// kernel: 9), a matrix product spends its time packing its operands and loading and storing its
// output, not multiplying. With rows as runs, such a convolution is computed from the bands
// directly: out[o][p] += sum over k of w[o][k] * band_k[p], where k = (cg, ki, kj) runs along the
// weight's row and band_k is band (cg, kj) read ki * dh rows down; the weight gradient is the dot
// products sum over p of gy[o][p] * band_k[p]. Both are written with vectors of positions (GCC's
// vector extensions: AVX-512, AVX2 or SSE registers, whichever the build targets), a few outputs
// at a time, so that each loaded position feeds several multiply-adds.
std::optional<Bands> shallow_of(const ConvGeometry& g) {
  if (!rows_are_runs(g) || g.K() >= kMinBandDepth) return std::nullopt;
  return make_bands(g);
}
// Where band_k starts, for each k of each group (relative to the image's first band): group grp's
// at [grp].
std::vector<std::vector<std::int64_t>> shallow_offsets(const ConvGeometry& g, const Bands& b) {
  const std::int64_t cgs = g.C / g.G;
  std::vector<std::vector<std::int64_t>> offsets(static_cast<std::size_t>(g.G));
  for (std::int64_t grp = 0; grp < g.G; ++grp) {
    std::vector<std::int64_t>& off = offsets[static_cast<std::size_t>(grp)];
    off.reserve(static_cast<std::size_t>(g.K()));
    for (std::int64_t cg = 0; cg < cgs; ++cg)
      for (std::int64_t ki = 0; ki < g.kh; ++ki)
        for (std::int64_t kj = 0; kj < g.kw; ++kj)
          off.push_back(((grp * cgs + cg) * g.kw + kj) * b.size + ki * g.dh * g.W);
  }
  return offsets;
}

#if defined(__AVX512F__)
constexpr int kVectorBytes = 64;
#elif defined(__AVX__)
constexpr int kVectorBytes = 32;
#else
constexpr int kVectorBytes = 16;
#endif
template <class T>
struct VectorOf {
  typedef T type [[gnu::vector_size(kVectorBytes)]];
};
template <class T>
using Vector = typename VectorOf<T>::type;
template <class T>
constexpr std::int64_t kLanes = kVectorBytes / static_cast<std::int64_t>(sizeof(T));
template <class T>
Vector<T> load(const T* p) {
  Vector<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void store(T* p, const Vector<T>& v) {
  std::memcpy(p, &v, sizeof v);
}

// Outputs [0, OB) at positions [p, p + V vectors): out (rows of ld `ld`) = bias (bias[o] for output
// o; zeros when null) + w (rows of ld K) times the bands (band_k at bands + off[k]). The outputs are
// written once, not filled with the bias first: a fill pass over a batch's output (3.2 MB for the
// first convolution of the CNN) cost as much as the sums.
template <class T, int OB, int V>
void shallow_block(T* out, std::int64_t ld, const T* bias, const T* w, std::int64_t K, const T* bands,
                   const std::int64_t* off, std::int64_t p) {
  constexpr std::int64_t n = kLanes<T>;
  Vector<T> acc[OB][V];
  for (int o = 0; o < OB; ++o)
    for (int v = 0; v < V; ++v) acc[o][v] = Vector<T>{} + (bias ? bias[o] : T(0));
  for (std::int64_t k = 0; k < K; ++k) {
    const T* src = bands + off[k] + p;
    Vector<T> x[V];
    for (int v = 0; v < V; ++v) x[v] = load(src + v * n);
    for (int o = 0; o < OB; ++o) {
      const T wk = w[o * K + k];
      for (int v = 0; v < V; ++v) acc[o][v] += wk * x[v];
    }
  }
  for (int o = 0; o < OB; ++o)
    for (int v = 0; v < V; ++v) store(out + o * ld + p + v * n, acc[o][v]);
}
// The last `count` (< one vector) positions from p of `rows` rows of ld `ld` (band rows at
// base + off[r]), copied into vectors padded with zeros, row r at pad + r * lanes.
template <class T>
void pad_tail(T* pad, const T* base, const std::int64_t* off, std::int64_t ld, std::int64_t rows, std::int64_t p,
              std::int64_t count) {
  constexpr std::int64_t n = kLanes<T>;
  std::fill(pad, pad + rows * n, T(0));
  for (std::int64_t r = 0; r < rows; ++r) std::copy_n(base + (off ? off[r] : r * ld) + p, count, pad + r * n);
}
// Outputs [0, OB) over all L positions: two vectors at a time, then one, then the last positions
// in vectors padded with zeros.
template <class T, int OB>
void shallow_rows(T* out, std::int64_t L, const T* bias, const T* w, std::int64_t K, const T* bands,
                  const std::int64_t* off) {
  constexpr std::int64_t n = kLanes<T>;
  std::int64_t p = 0;
  for (; p + 2 * n <= L; p += 2 * n) shallow_block<T, OB, 2>(out, L, bias, w, K, bands, off, p);
  for (; p + n <= L; p += n) shallow_block<T, OB, 1>(out, L, bias, w, K, bands, off, p);
  if (p == L) return;
  const std::int64_t count = L - p;
  T src[kMinBandDepth * n], dst[OB * n];
  std::int64_t rows[kMinBandDepth] = {};
  for (std::int64_t k = 0; k < K; ++k) rows[k] = k * n;
  pad_tail(src, bands, off, 0, K, p, count);
  shallow_block<T, OB, 1>(dst, n, bias, w, K, src, rows, 0);
  for (int o = 0; o < OB; ++o) std::copy_n(dst + o * n, count, out + o * L + p);
}
// One group of one image: out (og rows of L) = bias (og values, or null) + w (og rows of K) times
// the bands.
template <class T>
void shallow_forward(T* out, std::int64_t L, const T* bias, const T* w, std::int64_t K, std::int64_t og, const T* bands,
                     const std::int64_t* off) {
  constexpr int kOutputs = 8;  // 8 outputs x 2 vectors: 16 accumulators
  std::int64_t o = 0;
  const auto at = [&](std::int64_t i) { return bias ? bias + i : nullptr; };
  for (; o + kOutputs <= og; o += kOutputs) shallow_rows<T, kOutputs>(out + o * L, L, at(o), w + o * K, K, bands, off);
  for (; o < og; ++o) shallow_rows<T, 1>(out + o * L, L, at(o), w + o * K, K, bands, off);
}

// The sum of a vector's lanes, pairwise (an order fixed by the build's vector width).
template <class T>
T lane_sum(const Vector<T>& v) {
  T lanes[kLanes<T>];
  std::memcpy(lanes, &v, sizeof v);
  for (std::int64_t width = kLanes<T> / 2; width >= 1; width /= 2)
    for (std::int64_t i = 0; i < width; ++i) lanes[i] += lanes[i + width];
  return lanes[0];
}
// Outputs [0, OB) and taps [0, KB): sum (ld K) (+)= the dot products of gy's rows (ld L) with the
// bands, in vectors of positions (the last positions in vectors padded with zeros). Each dot product
// stays a vector of partial sums, added up over the images of a piece of the batch; its lanes are
// added once, at the end of the backward.
template <class T, int OB, int KB>
void shallow_dots(Vector<T>* sum, std::int64_t K, const T* gy, std::int64_t L, const T* bands, const std::int64_t* off,
                  bool accumulate) {
  constexpr std::int64_t n = kLanes<T>;
  Vector<T> acc[OB][KB] = {};
  const auto step = [&](const T* g_rows, std::int64_t g_ld, const T* b_base, const std::int64_t* b_off,
                        std::int64_t p) {
    Vector<T> g[OB];
    for (int o = 0; o < OB; ++o) g[o] = load(g_rows + o * g_ld + p);
    for (int k = 0; k < KB; ++k) {
      const Vector<T> x = load(b_base + b_off[k] + p);
      for (int o = 0; o < OB; ++o) acc[o][k] += g[o] * x;
    }
  };
  std::int64_t p = 0;
  for (; p + n <= L; p += n) step(gy, L, bands, off, p);
  if (p < L) {
    T g_pad[OB * n], b_pad[KB * n];
    std::int64_t rows[KB];
    for (int k = 0; k < KB; ++k) rows[k] = k * n;
    pad_tail(g_pad, gy, nullptr, L, OB, p, L - p);
    pad_tail(b_pad, bands, off, 0, KB, p, L - p);
    step(g_pad, n, b_pad, rows, 0);
  }
  for (int o = 0; o < OB; ++o)
    for (int k = 0; k < KB; ++k) sum[o * K + k] = accumulate ? sum[o * K + k] + acc[o][k] : acc[o][k];
}
template <class T, int OB>
void shallow_dots(Vector<T>* sum, std::int64_t K, const T* gy, std::int64_t L, const T* bands, const std::int64_t* off,
                  bool accumulate) {
  // Taps 8 at a time (2 outputs x 8 taps: 16 accumulators), the rest in one block of 1 to 7.
  std::int64_t k = 0;
  for (; k + 8 <= K; k += 8) shallow_dots<T, OB, 8>(sum + k, K, gy, L, bands, off + k, accumulate);
  switch (K - k) {
#define KINDLING_SHALLOW_TAIL(KB) \
  case KB:                        \
    return shallow_dots<T, OB, KB>(sum + k, K, gy, L, bands, off + k, accumulate);
    KINDLING_SHALLOW_TAIL(1)
    KINDLING_SHALLOW_TAIL(2)
    KINDLING_SHALLOW_TAIL(3)
    KINDLING_SHALLOW_TAIL(4)
    KINDLING_SHALLOW_TAIL(5)
    KINDLING_SHALLOW_TAIL(6)
    KINDLING_SHALLOW_TAIL(7)
#undef KINDLING_SHALLOW_TAIL
    default:
      return;
  }
}
// One group of one image's weight gradient: sum (og rows of K, vectors of partial sums) (+)= gy
// (og rows of L) times the bands.
template <class T>
void shallow_weight_grad(Vector<T>* sum, std::int64_t K, const T* gy, std::int64_t L, std::int64_t og, const T* bands,
                         const std::int64_t* off, bool accumulate) {
  std::int64_t o = 0;
  for (; o + 2 <= og; o += 2) shallow_dots<T, 2>(sum + o * K, K, gy + o * L, L, bands, off, accumulate);
  for (; o < og; ++o) shallow_dots<T, 1>(sum + o * K, K, gy + o * L, L, bands, off, accumulate);
}

// A buffer of `n` values for one image's columns: one of two that each thread keeps and grows
// (`which`), so that no product after the first faults pages in (see linalg.cpp's Packing), or,
// above kKeptScratch bytes, a buffer of its own, freed with this object.
constexpr std::size_t kKeptScratch = std::size_t{4} << 20;
template <class T>
class Scratch {
 public:
  Scratch(int which, std::size_t n) {
    if (n * sizeof(T) > kKeptScratch) {
      own_.resize(n);
      data_ = own_.data();
      return;
    }
    thread_local std::vector<T> kept[2];
    if (kept[which].size() < n) kept[which].resize(n);
    data_ = kept[which].data();
  }
  T* data() const { return data_; }

 private:
  std::vector<T> own_;
  T* data_ = nullptr;
};

// The first exception thrown by a parallel loop's body (a buffer that cannot be allocated),
// rethrown after the loop: one that left the body inside an OpenMP region would end the program.
class LoopError {
 public:
  template <class F>
  void run(F&& f) noexcept {
    try {
      f();
    } catch (...) {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
  }
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr error_;
};

// Whether the band products of a call (kh per group and image: out (n x m) = a (n x k) @ b (k x m))
// take the packed path: operands packed once and kept (the weight for the whole batch, an image's
// output gradient for its kh products) instead of packed afresh for every product. Only for products
// packed_fits admits, and only where each product would run on one thread anyway: the images share
// more than one thread (inside their region a product is not cut), or they run on every thread
// there is, or a product is too small to be cut (gemm_raw's rule).
template <class T>
bool band_products_packed(int threads, std::int64_t n, std::int64_t m, std::int64_t k) {
  return kindling::detail::packed_fits<T>(n, m, k) &&
         (threads > 1 || threads >= kindling::detail::max_threads() || n * m * k < 2 * kindling::detail::kMatmulGrain);
}

template <class T>
using Packed = kindling::detail::PackedOperand<T>;
using Side = kindling::detail::PackedSide;

// Kernel row ki of group grp of the weight in the band order (wk, from weight_by_kernel_row): the
// (O / G x depth) matrix W_ki, or, `transposed`, W_ki^T, the same memory read column-major.
template <class T>
kindling::detail::MatrixRef<T> weight_row(const std::vector<T>& wk, const ConvGeometry& g, std::int64_t depth,
                                          std::int64_t grp, std::int64_t ki, bool transposed) {
  return {wk.data() + (ki * g.O + grp * (g.O / g.G)) * depth, depth, !transposed};
}

// Every group's kernel rows (weight_row), packed as left operands, row ki of group grp at grp * kh + ki.
template <class T>
std::vector<Packed<T>> packed_weight_rows(const std::vector<T>& wk, const ConvGeometry& g, std::int64_t depth,
                                          bool transposed) {
  const std::int64_t og = g.O / g.G;
  std::vector<Packed<T>> rows;
  rows.reserve(static_cast<std::size_t>(g.G * g.kh));
  for (std::int64_t grp = 0; grp < g.G; ++grp)
    for (std::int64_t ki = 0; ki < g.kh; ++ki)
      rows.emplace_back(Side::left, weight_row(wk, g, depth, grp, ki, transposed), transposed ? depth : og,
                        transposed ? og : depth);
  return rows;
}

// The forward product image by image: out (N, O, L) = W cols(x_n) + bias, the images shared by the
// threads (each product then on its thread alone; with one image, cut by gemm_raw). Each image's
// output starts at the bias (or 0) and the products add into it.
template <class T>
void conv_forward_images(const T* x, const T* w, const T* bias, T* out, const ConvGeometry& g) {
  const std::int64_t L = g.L(), K = g.K(), og = g.O / g.G, rows = g.C * g.kh * g.kw, image = g.C * g.H * g.W;
  const std::vector<Tap> taps = taps_of(g);
  const std::optional<Bands> bands = bands_of(g), shallow = shallow_of(g);
  const std::vector<T> wk = bands ? weight_by_kernel_row(w, g) : std::vector<T>();
  const std::vector<std::vector<std::int64_t>> offsets =
      shallow ? shallow_offsets(g, *shallow) : std::vector<std::vector<std::int64_t>>();
  const int threads =
      kindling::detail::parallel_threads("conv2d", g.N * g.O * K * L, g.N, kindling::detail::kMatmulGrain);
  // The weight's kernel rows, packed once for every image (when the products take the packed path).
  const std::vector<Packed<T>> w_rows = bands && band_products_packed<T>(threads, og, L, bands->depth)
                                            ? packed_weight_rows(wk, g, bands->depth, false)
                                            : std::vector<Packed<T>>();
  LoopError error;
  KINDLING_OMP_FOR(threads, g.N)
  for (std::int64_t n = 0; n < g.N; ++n)
    error.run([&] {
      T* o = out + n * g.O * L;
      if (shallow) {  // writes every output once, starting from the bias
        const Scratch<T> b(0, static_cast<std::size_t>(g.C * g.kw * shallow->size));
        bands_of_image(x + n * image, b.data(), g, *shallow);
        for (std::int64_t grp = 0; grp < g.G; ++grp)
          shallow_forward<T>(o + grp * og * L, L, bias ? bias + grp * og : nullptr, w + grp * og * K, K, og, b.data(),
                             offsets[static_cast<std::size_t>(grp)].data());
        return;
      }
      for (std::int64_t oc = 0; oc < g.O; ++oc) std::fill(o + oc * L, o + (oc + 1) * L, bias ? bias[oc] : T(0));
      if (bands) {
        const std::int64_t depth = bands->depth, size = bands->size;
        const Scratch<T> b(0, static_cast<std::size_t>(g.C * g.kw * size));
        bands_of_image(x + n * image, b.data(), g, *bands);
        for (std::int64_t grp = 0; grp < g.G; ++grp)
          for (std::int64_t ki = 0; ki < g.kh; ++ki) {
            const kindling::detail::MatrixRef<T> band{b.data() + grp * depth * size + ki * g.dh * g.W, size, true};
            if (w_rows.empty())
              kindling::detail::gemm_raw<T>(o + grp * og * L, L, weight_row(wk, g, depth, grp, ki, false), band, og, L,
                                            depth, true);
            else
              kindling::detail::gemm_packed<T>(o + grp * og * L, L, w_rows[static_cast<std::size_t>(grp * g.kh + ki)],
                                               Packed<T>(Side::right, band, L, depth, 0), true);
          }
        return;
      }
      const Scratch<T> cols(0, static_cast<std::size_t>(rows * L));
      im2col_image(x + n * image, cols.data(), L, g, taps);
      for (std::int64_t grp = 0; grp < g.G; ++grp)
        kindling::detail::gemm_raw<T>(o + grp * og * L, L, {w + grp * og * K, K, true},
                                      {cols.data() + grp * K * L, L, true}, og, L, K, true);
    });
  error.rethrow();
}

// The sum of n values in double, in 32 lanes (value i into lane i % 32, the lanes added pairwise
// at the end): an order fixed by n, and one the compiler can vectorise, as one running sum is not.
// 32 lanes are 4 AVX-512 registers of doubles: 4 independent adds a step, where 8 lanes (one
// register) waited for each add to finish before the next.
constexpr int kSumLanes = 32;
template <class T>
double row_sum(const T* v, std::int64_t n) {
  double lane[kSumLanes] = {};
  std::int64_t i = 0;
  for (; i + kSumLanes <= n; i += kSumLanes)
    for (int j = 0; j < kSumLanes; ++j) lane[j] += static_cast<double>(v[i + j]);
  for (int j = 0; i < n; ++i, ++j) lane[j] += static_cast<double>(v[i]);
  for (int width = kSumLanes / 2; width > 0; width /= 2)
    for (int j = 0; j < width; ++j) lane[j] += lane[j + width];
  return lane[0];
}

// How many pieces the backward cuts the batch into: the weight and bias gradients are summed
// over each piece's images into a buffer of the piece's, and the pieces' sums added in order,
// so the pieces follow the shape alone and the bits are the same for any thread count. At most
// one per image and kConvPieces in all, and no more than kConvPartials partial sums in all (a
// weight gradient value counts `per_value`: the direct form keeps a vector of them).
constexpr std::int64_t kConvPieces = 64, kConvPartials = std::int64_t{1} << 22;
std::int64_t backward_pieces(const ConvGeometry& g, std::int64_t per_value) {
  const std::int64_t by_memory =
      std::max<std::int64_t>(1, kConvPartials / std::max<std::int64_t>(1, g.O * g.K() * per_value));
  return std::max<std::int64_t>(1, std::min({g.N, kConvPieces, by_memory}));
}

// The backward image by image, from the (N, O, L) gradient gy: gx (N, C, H, W) = col2im(W^T gy_n),
// gw (O, K) = sum over n of gy_n cols(x_n)^T, gb (O) = sum over n and L of gy_n; each pointer
// null when that gradient is not needed. With bands, the same per kernel row: gw's row ki
// (in the band order) sums gy_n B_ki^T, and the bands' gradient sums W_ki^T gy_n read ki * dh
// rows down.
template <class T>
void conv_backward_images(const T* x, const T* w, const T* gy, T* gx, T* gw, T* gb, const ConvGeometry& g) {
  const std::int64_t L = g.L(), K = g.K(), og = g.O / g.G, rows = g.C * g.kh * g.kw, image = g.C * g.H * g.W;
  const std::vector<Tap> taps = taps_of(g);
  // The pieces follow the shape alone, whether or not the weight's gradient is wanted.
  const std::optional<Bands> bands = bands_of(g), direct = shallow_of(g), shallow = gw ? direct : std::nullopt;
  const std::int64_t pieces = backward_pieces(g, direct ? kLanes<T> : 1), OK = g.O * K;
  const std::vector<T> wk = bands && gx ? weight_by_kernel_row(w, g) : std::vector<T>();
  const std::vector<std::vector<std::int64_t>> offsets =
      shallow ? shallow_offsets(g, *shallow) : std::vector<std::vector<std::int64_t>>();
  // One buffer of partial sums per piece, allocated once, before the region (the direct form's are
  // vectors, below: then this holds their result alone).
  std::vector<T> weight_sums(gw ? static_cast<std::size_t>(shallow ? OK : pieces * OK) : 0);
  std::vector<double> bias_sums(gb ? static_cast<std::size_t>(pieces * g.O) : 0, 0.0);
  // shallow_dots' sums, one vector per weight value and piece (each piece's first image writes its own)
  const std::unique_ptr<Vector<T>[]> lane_sums(shallow ? new Vector<T>[static_cast<std::size_t>(pieces * OK)]
                                                       : nullptr);
  const std::int64_t products = (gw ? 1 : 0) + (gx ? 1 : 0);
  const int threads = kindling::detail::parallel_threads("conv2d.backward", products * g.N * g.O * K * L, pieces,
                                                         kindling::detail::kMatmulGrain);
  // The packed path (band_products_packed): an image's output gradient packed once for its kh
  // products of each kind, the weight's kernel rows (read as W_ki^T) once for the whole batch.
  const bool packed_w = gw && bands && !shallow && band_products_packed<T>(threads, og, bands->depth, L);
  const bool packed_x = gx && bands && band_products_packed<T>(threads, bands->depth, L, og);
  const std::vector<Packed<T>> wt_rows =
      packed_x ? packed_weight_rows(wk, g, bands->depth, true) : std::vector<Packed<T>>();
  LoopError error;
  KINDLING_OMP_FOR(threads, pieces)
  for (std::int64_t piece = 0; piece < pieces; ++piece)
    error.run([&] {
      const std::int64_t first = g.N * piece / pieces, last = g.N * (piece + 1) / pieces;
      for (std::int64_t n = first; n < last; ++n) {
        const T* gyn = gy + n * g.O * L;
        if (gw && shallow) {  // dW_g += the dot products of dY_g's rows with the bands
          const Scratch<T> b(0, static_cast<std::size_t>(g.C * g.kw * shallow->size));
          bands_of_image(x + n * image, b.data(), g, *shallow);
          Vector<T>* sum = lane_sums.get() + piece * OK;
          for (std::int64_t grp = 0; grp < g.G; ++grp)
            shallow_weight_grad<T>(sum + grp * og * K, K, gyn + grp * og * L, L, og, b.data(),
                                   offsets[static_cast<std::size_t>(grp)].data(), n != first);
        } else if (gw && bands) {  // row ki of dW_g (band order) += dY_g B_ki^T (B_ki^T: the bands read column-major)
          const std::int64_t depth = bands->depth, size = bands->size;
          const Scratch<T> b(0, static_cast<std::size_t>(g.C * g.kw * size));
          bands_of_image(x + n * image, b.data(), g, *bands);
          T* sum = weight_sums.data() + piece * OK;
          for (std::int64_t grp = 0; grp < g.G; ++grp) {
            const kindling::detail::MatrixRef<T> gyg{gyn + grp * og * L, L, true};
            const std::optional<Packed<T>> gy_packed =
                packed_w ? std::optional<Packed<T>>(std::in_place, Side::left, gyg, og, L, 1) : std::nullopt;
            for (std::int64_t ki = 0; ki < g.kh; ++ki) {
              T* const out = sum + (ki * g.O + grp * og) * depth;
              const kindling::detail::MatrixRef<T> band_t{b.data() + grp * depth * size + ki * g.dh * g.W, size, false};
              if (gy_packed)
                kindling::detail::gemm_packed<T>(out, depth, *gy_packed, Packed<T>(Side::right, band_t, depth, L, 0),
                                                 n != first);
              else
                kindling::detail::gemm_raw<T>(out, depth, gyg, band_t, og, depth, L, n != first);
            }
          }
        } else if (gw) {  // dW_g += dY_g cols_g^T (cols^T: the buffer read column-major)
          const Scratch<T> cols(0, static_cast<std::size_t>(rows * L));
          im2col_image(x + n * image, cols.data(), L, g, taps);
          T* sum = weight_sums.data() + piece * OK;
          for (std::int64_t grp = 0; grp < g.G; ++grp)
            kindling::detail::gemm_raw<T>(sum + grp * og * K, K, {gyn + grp * og * L, L, true},
                                          {cols.data() + grp * K * L, L, false}, og, K, L, n != first);
        }
        if (gb) {
          double* sum = bias_sums.data() + piece * g.O;
          for (std::int64_t oc = 0; oc < g.O; ++oc) sum[oc] += row_sum(gyn + oc * L, L);
        }
        if (gx && bands) {  // dB_ki += W_ki^T dY_g for each kernel row, then back to the pixels
          const std::int64_t depth = bands->depth, size = bands->size;
          const Scratch<T> b(1, static_cast<std::size_t>(g.C * g.kw * size));
          std::fill(b.data(), b.data() + g.C * g.kw * size, T(0));
          for (std::int64_t grp = 0; grp < g.G; ++grp) {
            const kindling::detail::MatrixRef<T> gyg{gyn + grp * og * L, L, true};
            const std::optional<Packed<T>> gy_packed =
                packed_x ? std::optional<Packed<T>>(std::in_place, Side::right, gyg, L, og, 1) : std::nullopt;
            for (std::int64_t ki = 0; ki < g.kh; ++ki) {
              T* const out = b.data() + grp * depth * size + ki * g.dh * g.W;
              if (gy_packed)
                kindling::detail::gemm_packed<T>(out, size, wt_rows[static_cast<std::size_t>(grp * g.kh + ki)],
                                                 *gy_packed, true);
              else
                kindling::detail::gemm_raw<T>(out, size, weight_row(wk, g, depth, grp, ki, true), gyg, depth, L, og,
                                              true);
            }
          }
          image_of_bands(b.data(), gx + n * image, g, *bands);
        } else if (gx) {  // dcols_g = W_g^T dY_g (W_g^T: the weight read column-major), then back to the pixels
          const Scratch<T> cols(1, static_cast<std::size_t>(rows * L));
          for (std::int64_t grp = 0; grp < g.G; ++grp)
            kindling::detail::gemm_raw<T>(cols.data() + grp * K * L, L, {w + grp * og * K, K, false},
                                          {gyn + grp * og * L, L, true}, K, L, og, false);
          col2im_image(cols.data(), L, gx + n * image, g, taps);
        }
      }
    });
  error.rethrow();
  if (gw) {  // the pieces' sums added in order, into the first piece's (then out of the band order)
    T* const sum = weight_sums.data();
    if (!shallow) {
      for (std::int64_t p = 1; p < pieces; ++p)
        for (std::int64_t i = 0; i < OK; ++i) sum[i] += sum[p * OK + i];
    } else if (g.N > 0) {  // the pieces' vectors added in order, then each vector's lanes (no image: zeros)
      for (std::int64_t p = 1; p < pieces; ++p)
        for (std::int64_t i = 0; i < OK; ++i)
          lane_sums[static_cast<std::size_t>(i)] += lane_sums[static_cast<std::size_t>(p * OK + i)];
      for (std::int64_t i = 0; i < OK; ++i) sum[i] = lane_sum<T>(lane_sums[static_cast<std::size_t>(i)]);
    }
    if (bands)
      reorder_by_kernel_row(sum, gw, g, false);
    else
      std::copy(sum, sum + OK, gw);
  }
  if (gb)
    for (std::int64_t oc = 0; oc < g.O; ++oc) {
      double s = 0;
      for (std::int64_t p = 0; p < pieces; ++p) s += bias_sums[static_cast<std::size_t>(p * g.O + oc)];
      gb[oc] = static_cast<T>(s);
    }
}

Window2d window_of(const ConvGeometry& g) {
  return Window2d{g.N, g.C, g.H, g.W, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw, g.OH, g.OW};
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

// conv2d on the CPU, image by image (conv_forward_images / conv_backward_images). The node keeps
// the input and the weight, as PyTorch's does (an in-place change to either before the backward is
// reported), and the backward recomputes each image's columns.
Tensor conv2d_cpu(const Tensor& input, const Tensor& x, const Tensor& weight, const Tensor& bias, const ConvGeometry& g,
                  bool batched) {
  Tensor out = batched ? kindling::detail::empty_contiguous({g.N, g.O, g.OH, g.OW}, x.dtype())
                       : kindling::detail::empty_contiguous({g.O, g.OH, g.OW}, x.dtype());
  {
    const Tensor w = weight.contiguous();
    const Tensor b = bias.defined() ? bias.contiguous() : Tensor();
    nn::detail::visit_float(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      conv_forward_images<T>(x.data_ptr<T>(), w.data_ptr<T>(), b.defined() ? b.data_ptr<T>() : nullptr,
                             out.data_ptr<T>(), g);
    });
  }
  nn::detail::record_function(
      "ConvolutionBackward0", out, {input, weight, bias}, {input, weight},
      [g, batched](const Tensor& grad, const TensorList& saved, const std::vector<bool>& needs) -> TensorList {
        const Tensor xs = (batched ? saved[0] : saved[0].unsqueeze(0)).contiguous();
        const Tensor w = saved[1].contiguous();
        const Tensor gy = grad.contiguous();  // (N, O, OH, OW) or (O, OH, OW): (N, O, L) in memory
        Tensor gx = needs[0] ? kindling::detail::empty_contiguous(xs.sizes(), grad.dtype()) : Tensor();
        Tensor gw = needs[1] ? kindling::detail::empty_contiguous(w.sizes(), grad.dtype()) : Tensor();
        Tensor gb = needs.size() > 2 && needs[2] ? kindling::detail::empty_contiguous({g.O}, grad.dtype()) : Tensor();
        nn::detail::visit_float(grad.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const auto ptr = [](const Tensor& t) { return t.defined() ? t.data_ptr<T>() : nullptr; };
          conv_backward_images<T>(xs.data_ptr<T>(), w.data_ptr<T>(), gy.data_ptr<T>(), ptr(gx), ptr(gw), ptr(gb), g);
        });
        if (gx.defined() && !batched) gx = gx.squeeze(0);
        return {gx, gw, gb};
      });
  return out;
}

}  // namespace

namespace {
// A dtype as C++ names it, which is how PyTorch's bias check names it ("float", "long int").
const char* cpp_type_name(ScalarType t) {
  switch (t) {
    case kFloat64:
      return "double";
    case kFloat32:
      return "float";
    case kInt64:
      return "long int";
    case kInt32:
      return "int";
    case kUInt8:
      return "unsigned char";
    case kBool:
      return "bool";
  }
  return "?";
}

// The input's dtype against the weight's, in PyTorch's words (the input's first), and the engine's
// own limit: it convolves float32 and float64 (PyTorch 1.13 also convolves integers on the CPU).
void check_input_and_weight_dtypes(const Tensor& input, const Tensor& weight, const char* op) {
  KINDLING_CHECK(input.dtype() == weight.dtype(), "expected scalar type ", dtype_short_name(input.dtype()),
                 " but found ", dtype_short_name(weight.dtype()));
  KINDLING_CHECK(input.is_floating_point(), op, ": Kindling convolves float32 and float64 tensors, not ",
                 dtype_short_name(input.dtype()));
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
  // The dtypes, in PyTorch's order and words: the bias's against the input's (named as C++ names
  // the types) before the shapes; the input's against the weight's after them.
  KINDLING_CHECK(!bias.defined() || bias.dtype() == input.dtype(), "Input type (", cpp_type_name(input.dtype()),
                 ") and bias type (", cpp_type_name(bias.dtype()), ") should be the same");
  const bool batched = input.dim() == 4;
  const Tensor x = (batched ? input : input.unsqueeze(0)).contiguous();
  const auto ws = weight.sizes();
  ConvGeometry g{x.sizes()[0], x.sizes()[1], x.sizes()[2], x.sizes()[3], ws[0],      ws[2], ws[3], stride.h,
                 stride.w,     padding.h,    padding.w,    dilation.h,   dilation.w, 0,     0,     groups};
  KINDLING_CHECK(g.O % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ", groups,
                 " at dimension 0, but got weight of size ", to_string(ws), " instead");
  KINDLING_CHECK(g.C == ws[1] * groups, "Given groups=", groups, ", weight of size ", to_string(ws), ", expected input",
                 to_string(x.sizes()), " to have ", ws[1] * groups, " channels, but got ", g.C, " channels instead");
  if (bias.defined()) {
    KINDLING_CHECK(bias.dim() == 1 && bias.sizes()[0] == g.O, "Given weight of size ", to_string(ws),
                   ", expected bias to be 1-dimensional with ", g.O, " elements, but got bias of size ",
                   to_string(bias.sizes()), " instead");
  }
  const std::int64_t eff_h = g.dh * (g.kh - 1) + 1, eff_w = g.dw * (g.kw - 1) + 1;
  KINDLING_CHECK(g.H + 2 * g.ph >= eff_h && g.W + 2 * g.pw >= eff_w, "Calculated padded input size per channel: (",
                 g.H + 2 * g.ph, " x ", g.W + 2 * g.pw, "). Kernel size: (", eff_h, " x ", eff_w,
                 "). Kernel size can't be greater than actual input size");
  check_input_and_weight_dtypes(input, weight, "conv2d");
  g.OH = conv_output_size(g.H, g.kh, g.sh, g.ph, g.dh);
  g.OW = conv_output_size(g.W, g.kw, g.sw, g.pw, g.dw);

  const ScalarType dtype = x.dtype();
  const Device device = kindling::detail::common_device({&x, &weight, &bias});
  if (device.is_cpu()) return conv2d_cpu(input, x, weight, bias, g, batched);
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
    if (bias.defined()) y.add_(bias.view({g.O, 1}));
    kindling::detail::copy(out.view({g.N, g.O, g.OH, g.OW}), y.view({g.O, g.N, g.OH, g.OW}).permute({1, 0, 2, 3}));
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
  const bool batched = input.dim() == 4;
  const Tensor x = (batched ? input : input.unsqueeze(0)).contiguous();
  const auto ws = weight.sizes();
  KINDLING_CHECK(x.sizes()[1] == ws[0], "Given transposed=1, weight of size ", to_string(ws), ", expected input",
                 to_string(x.sizes()), " to have ", ws[0], " channels, but got ", x.sizes()[1], " channels instead");
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
  // The dtypes after the shapes, in the same words for the weight and the bias.
  check_input_and_weight_dtypes(input, weight, "conv_transpose2d");
  KINDLING_CHECK(!bias.defined() || bias.dtype() == input.dtype(), "expected scalar type ",
                 dtype_short_name(input.dtype()), " but found ", dtype_short_name(bias.dtype()));
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
