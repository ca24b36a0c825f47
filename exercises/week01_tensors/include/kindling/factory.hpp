#pragma once
/// @file factory.hpp
/// Functions that make new tensors: zeros, ones, arange, rand, tensor(...), from_blob.

#include <functional>
#include <initializer_list>
#include <optional>
#include <vector>

#include <kindling/generator.hpp>
#include <kindling/tensor.hpp>

namespace kindling {

/// Options for a new tensor, like LibTorch's TensorOptions. Converts from a
/// ScalarType, so `zeros({2}, kInt64)` works; chain `TensorOptions().dtype(kFloat64)`.
struct TensorOptions {
  std::optional<ScalarType> dtype_;  ///< unset: the factory's default
  Device device_ = kCPU;             ///< the device (CPU unless given; week 6 adds CUDA)
  bool device_given_ = false;        ///< true when a device was given (the *_like factories keep t's otherwise)
  /// Default options.
  TensorOptions() = default;
  /// Options with a dtype.
  TensorOptions(ScalarType t) : dtype_(t) {}  // NOLINT(google-explicit-constructor)
  /// Options with a device.
  TensorOptions(Device d) : device_(d), device_given_(true) {}  // NOLINT(google-explicit-constructor)
  /// Options with a device type (`zeros({2}, kCUDA)`, as in LibTorch).
  TensorOptions(DeviceType t) : TensorOptions(Device(t)) {}  // NOLINT(google-explicit-constructor)
  /// A copy with the dtype set.
  TensorOptions dtype(ScalarType t) const {
    TensorOptions o = *this;
    o.dtype_ = t;
    return o;
  }
  /// A copy with the device set.
  TensorOptions device(Device d) const {
    TensorOptions o = *this;
    o.device_ = d;
    o.device_given_ = true;
    return o;
  }
  /// The device, or `fallback` when none was given.
  Device device_or(Device fallback) const { return device_given_ ? device_ : fallback; }
  /// The dtype, or `fallback` when unset.
  ScalarType dtype_or(ScalarType fallback) const { return dtype_.value_or(fallback); }
};

/// Uninitialised contiguous tensor.
Tensor empty(IntArrayRef sizes, TensorOptions options = {});
/// Tensor of zeros.
Tensor zeros(IntArrayRef sizes, TensorOptions options = {});
/// Tensor of ones.
Tensor ones(IntArrayRef sizes, TensorOptions options = {});
/// Tensor filled with `value`; without a dtype it follows the value (bool, int64 or float32).
Tensor full(IntArrayRef sizes, const Scalar& value, TensorOptions options = {});
/// 0, 1, ..., end-1 (int64 for integer arguments, else float32).
Tensor arange(const Scalar& end, TensorOptions options = {});
/// start, start+step, ... up to but excluding end.
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1, TensorOptions options = {});
/// `steps` evenly spaced values from start to end inclusive.
/// (Task week01.linspace: the contract and the code are in src/tasks/linspace.cpp.)
Tensor linspace(double start, double end, std::int64_t steps, TensorOptions options = {});
/// Uniform samples in [0, 1).
Tensor rand(IntArrayRef sizes, TensorOptions options = {}, Generator* generator = nullptr);
/// Standard normal samples.
Tensor randn(IntArrayRef sizes, TensorOptions options = {}, Generator* generator = nullptr);
/// Integers uniform in [low, high) (int64 by default).
Tensor randint(std::int64_t low, std::int64_t high, IntArrayRef sizes, TensorOptions options = {},
               Generator* generator = nullptr);
/// Integers uniform in [0, high).
Tensor randint(std::int64_t high, IntArrayRef sizes, TensorOptions options = {}, Generator* generator = nullptr);
/// A random permutation of 0..n-1 (int64).
Tensor randperm(std::int64_t n, TensorOptions options = {}, Generator* generator = nullptr);

/// A tensor over memory the caller owns; nothing is copied. `deleter`, if any,
/// runs when the last view is gone. Strides default to contiguous.
Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options = {}, std::function<void(void*)> deleter = {});
/// from_blob with explicit strides: the C++ side of torch.from_numpy, a tensor over
/// the caller's memory, which writes through either side show. Task week01.from_blob:
/// the full contract is the doc comment in src/tasks/from_blob.cpp.
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, TensorOptions options = {},
                 std::function<void(void*)> deleter = {});

/// `torch.empty_like`: an uninitialised tensor with the sizes and dtype (unless
/// `options` sets one) of `t`, in new storage, laid out in memory in t's order
/// (PyTorch's preserve_format: t's own strides when t is dense, else dense strides in
/// t's stride order). Task week01.empty_like: the full contract is the doc comment
/// in src/tasks/empty_like.cpp.
Tensor empty_like(const Tensor& t, TensorOptions options = {});
/// zeros with the sizes and dtype (unless given) of `t`. Row-major, unlike PyTorch's,
/// which keeps t's layout as empty_like does (Kindling's autograd calls this on every
/// backward pass, so it does not wait for the task week01.empty_like).
Tensor zeros_like(const Tensor& t, TensorOptions options = {});
/// ones with the sizes and dtype of `t` (row-major, as zeros_like).
Tensor ones_like(const Tensor& t, TensorOptions options = {});
/// full with the sizes and dtype (not the value's) of `t` (row-major, as zeros_like).
Tensor full_like(const Tensor& t, const Scalar& value, TensorOptions options = {});
/// rand with the sizes and dtype of `t` (row-major, as zeros_like).
Tensor rand_like(const Tensor& t, TensorOptions options = {}, Generator* generator = nullptr);
/// randn with the sizes and dtype of `t` (row-major, as zeros_like).
Tensor randn_like(const Tensor& t, TensorOptions options = {}, Generator* generator = nullptr);

/// A nested braced list of numbers, the argument of kindling::tensor:
/// `tensor({{1, 2}, {3, 4}})`.
class NestedList {
 public:
  /// A single number.
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  NestedList(T v) : value_(v), is_leaf_(true) {}  // NOLINT(google-explicit-constructor)
  /// A list of nested lists.
  NestedList(std::initializer_list<NestedList> items) : items_(items) {}
  /// True for a number, false for a list.
  bool is_leaf() const { return is_leaf_; }
  /// The number (leaves only).
  const Scalar& value() const { return value_; }
  /// The elements (lists only).
  const std::vector<NestedList>& items() const { return items_; }

 private:
  Scalar value_;
  bool is_leaf_ = false;
  std::vector<NestedList> items_;
};

/// A tensor from nested lists, like torch.tensor. The dtype follows the values
/// (bool, int64, or float32 if any is floating) unless `options` sets one.
/// Ragged lists throw ValueError "expected sequence of length 2 at dim 1 (got 3)".
Tensor tensor(const NestedList& data, TensorOptions options = {});
/// A 1-d tensor from a vector.
template <class T>
Tensor tensor(const std::vector<T>& values, TensorOptions options = {}) {
  Tensor t = empty({static_cast<std::int64_t>(values.size())}, options.dtype_or(dtype_of<T>()));
  visit_dtype(t.dtype(), [&](auto tag) {
    using S = typename decltype(tag)::type;
    S* out = static_cast<S*>(t.data_ptr());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<S>(values[i]);
  });
  return t;
}
/// A 0-d tensor holding `value` (its dtype as for full).
Tensor scalar_tensor(const Scalar& value, TensorOptions options = {});

}  // namespace kindling
