// Task week02.engine_order. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week02.engine_order`.

#include <kindling/engine.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::autograd {

/// For every node reachable from `roots` through next_edges(), the number of
/// edges that point at it from reachable nodes (its dependencies). A node reached
/// only from the roots themselves has none. Walk the graph with an explicit
/// stack (no recursion) and visit each node once (a diamond shares nodes).
std::unordered_map<Node*, int> compute_dependencies(const std::vector<Node*>& roots) {
  // BEGIN TASK week02.engine_order (replace the stub below with your code)
  KINDLING_TODO("week02.engine_order");
  // END TASK
}

}  // namespace kindling::autograd

namespace kindling::autograd {

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
void execute_graph(const std::vector<Edge>& roots, const TensorList& grads, bool keep_graph) {
  // BEGIN TASK week02.engine_order (replace the stub below with your code)
  KINDLING_TODO("week02.engine_order");
  // END TASK
}

}  // namespace kindling::autograd
