// MUTANT: counts an edge as done only when a defined gradient flows, so nodes past an undefined one never run
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
  // BEGIN SOLUTION week02.engine_order
  std::vector<Node*> reached;
  reached.reserve(16);  // a small graph then grows it once, not five times
  auto reach = [&](Node* node) {
    if (node->engine.pass == pass) return false;
    node->engine = {pass, 0, Tensor()};
    reached.push_back(node);
    return true;
  };
  for (Node* root : roots) reach(root);
  std::vector<Node*> stack(reached.begin(), reached.end());
  stack.reserve(16);
  while (!stack.empty()) {
    Node* node = stack.back();
    stack.pop_back();
    for (const Edge& edge : node->next_edges()) {
      Node* next = edge.fn.get();
      if (next == nullptr) continue;
      if (reach(next)) stack.push_back(next);
      ++next->engine.dependencies;
    }
  }
  return reached;
  // END SOLUTION
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
  // BEGIN SOLUTION week02.engine_order
  std::vector<Node*> starts;
  for (const Edge& e : roots)
    if (e.valid()) starts.push_back(e.fn.get());
  const std::vector<Node*> reached = compute_dependencies(starts, new_backward_pass());
  // A pass that completes leaves no gradient behind: every reached node runs once, and
  // its gradient is moved out when it does. Only an exception (a hook may throw) can
  // leave some, so only then does this walk all the nodes once more (on a graph that
  // does not fit in the cache, one more walk costs as much as a tenth of the pass).
  struct ClearOnThrow {
    const std::vector<Node*>& nodes;
    int exceptions = std::uncaught_exceptions();
    ~ClearOnThrow() {
      if (std::uncaught_exceptions() > exceptions)
        for (Node* node : nodes) node->engine.gradient = Tensor();
    }
  } clear_on_throw{reached};
  for (std::size_t i = 0; i < roots.size(); ++i)
    if (roots[i].valid()) add_to_slot(roots[i].fn->engine.gradient, grads[i]);
  auto later_first = [](const Node* a, const Node* b) { return a->sequence_nr() < b->sequence_nr(); };
  std::priority_queue<Node*, std::vector<Node*>, decltype(later_first)> ready(later_first);
  std::sort(starts.begin(), starts.end());
  const auto distinct_roots = std::unique(starts.begin(), starts.end()) - starts.begin();
  for (std::ptrdiff_t i = 0; i < distinct_roots; ++i)  // reached begins with the roots, each once
    if (reached[static_cast<std::size_t>(i)]->engine.dependencies == 0)
      ready.push(reached[static_cast<std::size_t>(i)]);
  while (!ready.empty()) {
    Node* node = ready.top();
    ready.pop();
    // Moved out (the node keeps none), and handed over: a leaf can keep it as .grad.
    const TensorList outputs = call_node(*node, std::move(node->engine.gradient), keep_graph);
    for (std::size_t i = 0; i < node->num_inputs(); ++i) {
      Node* next = node->next_edges()[i].fn.get();
      if (next == nullptr) continue;
      if (i < outputs.size() && outputs[i].defined()) {
        add_to_slot(next->engine.gradient, outputs[i]);
        if (--next->engine.dependencies == 0) ready.push(next);
      }
    }
  }
  // END SOLUTION
}

}  // namespace kindling::autograd
