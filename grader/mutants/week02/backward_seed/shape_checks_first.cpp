// MUTANT: checks the scalar rule before requires_grad, so a non-scalar constant gets the scalar message
// Task week02.backward_seed. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week02.backward_seed`.

#include <kindling/backward.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::autograd {

/// The gradient backward() starts from, for `output` and the user's `gradient`
/// (undefined when the user passed none). Throws kindling::Error, word for word, in
/// PyTorch's order (the first that applies):
/// - a gradient of another shape: "Mismatch in shape: grad_output[0] has a shape
///   of torch.Size([2]) and output[0] has a shape of torch.Size([3])." (shapes as
///   torch.Size, i.e. torch_size_string()), whether or not output requires grad;
/// - `output` does not require grad:
///   "element 0 of tensors does not require grad and does not have a grad_fn"
/// - no gradient and output.numel() != 1:
///   "grad can be implicitly created only for scalar outputs"
/// Otherwise: ones of output's shape and dtype, or `gradient` itself.
Tensor make_seed(const Tensor& output, const Tensor& gradient) {
  // BEGIN SOLUTION week02.backward_seed
  if (gradient.defined())
    KINDLING_CHECK(gradient.sizes().equals(output.sizes()), "Mismatch in shape: grad_output[0] has a shape of ",
                   torch_size_string(gradient.sizes()), " and output[0] has a shape of ",
                   torch_size_string(output.sizes()), ".");
  if (!gradient.defined())
    KINDLING_CHECK(output.numel() == 1, "grad can be implicitly created only for scalar outputs");
  KINDLING_CHECK(output.requires_grad(), "element 0 of tensors does not require grad and does not have a grad_fn");
  if (!gradient.defined()) return ones_like(output);
  return gradient;
  // END SOLUTION
}

}  // namespace kindling::autograd
