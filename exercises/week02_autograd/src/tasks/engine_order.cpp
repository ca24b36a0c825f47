// Task week02.engine_order. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week02.engine_order`.

#include <algorithm>
#include <exception>

#include <kindling/engine.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::autograd {

/// Counts, for every node reachable from `roots` through next_edges(), the edges that
/// point at it from reachable nodes (its dependencies), in the node's own scratch space
/// `node->engine` (see Node::EngineState): the first time this pass reaches a node,
/// reset its engine state to {pass, 0, no gradient}; then add one for every edge into
/// it. A node reached only from the roots themselves has 0. Returns the reachable
/// nodes, each once: the roots first, in the order given (a root listed twice
/// appears once), then the others in the order they were first reached. State left
/// in a node by an earlier pass (another `pass` number) is stale and must not count.
/// Walk the graph with an explicit stack (no recursion) and visit each node once (a
/// diamond shares nodes).
std::vector<Node*> compute_dependencies(const std::vector<Node*>& roots, std::uint64_t pass) {
  // BEGIN TASK week02.engine_order (replace the stub below with your code)
  KINDLING_TODO("week02.engine_order");
  // END TASK
}

}  // namespace kindling::autograd

namespace kindling::autograd {

/// Runs backward from `roots` (edge i receives gradient `grads[i]`):
/// 1. take a fresh pass number from new_backward_pass() and compute_dependencies of
///    the root nodes with it;
/// 2. add each root's gradient into its node's `engine.gradient` (add_to_slot) and
///    make the roots that nothing else feeds ready;
/// 3. while a node is ready: take the ready node with the highest sequence_nr()
///    (the most recently created, as PyTorch does), call_node() on its gathered
///    gradient, handed over with std::move (the node keeps none, and a leaf's
///    AccumulateGrad can adopt it as .grad without a copy), add each defined result into
///    the `engine.gradient` of the matching next edge's node, and count that edge as
///    done: a node is ready when all its dependencies are done, whether or not
///    gradients arrived (a node whose gradient stays undefined still runs, so the
///    nodes after it are released too).
/// On the way out, normally or by an exception (a hook may throw), no reached node
/// may keep a gradient in `engine.gradient`: it would keep tensors, and with
/// create_graph their history, alive after backward.
void execute_graph(const std::vector<Edge>& roots, const TensorList& grads, bool keep_graph) {
  // BEGIN TASK week02.engine_order (replace the stub below with your code)
  KINDLING_TODO("week02.engine_order");
  // END TASK
}

}  // namespace kindling::autograd
