#pragma once
/// @file engine.hpp
/// The backward engine: runs the graph from the roots to the leaves, each node
/// once, after every node that feeds it a gradient.
///
/// Note: the engine never recurses, so a chain of 100,000 nodes needs no more
/// stack than a chain of 3, and it touches each node and edge a constant number
/// of times, so the time is linear in the size of the graph.

#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <kindling/node.hpp>

namespace kindling::autograd {

/// Runs one node on its complete input gradient: the tensor hooks and
/// retain_grad of the tensor it produced, then apply(); frees its saved tensors
/// unless `keep_graph`, and returns one gradient per next edge (undefined where
/// none flows), each already reduced to its input's shape and dtype. Given.
TensorList call_node(Node& node, const Tensor& grad, bool keep_graph);

/// Adds `grad` into a node's input slot (the slot may still be undefined). Given.
void add_to_slot(Tensor& slot, const Tensor& grad);

/// For every node reachable from `roots` through next_edges(), the number of
/// edges that point at it from reachable nodes (its dependencies). A node reached
/// only from the roots themselves has none. Walk the graph with an explicit
/// stack (no recursion) and visit each node once (a diamond shares nodes).
inline std::unordered_map<Node*, int> compute_dependencies(const std::vector<Node*>& roots) {
  // BEGIN TASK week02.engine_order (replace the stub below with your code)
  KINDLING_TODO("week02.engine_order");
  // END TASK
}

/// Runs backward from `roots` (edge i receives gradient `grads[i]`):
/// 1. compute_dependencies of the root nodes;
/// 2. put each root's gradient in its slot (add_to_slot; one slot per node) and
///    make the roots that nothing else feeds ready;
/// 3. while a node is ready: take the ready node with the highest sequence_nr()
///    (the most recently created, as PyTorch does), call_node() on its slot, add
///    each defined result into the slot of the matching next edge, and count the
///    edge as done: a node is ready when all its dependencies are done, whether
///    or not gradients arrived (a node whose slot stays undefined still runs, so
///    the nodes after it are released too).
inline void execute_graph(const std::vector<Edge>& roots, const TensorList& grads, bool keep_graph) {
  // BEGIN TASK week02.engine_order (replace the stub below with your code)
  KINDLING_TODO("week02.engine_order");
  // END TASK
}

}  // namespace kindling::autograd
