#pragma once
/// @file grad.hpp
/// Gradients as values, and gradients of gradients: `autograd::grad` and `backward` with
/// `create_graph`, as in PyTorch 1.13 (`torch.autograd.grad`, `torch::autograd::grad`).
///
/// With `create_graph`, the engine runs each backward formula with recording on, so the
/// gradients it returns (or leaves in `.grad`) have a graph of their own: a Hessian-vector
/// product is the gradient of (∇f · v), a gradient penalty the gradient of a norm of ∇f.
///
/// Note: a leaf's `.grad` written by `backward(..., create_graph=true)` holds a graph that
/// reaches back to the leaf: a reference cycle (PyTorch warns of the same one). Prefer
/// `autograd::grad`, which writes no `.grad`, or reset `.grad` when done.
#include <optional>

#include <kindling/tensor.hpp>

namespace kindling::autograd {

/// The gradients of `outputs` (weighted by `grad_outputs`, one per output; none: ones for
/// scalar outputs) with respect to `inputs`, returned in input order; no `.grad` is touched,
/// and only the part of the graph between them runs. `retain_graph` defaults to
/// `create_graph`. An input the outputs do not depend on has an undefined gradient with
/// `allow_unused`, and is an error otherwise. PyTorch's errors, word for word:
/// "One of the differentiated Tensors does not require grad", "One of the differentiated
/// Tensors appears to not have been used in the graph. Set allow_unused=True if this is the
/// desired behavior.", "got 2 tensors and 1 gradients".
TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs = {},
                std::optional<bool> retain_graph = std::nullopt, bool create_graph = false, bool allow_unused = false);

/// backward() of several tensors at once, each with its gradient (PyTorch's
/// torch.autograd.backward): their gradients add up in the leaves' `.grad`.
void backward(const TensorList& tensors, const TensorList& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false);

}  // namespace kindling::autograd
