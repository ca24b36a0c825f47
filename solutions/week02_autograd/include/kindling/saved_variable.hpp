#pragma once
/// @file saved_variable.hpp
/// The version check that protects saved tensors.
///
/// A node saves the tensors its formula needs (MulBackward0 keeps both factors,
/// SigmoidBackward0 keeps its result). If one of them is overwritten in place
/// before backward, the formula would compute with the wrong values; the
/// version counter that every in-place op bumps lets unpack() notice instead.

#include <sstream>

#include <kindling/node.hpp>

namespace kindling::autograd {

/// PyTorch's message for a saved tensor that a backward without retain_graph freed.
inline constexpr const char* kFreedGraphMessage =
    "Trying to backward through the graph a second time (or directly access saved tensors after they have "
    "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if "
    "you need to access saved tensors after calling backward.";

}  // namespace kindling::autograd
