#pragma once
/// @file device_hooks.hpp
/// The extension point through which operations on a tensor that is not on the CPU reach a
/// device's kernels. Week 1 declares it and calls it; week 6 (the GPU) defines
/// device_backend() and plugs its kernels in. No week includes a later week's header: the
/// engine's CPU code only ever sees this interface.
///
/// Note: the engine checks devices before it calls a backend. Every tensor handed to a
/// backend is on that backend's device, except a 0-d CPU operand of a binary op (a wrapped
/// Scalar or a CPU scalar tensor, which PyTorch lets any device read) and one side of a copy.

#include <cstddef>
#include <cstdint>

#include <kindling/tensor.hpp>

namespace kindling {

/// The elementwise operations with one input that a device runs.
enum class UnaryOp : std::uint8_t {
  Neg,
  Abs,
  Sign,
  Exp,
  Log,
  Log1p,
  Sqrt,
  Rsqrt,
  Sin,
  Cos,
  Tanh,
  Sigmoid,
  Reciprocal,
  Relu,
  Floor,
  Ceil,
  Round,
  IsNan,
  IsFinite,
  LogicalNot
};

/// The elementwise operations with two inputs that a device runs (week 1's order).
enum class BinaryOp : std::uint8_t { Add, Sub, Mul, Div, Pow, Maximum, Minimum, Eq, Ne, Lt, Le, Gt, Ge };

/// The reductions a device runs (week 6 part 2).
enum class ReduceOp : std::uint8_t { Sum, Max, Min, Prod };

/// A 2-D window sliding over N images of C channels, H x W: im2col's (week 3's convolution) and
/// max pooling's geometry. Output OH x OW; kernel kh x kw; stride, padding and dilation per axis.
struct Window2d {
  std::int64_t N = 0;   ///< images
  std::int64_t C = 0;   ///< channels
  std::int64_t H = 0;   ///< input height
  std::int64_t W = 0;   ///< input width
  std::int64_t kh = 1;  ///< window height
  std::int64_t kw = 1;  ///< window width
  std::int64_t sh = 1;  ///< vertical stride
  std::int64_t sw = 1;  ///< horizontal stride
  std::int64_t ph = 0;  ///< vertical padding
  std::int64_t pw = 0;  ///< horizontal padding
  std::int64_t dh = 1;  ///< vertical dilation
  std::int64_t dw = 1;  ///< horizontal dilation
  std::int64_t OH = 0;  ///< output height
  std::int64_t OW = 0;  ///< output width
};

/// What a device offers the engine. Week 6 implements it for CUDA.
class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  /// `bytes` of memory on `device` (the caching allocator's), freed by deallocate().
  virtual void* allocate(std::size_t bytes, Device device) = 0;
  /// Returns memory from allocate().
  virtual void deallocate(void* ptr, Device device) = 0;
  /// The device a tensor created "on cuda" gets ("cuda" becomes "cuda:0"); throws PyTorch's
  /// error for an index beyond the devices present.
  virtual Device resolve(Device device) = 0;
  /// dst = src, elementwise, converting the dtype: equal sizes (src already expanded), any
  /// strides; at least one of them is on this device. `non_blocking`: asynchronous for the
  /// host where CUDA allows it (pinned host memory).
  virtual void copy(const Tensor& dst, const Tensor& src, bool non_blocking) = 0;
  /// Every element of `dst` set to `value`.
  virtual void fill(const Tensor& dst, const Scalar& value) = 0;
  /// out = op(x), out of dtype `out.dtype()`, x of the compute dtype, equal sizes.
  virtual void unary(UnaryOp op, const Tensor& out, const Tensor& x) = 0;
  /// out = a op b (alpha * b for Add and Sub), a and b of the compute dtype and expanded to
  /// out's sizes (or 0-d CPU tensors); out of the compute dtype, or bool for comparisons.
  virtual void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) = 0;
  /// out = the reduction `op` of x over the dims where out (of x's rank, contiguous, of the dtype
  /// the reduction accumulates in) has size 1 and x does not; `init` is the reduction's identity.
  virtual void reduce(ReduceOp op, const Tensor& out, const Tensor& x, const Scalar& init) = 0;
  /// values, indices (int64) = the largest (`is_max`) or smallest element of x along `dim` (wrapped,
  /// of size > 0) and its first index, NaN counting as the extreme; both contiguous, of x's rank
  /// with size 1 at `dim`.
  virtual void extreme_along(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& x,
                             std::int64_t dim) = 0;
  /// out = the entries index[0], index[1], ... of x along `dim` (index_select): x and out
  /// contiguous, out of x's sizes with index.numel() at `dim`; index int64, contiguous, on this
  /// device, every entry already checked to lie in [0, x.size(dim)).
  virtual void index_select(const Tensor& out, const Tensor& x, std::int64_t dim, const Tensor& index) = 0;
  /// index_select's adjoint: out's entry index[i] along `dim` += src's entry i, for i in order
  /// (repeated entries add up); out and src contiguous, of one floating dtype; index as above.
  virtual void index_add(const Tensor& out, std::int64_t dim, const Tensor& index, const Tensor& src) = 0;
  /// out = softmax (or log-softmax) of each row of x, both contiguous 2-d of the same floating dtype.
  virtual void softmax_rows(const Tensor& out, const Tensor& x, bool log) = 0;
  /// out = cond ? a : b, elementwise; cond (bool), a and b (out's dtype, or 0-d CPU tensors)
  /// expanded to out's sizes.
  virtual void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) = 0;
  /// out = alpha * a @ b (+ out when `accumulate`): matrices (2-d) or batches of them (3-d), any
  /// strides, one floating dtype.
  virtual void gemm(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha, bool accumulate) = 0;
  /// cols (C kh kw x N OH OW, contiguous) = the receptive field of every output pixel of x
  /// (N, C, H, W, contiguous), row (c, ki, kj), column (n, oh, ow); 0 where it reaches the padding.
  virtual void im2col(const Tensor& cols, const Tensor& x, const Window2d& g) = 0;
  /// dx (N, C, H, W, contiguous) = im2col's adjoint of cols: each pixel the sum of the column
  /// entries that came from it.
  virtual void col2im(const Tensor& dx, const Tensor& cols, const Window2d& g) = 0;
  /// out, indices (N C planes of OH x OW, contiguous) = the maximum of each window of x (N C planes
  /// of H x W) and its flat index h W + w in the plane (PyTorch's rules: a NaN wins, the first of
  /// equal maxima stays).
  virtual void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& x, const Window2d& g) = 0;
  /// dx (N C planes of H x W, zeros first) += grad at the index each output's maximum came from.
  virtual void max_pool2d_backward(const Tensor& dx, const Tensor& grad, const Tensor& indices, const Window2d& g) = 0;
  /// out (P planes of OH x OW) = the mean of each window of x (P planes of H x W): window (i, j)
  /// covers rows [rows[i].start, rows[i].end) and columns [cols[j].start, cols[j].end) and is
  /// divided by `divisors` (OH x OW). With `backward`, the adjoint instead: x (zeros first) +=
  /// out's value / divisor over each window. rows and cols are int64 CPU tensors of (start, end)
  /// pairs, divisors an int64 CPU tensor.
  virtual void window_mean(const Tensor& out, const Tensor& x, const Tensor& rows, const Tensor& cols,
                           const Tensor& divisors, bool backward) = 0;
  /// Tells the device that host memory [ptr, ptr + bytes) is page-locked (week 4's pool), so
  /// that copies from it may be asynchronous; unregister_host undoes it.
  virtual void register_host(void* ptr, std::size_t bytes) = 0;
  /// Undoes register_host.
  virtual void unregister_host(void* ptr) = 0;
};

