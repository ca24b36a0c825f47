// The engine's pictures of the autograd graph (draw_graph.hpp): the DOT names every node the
// engine would run, its saved tensors with their versions, the leaves with their grads, and the
// engine's dependency counts when asked.

#include <gtest/gtest.h>

#include <string>

#include <kindling/draw_graph.hpp>
#include <kindling/kindling.hpp>
#include <kindling/no_grad.hpp>

namespace kindling {
namespace {

bool has(const std::string& dot, const std::string& what) { return dot.find(what) != std::string::npos; }

TEST(EngineDrawGraph, NamesEveryNodeEdgeAndLeaf) {
  const Tensor a = tensor({2.0f}).requires_grad_(), b = tensor({3.0f}).requires_grad_();
  const Tensor y = a * b + a;
  const draw::GraphOptions names{.names = {{"a", a}, {"b", b}, {"y", y}}};
  const std::string dot = draw::graph_dot(y, names);
  EXPECT_EQ(dot.rfind("digraph autograd {", 0), 0u);
  EXPECT_TRUE(has(dot, "root [shape=ellipse, label=\"y [1]\"];")) << dot;
  EXPECT_TRUE(has(dot, "n0 [label=\"AddBackward0\"];")) << dot;
  EXPECT_TRUE(has(dot, "n1 [label=\"MulBackward0\\nsaved [1] v0\\nsaved [1] v0\"];")) << dot;
  EXPECT_TRUE(has(dot, "label=\"torch::autograd::AccumulateGrad\\na [1]\"")) << dot;
  EXPECT_TRUE(has(dot, "label=\"torch::autograd::AccumulateGrad\\nb [1]\"")) << dot;
  // Edges in input order: the sum's inputs are a * b (n1) and a; the product's a and b.
  EXPECT_TRUE(has(dot, "root -> n0;\n  n0 -> n1;\n  n0 -> n2;\n  n1 -> n2;\n  n1 -> n3;\n")) << dot;
  EXPECT_EQ(dot, draw::graph_dot(y, names));  // deterministic

  y.backward();
  const std::string after = draw::graph_dot(y, names);
  EXPECT_TRUE(has(after, "a [1]\\ngrad [1] = [4]")) << after;
  EXPECT_TRUE(has(after, "b [1]\\ngrad [1] = [2]")) << after;
}

TEST(EngineDrawGraph, ShowsDependencyCountsAndInPlaceWritesToSavedTensors) {
  const Tensor a = tensor({2.0f}).requires_grad_();
  const Tensor h = a * 3;
  Tensor e = h.exp();  // ExpBackward0 saves its output
  const Tensor y = e + a;
  const std::string counts = draw::graph_dot(y, {.dependencies = true});
  EXPECT_TRUE(has(counts, "AddBackward0\\nwaits for 0")) << counts;
  EXPECT_TRUE(has(counts, "AccumulateGrad\\nleaf [1]\\nwaits for 2")) << counts;  // from the sum and the product
  {
    NoGradGuard no_grad;
    e.mul_(2);  // the saved output is written in place: the version check will refuse backward
  }
  EXPECT_TRUE(has(draw::graph_dot(y), "ExpBackward0\\nsaved [1] v0 -> v1")) << draw::graph_dot(y);
}

TEST(EngineDrawGraph, ATensorWithoutAGraphIsOneNode) {
  EXPECT_TRUE(has(draw::graph_dot(ones({2})), "label=\"tensor [2] (not tracked by autograd)\""));
  const Tensor w = ones({2, 3}).requires_grad_();
  const std::string dot = draw::graph_dot(w, {.names = {{"w", w}}});
  EXPECT_TRUE(has(dot, "label=\"w [2, 3] (a leaf)\"")) << dot;
  EXPECT_FALSE(has(dot, "->"));
}

}  // namespace
}  // namespace kindling
