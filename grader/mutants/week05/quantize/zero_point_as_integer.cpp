// MUTANT: adds the zero point as an integer after rounding, not in float32
// Task week05.quantize. The doc comment above each function is its contract; your code goes between
// BEGIN and END. Hints, one at a time: `./grade hint week05.quantize`.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>
#include <kindling/quantize.hpp>

namespace kindling::quant {

/// torch.quantize_per_tensor: q = clamp(zero_point + round(v x (1 / scale)), qmin, qmax), in float32
/// as PyTorch computes it, ties to even, NaN and what does not fit in int64 becoming qmin; PyTorch's
/// errors for a dtype other than float32 and a zero point out of range, the kit's for a bad scale
/// (quantize.hpp has the whole contract).
QuantizedTensor quantize_per_tensor(const Tensor& x, double scale, std::int64_t zero_point, QDtype dtype) {
  // BEGIN SOLUTION week05.quantize
  KINDLING_CHECK(x.dtype() == kFloat32, "Quantize only works on Float Tensor, got ", dtype_short_name(x.dtype()));
  const std::int64_t lo = qmin(dtype), hi = qmax(dtype);
  KINDLING_CHECK(zero_point <= hi, "quantize_tensor_per_tensor_affine zero_point ", zero_point,
                 " is above upper bound.");
  KINDLING_CHECK(zero_point >= lo, "quantize_tensor_per_tensor_affine zero_point ", zero_point,
                 " is below lower bound.");
  KINDLING_CHECK(std::isfinite(scale) && scale > 0,
                 "quantize_per_tensor: the scale must be a positive finite number, not ", scale);
  const Tensor src = x.contiguous();
  const std::int64_t n = src.numel();
  const float* in = static_cast<const float*>(src.data_ptr());
  const float inv_scale = 1.0f / static_cast<float>(scale);
  const auto zp = static_cast<float>(zero_point);
  constexpr float kTwo63 = 9223372036854775808.0f;
  Tensor out = empty(src.sizes(), TensorOptions().dtype(dtype == kQUInt8 ? kUInt8 : kInt32));
  for (std::int64_t i = 0; i < n; ++i) {
    const float t = std::nearbyint(in[i] * inv_scale) + 0 * zp;
    std::int64_t q = (std::isnan(t) || t >= kTwo63 || t < -kTwo63) ? std::numeric_limits<std::int64_t>::min()
                                                                   : static_cast<std::int64_t>(t) + zero_point;
    q = q < lo ? lo : q > hi ? hi : q;
    if (dtype == kQUInt8)
      static_cast<std::uint8_t*>(out.data_ptr())[i] = static_cast<std::uint8_t>(q);
    else
      static_cast<std::int32_t*>(out.data_ptr())[i] = static_cast<std::int32_t>(q);
  }
  return {out, scale, zero_point, dtype};
  // END SOLUTION
}

/// q.dequantize(): float32 (q - zero_point) x scale in the int_repr's shape (quantize.hpp).
Tensor dequantize(const QuantizedTensor& q) {
  // BEGIN SOLUTION week05.quantize
  return q.int_repr.to(kFloat64).sub(static_cast<double>(q.zero_point)).mul(q.scale).to(kFloat32);
  // END SOLUTION
}

/// (a - a.zero_point) times (b - b.zero_point) transposed, in exact 32-bit integers: (m, k) and
/// (n, k) give (m, n) int32 (quantize.hpp has the whole contract).
Tensor int_matmul_t(const QuantizedTensor& a, const QuantizedTensor& b) {
  // BEGIN SOLUTION week05.quantize
  KINDLING_CHECK(a.int_repr.dim() == 2 && b.int_repr.dim() == 2, "int_matmul_t: expected 2-d tensors, got ",
                 a.int_repr.dim(), "-d and ", b.int_repr.dim(), "-d");
  KINDLING_CHECK(a.int_repr.size(1) == b.int_repr.size(1), "int_matmul_t: a is (", a.int_repr.size(0), ", ",
                 a.int_repr.size(1), ") and b is (", b.int_repr.size(0), ", ", b.int_repr.size(1),
                 "): their second sizes must agree");
  KINDLING_CHECK(a.dtype != kQInt32 && b.dtype != kQInt32, "int_matmul_t: expected 8-bit quantised tensors");
  const std::int64_t m = a.int_repr.size(0), n = b.int_repr.size(0), k = a.int_repr.size(1);
  // Both as int32 with their zero points taken out: |values| <= 255, so each product fits in 17 bits.
  const Tensor av = a.int_repr.to(kInt32).sub(a.zero_point).contiguous();
  const Tensor bv = b.int_repr.to(kInt32).sub(b.zero_point).contiguous();
  const auto* pa = static_cast<const std::int32_t*>(av.data_ptr());
  const auto* pb = static_cast<const std::int32_t*>(bv.data_ptr());
  Tensor out = empty({m, n}, TensorOptions().dtype(kInt32));
  auto* po = static_cast<std::int32_t*>(out.data_ptr());
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      std::int32_t sum = 0;
      const std::int32_t* ra = pa + i * k;
      const std::int32_t* rb = pb + j * k;
      for (std::int64_t t = 0; t < k; ++t) sum += ra[t] * rb[t];
      po[i * n + j] = sum;
    }
  return out;
  // END SOLUTION
}

}  // namespace kindling::quant
