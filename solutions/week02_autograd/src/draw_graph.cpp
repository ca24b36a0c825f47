// graph_dot: the autograd graph as Graphviz DOT (draw_graph.hpp).

#include <map>
#include <sstream>

#include <kindling/accumulate_grad.hpp>
#include <kindling/draw_graph.hpp>
#include <kindling/engine.hpp>
#include <kindling/kindling.hpp>
#include <kindling/node.hpp>

namespace kindling::draw {
namespace {

std::string name_of(const Tensor& t, const GraphOptions& o) {
  for (const auto& [name, named] : o.names)
    if (named.defined() && named.is_same(t)) return name;
  return "";
}

// "[2, 3]", or "[2, 3] = [1, 2]" for a tensor of at most 4 elements (its values, one line).
std::string shape_and_values(const Tensor& t) {
  std::string s = to_string(t.sizes());
  if (t.numel() <= 4 && t.device().is_cpu()) {
    const Tensor flat = t.detach().reshape({-1}).to(kFloat64).contiguous();
    std::ostringstream v;
    v << " = [";
    for (std::int64_t i = 0; i < flat.numel(); ++i) v << (i ? ", " : "") << flat.data_ptr<double>()[i];
    v << "]";
    s += v.str();
  }
  return s;
}

// A DOT string: quotes and backslashes escaped, line breaks as DOT's \n.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string graph_dot(const Tensor& root, const GraphOptions& options) {
  std::ostringstream dot;
  dot << "digraph autograd {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=11];\n";
  const std::string root_name = name_of(root, options);
  const auto fn = root.grad_fn();
  // The root tensor itself, on top.
  dot << "  root [shape=ellipse, label="
      << quoted((root_name.empty() ? std::string("tensor") : root_name) + " " + to_string(root.sizes()) +
                (fn                     ? ""
                 : root.requires_grad() ? " (a leaf)"
                                        : " (not tracked by autograd)"))
      << "];\n";
  if (!fn) {
    dot << "}\n";
    return dot.str();
  }
  if (options.dependencies) (void)autograd::compute_dependencies({fn.get()}, autograd::new_backward_pass());
  // Depth-first from the root's node, numbering nodes as they are met; edges in input order.
  std::map<const autograd::Node*, int> id;
  std::vector<const autograd::Node*> order;
  std::vector<const autograd::Node*> stack{fn.get()};
  id[fn.get()] = 0;
  order.push_back(fn.get());
  std::ostringstream edges;
  while (!stack.empty()) {
    const autograd::Node* n = stack.back();
    stack.pop_back();
    std::vector<const autograd::Node*> fresh;
    for (const autograd::Edge& e : n->next_edges()) {
      if (!e.valid()) continue;
      const autograd::Node* next = e.fn.get();
      if (!id.count(next)) {
        id[next] = static_cast<int>(order.size());
        order.push_back(next);
        fresh.push_back(next);
      }
      edges << "  n" << id[n] << " -> n" << id[next] << ";\n";
    }
    for (auto it = fresh.rbegin(); it != fresh.rend(); ++it) stack.push_back(*it);  // first input first
  }
  for (const autograd::Node* n : order) {
    std::string label = n->name();
    if (const auto* acc = dynamic_cast<const autograd::AccumulateGrad*>(n)) {
      const Tensor& leaf = acc->variable();
      const std::string leaf_name = name_of(leaf, options);
      label += "\n" + (leaf_name.empty() ? std::string("leaf") : leaf_name) + " " + to_string(leaf.sizes());
      if (options.grads && leaf.grad().defined()) label += "\ngrad " + shape_and_values(leaf.grad());
    } else if (options.saved) {
      for (const autograd::SavedVariable& s : n->saved_variables()) {
        if (!s.defined()) continue;
        label += "\nsaved " + to_string(s.data().sizes()) + " v" + std::to_string(s.saved_version());
        if (s.current_version() != s.saved_version()) label += " -> v" + std::to_string(s.current_version());
      }
    }
    if (options.dependencies) label += "\nwaits for " + std::to_string(n->engine.dependencies);
    dot << "  n" << id[n] << " [label=" << quoted(label);
    if (dynamic_cast<const autograd::AccumulateGrad*>(n)) dot << ", style=filled, fillcolor=\"#dbeafe\"";
    dot << "];\n";
  }
  dot << "  root -> n0;\n" << edges.str() << "}\n";
  return dot.str();
}

}  // namespace kindling::draw
