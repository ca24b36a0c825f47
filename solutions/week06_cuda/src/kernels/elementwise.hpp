#pragma once
// The engine's elementwise kernels on the device (elementwise.cu): the host functions that
// launch them, for the CUDA backend of device_hooks.hpp (backend.cpp).

#include <cstdint>

#include <kindling/cuda/kernel.hpp>
#include <kindling/dtype.hpp>

namespace kindling::cuda::kernels {

/// The most dimensions a device kernel indexes (a tensor with more is made contiguous first).
inline constexpr int kMaxDims = 8;

/// Where the elements of one operand lie: sizes, strides and offset in elements. Passed to
/// kernels by value.
struct Strided {
  int ndim = 0;                         ///< dimensions used
  std::int64_t sizes[kMaxDims] = {};    ///< the shared sizes
  std::int64_t strides[kMaxDims] = {};  ///< this operand's strides (0: broadcast)
  std::int64_t offset = 0;              ///< this operand's storage offset
};

/// One operand: its storage's device address and layout, or (`is_scalar`) a value read on the
/// host (a 0-d CPU tensor beside device tensors).
struct Operand {
  const void* data = nullptr;   ///< device address of element 0 of the storage
  Strided layout;               ///< where its elements lie
  bool is_scalar = false;       ///< read `scalar` instead of memory
  double scalar = 0;            ///< the value, when is_scalar (int64 values fit in a double's range used here)
  std::int64_t scalar_int = 0;  ///< the value for integer dtypes, exactly
};

/// dst[i] = src[i] converted, i over `n` elements in row-major order of the shared sizes.
void copy(ScalarType dst_type, const Operand& dst, ScalarType src_type, const Operand& src, std::int64_t n,
          void* stream);
/// dst[i] = value.
void fill(ScalarType type, const Operand& dst, double value, std::int64_t value_int, std::int64_t n, void* stream);
/// out[i] = op(x[i]); `op` is a kindling::UnaryOp; out of `out_type`, x of `type`.
void unary(int op, ScalarType out_type, const Operand& out, ScalarType type, const Operand& x, std::int64_t n,
           void* stream);
/// out[i] = a[i] op b[i] (alpha * b for Add, Sub); `op` is a kindling::BinaryOp; a and b of `type`,
/// out of `type` or bool for comparisons.
void binary(int op, ScalarType type, const Operand& out, const Operand& a, const Operand& b, double alpha,
            std::int64_t alpha_int, std::int64_t n, void* stream);

}  // namespace kindling::cuda::kernels
