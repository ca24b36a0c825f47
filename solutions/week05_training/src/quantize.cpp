// Quantised tensors' frame: the dtypes' names and ranges, and a Linear layer made of the task's
// pieces (week05.quantize: quantize_per_tensor, dequantize, int_matmul_t in src/tasks/quantize.cpp).

#include <kindling/factory.hpp>
#include <kindling/quantize.hpp>

namespace kindling::quant {

std::string to_string(QDtype dtype) {
  switch (dtype) {
    case kQUInt8:
      return "torch.quint8";
    case kQInt8:
      return "torch.qint8";
    case kQInt32:
      return "torch.qint32";
  }
  return "?";
}

std::int64_t qmin(QDtype dtype) { return dtype == kQUInt8 ? 0 : dtype == kQInt8 ? -128 : -2147483648LL; }
std::int64_t qmax(QDtype dtype) { return dtype == kQUInt8 ? 255 : dtype == kQInt8 ? 127 : 2147483647LL; }

Tensor quantized_linear(const Tensor& x, const QuantizedTensor& weight, const Tensor& bias, double x_scale,
                        std::int64_t x_zero_point) {
  const QuantizedTensor xq = quantize_per_tensor(x, x_scale, x_zero_point, kQUInt8);
  Tensor y = int_matmul_t(xq, weight).to(kFloat32).mul(x_scale * weight.scale);
  if (bias.defined()) y = y.add(bias);
  return y;
}

}  // namespace kindling::quant
