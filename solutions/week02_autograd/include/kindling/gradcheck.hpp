#pragma once
/// @file gradcheck.hpp
/// Checking a backward formula against finite differences.

#include <functional>

#include <kindling/tensor.hpp>

namespace kindling::autograd {

/// Options for gradcheck.
struct GradcheckOptions {
  double eps = 1e-6;   ///< finite-difference step
  double atol = 1e-5;  ///< absolute tolerance
  double rtol = 1e-3;  ///< relative tolerance
};

/// Compares the analytic Jacobian of `f` (from backward, one output element at a
/// time) with central differences (f(x + eps) - f(x - eps)) / 2eps, for every
/// input that requires grad. Inputs must be float64 (float32 differences are too
/// coarse). Returns true when all entries agree within atol + rtol * |numerical|;
/// otherwise throws kindling::Error "Jacobian mismatch for output 0 with respect
/// to input 1, element 3 (input index [1, 0]) from output element 2: numerical
/// 0.5, analytical 0.25". Inputs are restored afterwards.
bool gradcheck(const std::function<Tensor(const TensorList&)>& f, const TensorList& inputs,
               GradcheckOptions options = {});

/// gradcheck of the gradient itself: the second derivatives of `f` that a backward with
/// create_graph records, against central differences of its first derivatives (PyTorch's
/// gradgradcheck). For each input x that requires grad, checks the function
/// x -> autograd::grad(f(x), inputs, v, create_graph=true), with a fixed random `v` of f's
/// shape (seeded, so a failure repeats); errors name "second derivative" in place of
/// gradcheck's "Jacobian".
bool gradgradcheck(const std::function<Tensor(const TensorList&)>& f, const TensorList& inputs,
                   GradcheckOptions options = {});

}  // namespace kindling::autograd
