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

/// For every node reachable from `roots` through next_edges(), the number of edges that point at it
/// from reachable nodes (its dependencies).
/// (Task week02.engine_order: the contract and the code are in src/tasks/engine_order.cpp.)
std::unordered_map<Node*, int> compute_dependencies(const std::vector<Node*>& roots);

/// Runs backward from `roots` (edge i receives gradient `grads[i]`): 1.
/// (Task week02.engine_order: the contract and the code are in src/tasks/engine_order.cpp.)
void execute_graph(const std::vector<Edge>& roots, const TensorList& grads, bool keep_graph);

}  // namespace kindling::autograd
