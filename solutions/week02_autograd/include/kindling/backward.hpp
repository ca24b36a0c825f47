#pragma once
/// @file backward.hpp
/// What `loss.backward()` and `y.backward(v)` start from.
///
/// Backward computes vᵀJ: the gradient v of some scalar with respect to the
/// output, times the output's Jacobian. For a scalar loss, v is 1 and can be
/// made up; for a non-scalar output y there is no natural v, so the caller must
/// pass one: `y.backward(v)` gives each leaf x the gradient vᵀ(∂y/∂x).

#include <kindling/factory.hpp>
#include <kindling/node.hpp>

namespace kindling::autograd {

/// `torch.Size([2, 3])`, the way PyTorch prints a shape in messages.
inline std::string torch_size_string(IntArrayRef sizes) {
  std::string s = "torch.Size([";
  for (std::size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "])";
}

/// The gradient backward() starts from, for `output` and the user's `gradient` (undefined when the
/// user passed none).
/// (Task week02.backward_seed: the contract and the code are in src/tasks/backward_seed.cpp.)
Tensor make_seed(const Tensor& output, const Tensor& gradient);

}  // namespace kindling::autograd
