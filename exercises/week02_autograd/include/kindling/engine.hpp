#pragma once
/// @file engine.hpp
/// The backward engine: runs the graph from the roots to the leaves, each node
/// once, after every node that feeds it a gradient.
///
/// Note: the engine never recurses, so a chain of 100,000 nodes needs no more
/// stack than a chain of 3, and it touches each node and edge a constant number
/// of times, so the time is linear in the size of the graph. Its bookkeeping lives
/// in the nodes themselves (Node::engine), not in hash maps keyed by node: at a
/// million nodes a map lookup is a cache miss, and the chain benchmark's time per
/// node doubled from 10k to 100k nodes with maps. So two backward passes must not
/// run through the same nodes at the same time.

#include <cstdint>
#include <queue>
#include <vector>

#include <kindling/node.hpp>

namespace kindling::autograd {

/// Runs one node on its complete input gradient: the tensor hooks and
/// retain_grad of the tensor it produced, then apply(); frees its saved tensors
/// unless `keep_graph`, and returns one gradient per next edge (undefined where
/// none flows), each already reduced to its input's shape and dtype. Pass the
/// gathered gradient with std::move when nothing else needs it: a leaf's
/// AccumulateGrad can then keep it as `.grad` instead of copying it. Given.
TensorList call_node(Node& node, Tensor grad, bool keep_graph);

/// Adds `grad` into a node's input slot (the slot may still be undefined). Given.
void add_to_slot(Tensor& slot, const Tensor& grad);

/// A fresh pass number for compute_dependencies, never returned before (thread-safe).
/// Given.
std::uint64_t new_backward_pass();

/// Counts, in each reachable node's `engine` state, the edges that point at it from
/// reachable nodes (its dependencies), and returns the reachable nodes, roots first.
/// (Task week02.engine_order: the contract and the code are in src/tasks/engine_order.cpp.)
std::vector<Node*> compute_dependencies(const std::vector<Node*>& roots, std::uint64_t pass);

/// Runs backward from `roots` (edge i receives gradient `grads[i]`): each reachable
/// node once, after every node that feeds it.
/// (Task week02.engine_order: the contract and the code are in src/tasks/engine_order.cpp.)
void execute_graph(const std::vector<Edge>& roots, const TensorList& grads, bool keep_graph);

}  // namespace kindling::autograd
