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
  // BEGIN TASK week05.quantize (replace the stub below with your code)
  KINDLING_TODO("week05.quantize");
  // END TASK
}

/// q.dequantize(): float32 (q - zero_point) x scale in the int_repr's shape (quantize.hpp).
Tensor dequantize(const QuantizedTensor& q) {
  // BEGIN TASK week05.quantize (replace the stub below with your code)
  KINDLING_TODO("week05.quantize");
  // END TASK
}

/// (a - a.zero_point) times (b - b.zero_point) transposed, in exact 32-bit integers: (m, k) and
/// (n, k) give (m, n) int32 (quantize.hpp has the whole contract).
Tensor int_matmul_t(const QuantizedTensor& a, const QuantizedTensor& b) {
  // BEGIN TASK week05.quantize (replace the stub below with your code)
  KINDLING_TODO("week05.quantize");
  // END TASK
}

}  // namespace kindling::quant
