#pragma once
/// @file quantize.hpp
/// Quantised tensors for inference (PyTorch's qint8, quint8 and qint32): a float tensor stored as
/// small integers with one scale and one zero point for the whole tensor (per-tensor affine
/// quantisation), and a matrix product of such integers that accumulates in 32 bits. A trained
/// model's weights take a quarter of their float32 bytes, at the price of a rounding error the
/// lecture measures. The task week05.quantize.

#include <cstdint>
#include <string>

#include <kindling/tensor.hpp>

namespace kindling::quant {

/// torch.quint8 (0 to 255), torch.qint8 (-128 to 127), torch.qint32 (-2^31 to 2^31 - 1).
enum class QDtype { QUInt8, QInt8, QInt32 };
inline constexpr QDtype kQUInt8 = QDtype::QUInt8;  ///< torch.quint8
inline constexpr QDtype kQInt8 = QDtype::QInt8;    ///< torch.qint8
inline constexpr QDtype kQInt32 = QDtype::QInt32;  ///< torch.qint32

/// "torch.quint8", "torch.qint8", "torch.qint32".
std::string to_string(QDtype dtype);
/// The smallest and largest integer of `dtype`.
std::int64_t qmin(QDtype dtype);
std::int64_t qmax(QDtype dtype);  ///< see qmin

/// A per-tensor affine quantised tensor: real value = (q - zero_point) x scale.
struct QuantizedTensor {
  /// The integers q, in the input's shape (PyTorch's int_repr()): uint8 for quint8, int32 for qint8
  /// (the kit has no int8 dtype; the values stay within -128 to 127) and qint32.
  Tensor int_repr;
  double scale = 1;             ///< q_scale()
  std::int64_t zero_point = 0;  ///< q_zero_point()
  QDtype dtype = kQUInt8;       ///< its quantised dtype
};

/// torch.quantize_per_tensor(x, scale, zero_point, dtype): each element v becomes
/// q = clamp(zero_point + round(v x (1 / scale)), qmin, qmax), computed as PyTorch computes it: the
/// reciprocal and the product in float32, round to nearest with ties to even (std::nearbyint), the
/// zero point added in float32, then converted to int64. A value whose sum is not a number or does
/// not fit in int64 (NaN, an infinity, 1e20 / 0.1) becomes qmin, as on PyTorch's x86 build.
/// Errors: `x` not float32, PyTorch's "Quantize only works on Float Tensor, got Double"; a zero
/// point outside [qmin, qmax], PyTorch's "quantize_tensor_per_tensor_affine zero_point 300 is above
/// upper bound." (or "is below lower bound."); a scale that is not a positive finite number, a
/// kindling::Error of the kit's own (PyTorch 1.13 accepts it and returns what the CPU's conversion
/// of infinity gives).
QuantizedTensor quantize_per_tensor(const Tensor& x, double scale, std::int64_t zero_point, QDtype dtype);

/// q.dequantize(): float32 (q - zero_point) x scale, in the int_repr's shape. (PyTorch's vectorised
/// path computes it with a fused multiply-add, so values may differ from the kit's in the last bit;
/// for qint32 it subtracts in 32-bit integers, which wraps round where q - zero_point does not fit,
/// where the kit's value is exact.)
Tensor dequantize(const QuantizedTensor& q);

/// The integer product of a Linear layer: for a of shape (m, k) and b of shape (n, k), the (m, n)
/// int32 tensor whose element (i, j) is the sum over t of (a[i, t] - a.zero_point) x
/// (b[j, t] - b.zero_point), exactly (every product and the running sum in 32-bit integers, as
/// int8 kernels accumulate). Errors: not 2-d, k differs, or a or b is qint32, kindling::Error.
Tensor int_matmul_t(const QuantizedTensor& a, const QuantizedTensor& b);

/// A Linear layer in integers: x (float32, (m, k)) quantised to quint8 with `x_scale` and
/// `x_zero_point`, multiplied by the quantised `weight` ((n, k)) with int_matmul_t, scaled back to
/// float32 by x_scale x weight.scale, plus `bias` (float32 (n), may be undefined). The float
/// Linear it stands for is x W^T + b with W = dequantize(weight).
Tensor quantized_linear(const Tensor& x, const QuantizedTensor& weight, const Tensor& bias, double x_scale,
                        std::int64_t x_zero_point);

}  // namespace kindling::quant
