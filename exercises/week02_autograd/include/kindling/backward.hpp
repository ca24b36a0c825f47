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

/// The gradient backward() starts from, for `output` and the user's `gradient`
/// (undefined when the user passed none). Throws kindling::Error, word for word:
/// - `output` does not require grad:
///   "element 0 of tensors does not require grad and does not have a grad_fn"
/// - no gradient and output.numel() != 1:
///   "grad can be implicitly created only for scalar outputs"
/// - a gradient of another shape: "Mismatch in shape: grad_output[0] has a shape
///   of torch.Size([2]) and output[0] has a shape of torch.Size([3])." (shapes as
///   torch.Size, i.e. torch_size_string())
/// Otherwise: ones of output's shape and dtype, or `gradient` itself.
inline Tensor make_seed(const Tensor& output, const Tensor& gradient) {
  // BEGIN TASK week02.backward_seed (replace the stub below with your code)
  KINDLING_TODO("week02.backward_seed");
  // END TASK
}

}  // namespace kindling::autograd
