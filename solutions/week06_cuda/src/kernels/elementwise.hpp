#pragma once
// The engine's kernels on the device: elementwise (elementwise.cu), reductions, softmax and
// where (reduce.cu), index_select (index.cu), matrix products (gemm.cu). The host functions that launch them, for the
// CUDA backend of device_hooks.hpp (backend.cpp).

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

/// Reductions, numbered as kindling::ReduceOp.
enum Reduction : int { kReduceSum, kReduceMax, kReduceMin, kReduceProd };

/// out[o] = the reduction `op` of x over the elements of output o: `kept` walks x's outputs (its
/// sizes those of out, 1 where reduced; x's strides and offset), `reduced` the elements of one
/// output (x's sizes where reduced, 1 elsewhere; x's strides, offset 0). x of `type`, out (contiguous)
/// of `acc_type`, which the reduction accumulates in; `init` its identity.
void reduce(int op, ScalarType acc_type, const Operand& out, ScalarType type, const Operand& x, const Strided& kept,
            const Strided& reduced, std::int64_t outputs, std::int64_t count, double init, void* stream);

/// values[o], indices[o] = the largest (`is_max`) or smallest element along one dim of x and its
/// first index (NaN counts as the extreme, as in PyTorch); `kept` walks the outputs as in reduce(),
/// `step` is the dim's stride in x, `count` its size (> 0). values (of x's type) and indices
/// (int64) contiguous.
void extreme_along(bool is_max, ScalarType type, const Operand& values, const Operand& indices, const Operand& x,
                   const Strided& kept, std::int64_t step, std::int64_t outputs, std::int64_t count, void* stream);

/// out = softmax (or log-softmax) of each row of x: both contiguous [rows, cols], floating `type`.
void softmax_rows(bool log, ScalarType type, const Operand& out, const Operand& x, std::int64_t rows, std::int64_t cols,
                  void* stream);

/// out[i] = cond[i] ? a[i] : b[i], each operand through its own strides over out's sizes; a or b
/// may be a scalar (a 0-d CPU tensor).
void where(ScalarType type, const Operand& out, const Operand& cond, const Operand& a, const Operand& b, std::int64_t n,
           void* stream);

/// A 2-D window over N images of C channels (kindling::Window2d, for the kernels).
struct Window {
  std::int64_t N = 0, C = 0, H = 0, W = 0, kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, OH = 0,
               OW = 0;  ///< as kindling::Window2d
};

/// im2col (convolution.cu): cols (C kh kw x N OH OW) from x (N, C, H, W), both contiguous, floating `type`.
void im2col(ScalarType type, void* cols, const void* x, const Window& g, void* stream);
/// col2im: dx (N, C, H, W) = the sum of the column entries that came from each pixel.
void col2im(ScalarType type, void* dx, const void* cols, const Window& g, void* stream);
/// Max pooling of N C planes: values and flat indices of each window's maximum (PyTorch's rules).
void max_pool2d(ScalarType type, void* out, void* indices, const void* x, const Window& g, void* stream);
/// dx (zeros) += grad at each output's index, plane by plane.
void max_pool2d_backward(ScalarType type, void* dx, const void* grad, const void* indices, const Window& g,
                         void* stream);
/// Window means of P planes (H x W -> OH x OW): windows from `rows` (OH (start, end) pairs), `cols`
/// (OW pairs) and `divisors` (OH x OW), all int64 on the device; `backward`: x (zeros) += out / divisor
/// over each window instead.
void window_mean(ScalarType type, void* out, void* x, const void* rows, const void* cols, const void* divisors,
                 std::int64_t P, std::int64_t H, std::int64_t W, std::int64_t OH, std::int64_t OW, bool backward,
                 void* stream);

/// index_select along one dim (index.cu): out [outer, count, inner] = x [outer, size, inner] at
/// the `count` entries of `index` (int64, on the device, each in [0, size)); all contiguous.
void index_gather(ScalarType type, void* out, const void* x, const void* index, std::int64_t outer, std::int64_t size,
                  std::int64_t count, std::int64_t inner, void* stream);
/// index_gather's adjoint: out [outer, size, inner] entry index[j] += src [outer, count, inner]
/// entry j (repeated entries add up). `deterministic`: one thread per column of out adds the
/// entries j in order (the same bits every run). Otherwise floating types take an atomic add from
/// one thread per element of src (more parallel; the order of the additions, and so the last bits,
/// change from run to run); integer types always take the ordered kernel (integer addition does
/// not depend on the order).
void index_add(ScalarType type, void* out, const void* src, const void* index, std::int64_t outer, std::int64_t size,
               std::int64_t count, std::int64_t inner, bool deterministic, void* stream);

/// Where the matrices of a (batched) product lie, in elements: C[z] (m x n) = A[z] (m x k) B[z] (k x n).
struct GemmLayout {
  std::int64_t m = 0, k = 0, n = 0, batch = 1;                   ///< sizes
  std::int64_t a_offset = 0, a_row = 0, a_col = 0, a_batch = 0;  ///< A's offset and strides
  std::int64_t b_offset = 0, b_row = 0, b_col = 0, b_batch = 0;  ///< B's offset and strides
  std::int64_t c_offset = 0, c_row = 0, c_col = 0, c_batch = 0;  ///< C's offset and strides
};

/// The slices of k that the split-k product adds up separately.
inline constexpr int kSplitK = 4;

/// C = alpha A B (+ C when `accumulate`) for each of the layout's batches, floating `type`: cuBLAS in
/// the device build where every matrix has a unit stride, else the kit's own kernels, which are also
/// the simulator's: `split_k` false, one 16 x 16 tile of C per block walking all of k (each output
/// the sum of its k products in order); true, kSplitK blocks per tile, each over a quarter of k into
/// `workspace` (batch * kSplitK * m * n elements of `type`), then a second kernel that adds the
/// quarters in order. The same products, added in another order: the last bits differ.
void gemm(ScalarType type, const void* c, const void* a, const void* b, const GemmLayout& layout, double alpha,
          bool accumulate, bool split_k, void* workspace, void* stream);

}  // namespace kindling::cuda::kernels
