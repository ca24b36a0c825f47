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
  // BEGIN SOLUTION week02.engine_order
  std::unordered_map<Node*, int> deps;
  std::unordered_set<Node*> seen(roots.begin(), roots.end());
  std::vector<Node*> stack(roots.begin(), roots.end());
  while (!stack.empty()) {
    Node* node = stack.back();
    stack.pop_back();
    for (const Edge& edge : node->next_edges()) {
      if (!edge.valid()) continue;
      ++deps[edge.fn.get()];
      if (seen.insert(edge.fn.get()).second) stack.push_back(edge.fn.get());
    }
  }
  return deps;
  // END SOLUTION
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
  // BEGIN SOLUTION week02.engine_order
  std::vector<Node*> starts;
  for (const Edge& e : roots)
    if (e.valid()) starts.push_back(e.fn.get());
  auto deps = compute_dependencies(starts);
  std::unordered_map<Node*, Tensor> slots;
  auto later_first = [](const Node* a, const Node* b) { return a->sequence_nr() < b->sequence_nr(); };
  std::priority_queue<Node*, std::vector<Node*>, decltype(later_first)> ready(later_first);
  std::unordered_set<Node*> queued;
  for (std::size_t i = 0; i < roots.size(); ++i)
    if (roots[i].valid()) add_to_slot(slots[roots[i].fn.get()], grads[i]);
  for (Node* node : starts)
    if (deps[node] == 0 && queued.insert(node).second) ready.push(node);
  while (!ready.empty()) {
    Node* node = ready.top();
    ready.pop();
    Tensor grad = std::move(slots[node]);
    slots.erase(node);
    const TensorList outputs = call_node(*node, grad, keep_graph);
    for (std::size_t i = 0; i < node->num_inputs(); ++i) {
      Node* next = node->next_edges()[i].fn.get();
      if (next == nullptr) continue;
      if (i < outputs.size() && outputs[i].defined()) add_to_slot(slots[next], outputs[i]);
      if (--deps[next] == 0) ready.push(next);
    }
  }
  // END SOLUTION
}

}  // namespace kindling::autograd
