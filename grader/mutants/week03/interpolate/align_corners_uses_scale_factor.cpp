// MUTANT: lets a given scale_factor win over align_corners, stepping by 1/scale_factor, not (in-1)/(out-1)
// Task week03.interpolate. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.interpolate`.
//
// F::interpolate (src/functional.cpp) resizes each spatial axis on its own: it asks these
// two functions where every output row and column reads from, then gathers with
// index_select and weights the gathered rows. Both follow PyTorch 1.13's CPU kernels,
// which compute the source position in float (the input's precision for float32).

#include <algorithm>
#include <cmath>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/functional.hpp>

namespace kindling::nn::functional {

/// Mode "nearest" along one axis: for each output o in [0, out), the input index
/// it copies, floor(o * scale) clamped to in - 1, where
/// scale = 1 / scale_factor when a scale factor was given (F.interpolate(...,
/// scale_factor=2) uses 0.5 even when in * 2 is not the output size), and
/// scale = in / out otherwise. scale and o * scale are computed in float
/// (single precision), as PyTorch does. Examples: in 3, out 7 gives
/// 0 0 0 1 1 2 2; in 5, out 3 gives 0 1 3. Precondition: in >= 1, out >= 1.
std::vector<std::int64_t> nearest_source_indices(std::int64_t in, std::int64_t out,
                                                 std::optional<double> scale_factor) {
  // BEGIN SOLUTION week03.interpolate
  const float scale =
      scale_factor ? static_cast<float>(1.0 / *scale_factor) : static_cast<float>(in) / static_cast<float>(out);
  std::vector<std::int64_t> idx(static_cast<std::size_t>(out));
  for (std::int64_t o = 0; o < out; ++o)
    idx[static_cast<std::size_t>(o)] =
        std::min(static_cast<std::int64_t>(std::floor(static_cast<float>(o) * scale)), in - 1);
  return idx;
  // END SOLUTION
}

/// Mode "bilinear" along one axis: the taps {lo, hi, lambda} of each output o in
/// [0, out), all three vectors of length `out`, computed in float:
/// - align_corners: the corner pixels' centres line up, src = o * scale with
///   scale = (in - 1) / (out - 1) (0 when out == 1); scale_factor is ignored;
/// - otherwise the pixel areas line up, src = scale * (o + 0.5) - 0.5, with
///   scale = 1 / scale_factor when given, in / out otherwise; a negative src
///   becomes 0.
/// Then lo = floor(src) (src >= 0 here), hi = lo + 1 unless lo is the last input
/// (then hi = lo), and lambda = src - lo. Example: in 2, out 4 without
/// align_corners: src = -0.25, 0.25, 0.75, 1.25 gives lo 0 0 0 1, hi 1 1 1 1,
/// lambda 0 0.25 0.75 0.25 (the last output reads input 1 only).
/// Precondition: in >= 1, out >= 1.
LinearTaps linear_source_taps(std::int64_t in, std::int64_t out, std::optional<double> scale_factor,
                              bool align_corners) {
  // BEGIN SOLUTION week03.interpolate
  LinearTaps taps;
  const auto n = static_cast<std::size_t>(out);
  taps.lo.resize(n);
  taps.hi.resize(n);
  taps.lambda.resize(n);
  const float scale = scale_factor    ? static_cast<float>(1.0 / *scale_factor)
                      : align_corners ? (out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f)
                                      : static_cast<float>(in) / static_cast<float>(out);
  for (std::int64_t o = 0; o < out; ++o) {
    float src = align_corners ? scale * static_cast<float>(o) : scale * (static_cast<float>(o) + 0.5f) - 0.5f;
    if (src < 0) src = 0;
    const auto lo = static_cast<std::int64_t>(src);
    const auto k = static_cast<std::size_t>(o);
    taps.lo[k] = lo;
    taps.hi[k] = lo + (lo < in - 1 ? 1 : 0);
    taps.lambda[k] = src - static_cast<float>(lo);
  }
  return taps;
  // END SOLUTION
}

}  // namespace kindling::nn::functional
