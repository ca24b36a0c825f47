#pragma once
// Private helpers shared by the engine's source files.

#include <bit>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include <kindling/tensor.hpp>

namespace kindling::detail {

/// broadcast_shapes(a, b), with the two common cases answered without it: equal
/// shapes, and a 0-d operand (a wrapped Scalar).
inline Shape broadcast_pair(IntArrayRef a, IntArrayRef b) {
  if (a.equals(b) || b.empty()) return Shape(a.begin(), a.end());
  if (a.empty()) return Shape(b.begin(), b.end());
  return broadcast_shapes(a, b);
}

/// `take ? x : y` without a jump, for any trivially copyable T of 1, 2, 4 or 8
/// bytes. Compilers turn a ternary on data into a branch, and when the condition
/// is the data's sign or a comparison of values (ReLU's backward, max pooling) it
/// is mispredicted about half the time: 4-5x slower than selecting with a mask.
template <class T>
T select(bool take, T x, T y) {
  using U = std::conditional_t<sizeof(T) == 1, std::uint8_t,
                               std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
  static_assert(sizeof(T) == sizeof(U) && std::is_trivially_copyable_v<T>);
  const U mask = static_cast<U>(U{0} - static_cast<U>(take));
  return std::bit_cast<T>(static_cast<U>((std::bit_cast<U>(x) & mask) | (std::bit_cast<U>(y) & ~mask)));
}

/// A 0-d tensor marked as a wrapped number, so type promotion treats it like a
/// Python scalar: float64 values count as the default dtype, ints as int64.
Tensor wrapped_scalar(const Scalar& value);
/// wrapped_scalar holding `value` converted to `dtype` (a wrapped number that an op
/// computing in `dtype` can read without a conversion; promotion treats it the same).
Tensor wrapped_scalar(const Scalar& value, ScalarType dtype);
/// Scalar `s` as the wrapped operand of an op with `other`: in the op's result dtype
/// when that is floating (promotion is unchanged, and neither the kernel nor the
/// node's backward formula converts it), else in the Scalar's own dtype (an integer
/// op must see the Scalar's value: `uint8 / -2` divides by -2, not by 254).
Tensor wrapped_scalar_for(const Scalar& s, const Tensor& other);
/// `a * s` as PyTorch's own backward formulas compute it, through the Scalar overload mul.Scalar:
/// the same values as `a * s`, recorded (under create_graph) as MulBackward1, where `a * s` from
/// Python, which wraps the number in a tensor, is MulBackward0.
Tensor mul_scalar_overload(const Tensor& a, const Scalar& s);

/// fill_ without the version bump, for tensors the engine is still building: a
/// fresh result is at version 0, as in PyTorch (bumps count user-visible writes).
void fill(const Tensor& t, const Scalar& value);
/// copy_ without the version bump, for tensors the engine is still building.
void copy(const Tensor& dst, const Tensor& src);

/// max(x, dim)/min(x, dim) and argmax/argmin with a dim: the largest (is_max) or
/// smallest element along `dim` and its index. The task week01.max_dim: the contract
/// is the doc comment in src/tasks/max_dim.cpp. `name` ("max", "min", "argmax",
/// "argmin") goes into the error for an empty dim.
std::tuple<Tensor, Tensor> max_min_dim(const Tensor& x, std::int64_t dim, bool keepdim, bool is_max, const char* name);

/// index_select of a tensor on a device (week 6's kernel; the CPU's is the task week01.masking):
/// `dim` already wrapped; the index must be on x's device; the CPU's errors, word for word (PyTorch's
/// CUDA kernel asserts on the device instead, which ends the process).
Tensor index_select_on_device(const Tensor& x, std::int64_t dim, const Tensor& index);

/// A new contiguous tensor without checks (the engine's allocation point).
Tensor empty_contiguous(IntArrayRef sizes, ScalarType dtype);
/// The same on `device` (a device's memory comes from its backend, device_hooks.hpp).
Tensor empty_contiguous(IntArrayRef sizes, ScalarType dtype, Device device);
/// `nbytes` of `device`'s memory from its backend, freed through it.
Storage allocate_on_device(std::size_t nbytes, Device device);
/// The error of a CPU kernel handed a tensor on another device.
[[noreturn]] void throw_not_on_cpu(const Tensor& t);

/// out[i] = tanh(in[i]) for n contiguous floats, vectorised (Eigen's rational
/// approximation: within 5 ulp of std::tanh, and some 30x faster than calling
/// libm's tanhf for each element, which goes through expm1f).
void tanh_float(const float* in, float* out, std::int64_t n);

/// out = alpha * a @ b (+ out when `accumulate`), for 2-d a and b of one dtype and
/// an out with contiguous rows; floating types go through Eigen's GEMM.
void gemm(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha, bool accumulate);

/// A matrix in memory, for gemm_raw: element (i, j) at p[i * ld + j] when row-major, else at
/// p[i + j * ld] (a row-major matrix read as its transpose is column-major with the same ld).
template <class T>
struct MatrixRef {
  const T* p;
  std::int64_t ld;
  bool row_major;
  // The matrix whose (0, 0) is this one's (i, j).
  MatrixRef from(std::int64_t i, std::int64_t j) const {
    return {p + (row_major ? i * ld + j : i + j * ld), ld, row_major};
  }
};
/// out (n x m, row-major, leading dimension ldo) = a (n x k) @ b (k x m) (+ out when
/// `accumulate`), for T = float or double, on memory the caller owns: gemm without tensors,
/// for kernels that multiply pieces of their own buffers (a convolution, image by image). Cut
/// for the engine's threads as gemm is; inside a parallel region, on the calling thread alone.
template <class T>
void gemm_raw(T* out, std::int64_t ldo, MatrixRef<T> a, MatrixRef<T> b, std::int64_t n, std::int64_t m, std::int64_t k,
              bool accumulate);

/// The type integer arithmetic on A is done in so that it wraps around on overflow, as
/// PyTorch's does (two's complement: 2**62 + 2**62 is -2**63): the unsigned type of A's width,
/// since a signed overflow is undefined behaviour in C++. Floating types and bool are themselves.
template <class A>
struct WrappingOf {
  using type = A;
};
template <class A>
requires(std::is_integral_v<A> && !std::is_same_v<A, bool>) struct WrappingOf<A> {
  using type = std::make_unsigned_t<A>;
};
template <class A>
using Wrapping = typename WrappingOf<A>::type;

}  // namespace kindling::detail
