#pragma once
/// @file draw_graph.hpp
/// The autograd graph of a tensor as Graphviz DOT, drawn by the engine itself in the manner of
/// torchviz: `graph_dot(loss, {.names = {{"w", w}, {"x", x}}})` returns a DOT document; render it
/// with Graphviz (`dot -Tsvg graph.dot -o graph.svg`, Debian's `graphviz` package) or paste it
/// into any DOT viewer. Each node of the graph that backward() from the tensor would walk is a box
/// with its name (PyTorch's: "MulBackward0"), the tensors it saved (shape and version: "saved
/// [3] v0", "v0 -> v1" when written in place since), and, when asked, the number of edges that
/// point at it (the engine's dependency count). A leaf's AccumulateGrad shows the leaf: its name
/// if given, its shape, and its `.grad` once backward() has filled it. Arrows run the way
/// gradients flow: from a node to the node of each of its inputs.

#include <string>
#include <utility>
#include <vector>

#include <kindling/tensor.hpp>

namespace kindling::draw {

/// What graph_dot() writes beside each node's name.
struct GraphOptions {
  /// Names for leaves (and for the root), matched by identity (Tensor::is_same).
  std::vector<std::pair<std::string, Tensor>> names;
  bool saved = true;          ///< each node's saved tensors, with their versions
  bool grads = true;          ///< each leaf's .grad (its values when at most 4 elements)
  bool dependencies = false;  ///< each node's count from the engine's compute_dependencies (week02.engine_order)
};

/// The graph of `root` as DOT (see the file's comment). A tensor without a grad_fn gives a graph of
/// its own node only: a leaf, or a tensor that autograd does not track. Deterministic: nodes are
/// numbered n0, n1, ... in the order a depth-first walk from the root meets them, and inputs in
/// input order.
std::string graph_dot(const Tensor& root, const GraphOptions& options = {});

}  // namespace kindling::draw