/// The backend of `type` (CUDA: defined by week 6). Throws for the CPU, which has none.
DeviceBackend& device_backend(DeviceType type);

namespace detail {
/// The device an elementwise op with these operands runs on: the first non-CPU device, with
/// 0-d CPU tensors allowed beside it; PyTorch's error for two different devices ("Expected
/// all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!").
Device common_device(std::initializer_list<const Tensor*> tensors);
/// common_device() of a list of tensors (cat, stack).
Device common_device(const TensorList& tensors);
/// Throws when `t` is not on the CPU: `what` names the operation ("'mm' is not implemented
/// for CUDA tensors yet (week 6 part 2)").
void check_cpu(const Tensor& t, const char* what);
/// Records `out`, a fresh copy of `self` on another device or on its own, as a move of `self`
/// (PyTorch's ToCopyBackward0, whose backward takes the gradient back to self's device) when self
/// requires grad; does nothing otherwise. It does not look at grad mode: under no_grad, do not
/// call it. `out` becomes a non-leaf whose history replaces any it had.
void record_move(const Tensor& out, const Tensor& self);
/// The engine's own move of `t` to `device` (resolved already): a new row-major tensor, recorded
/// by record_move(). Tensor::cuda(), Tensor::cpu() and the backward of a move use it.
Tensor move_to(const Tensor& t, Device device, bool non_blocking = false);
}  // namespace detail

}  // namespace kindling
