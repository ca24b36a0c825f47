#pragma once
// Private pieces of week 3 shared by its source files.

#include <functional>
#include <string>
#include <vector>

#include <kindling/tensor.hpp>

#include "loop.hpp"  // KINDLING_OMP_FOR, parallel_threads

namespace kindling::nn::detail {

/// Makes `t` hold `value`'s data, dtype and geometry (Module::to): every handle
/// to `t` sees the change, as with PyTorch's `param.data = ...`.
void set_data(const Tensor& t, const Tensor& value);

/// The gradients of a week-3 kernel's inputs, given the gradient of its output
/// and the tensors it saved; one per input. `needs[i]` says whether input i wants
/// a gradient: skip the work (and return an undefined tensor) where it does not.
using BackwardFn =
    std::function<TensorList(const Tensor& grad, const TensorList& saved, const std::vector<bool>& needs)>;

/// Records a node named `name` (e.g. "ConvolutionBackward0") producing `out`,
/// when grad mode is on and an input requires grad. `saved` are kept with their
/// versions (an in-place change before backward is reported, as for week-2 ops).
/// `backward` must capture no tensors: everything it reads comes through `saved`.
void record_function(const char* name, const Tensor& out, const TensorList& inputs, const TensorList& saved,
                     BackwardFn backward);

/// Calls f(double{}) for a float64 tensor's kernel, f(float{}) otherwise (the
/// week-3 kernels take floating inputs only; callers check that first).
template <class F>
void visit_float(ScalarType t, F&& f) {
  if (t == kFloat64)
    f(double{});
  else
    f(float{});
}
/// "True" / "False".
inline std::string py_bool(bool b) { return b ? "True" : "False"; }

}  // namespace kindling::nn::detail
