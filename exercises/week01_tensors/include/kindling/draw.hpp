#pragma once
/// @file draw.hpp
/// Pictures of a tensor's layout, drawn by the engine itself: where each element of one or more
/// tensors that share a storage lives in it. `layout_svg({{"a", a}, {"a.t()", a.t()}})` returns
/// an SVG document (write it to a file and open it in a browser): the storage strip at the top,
/// one cell per element of the storage with its index and value, then each tensor's elements in
/// their logical arrangement (one row per index of the second-to-last dim, a block per index of
/// the dims before), each cell showing its value and the storage index it reads, in the colour of
/// that storage cell, with a caption of sizes, strides and offset. A transpose shows the same
/// colours in another order; an expand (stride 0) repeats a colour; a slice skips some.
///
/// (The autograd graph is drawn by week 2's <kindling/draw_graph.hpp>.)

#include <string>
#include <vector>

#include <kindling/tensor.hpp>

namespace kindling::draw {

/// One tensor to draw, and the name its caption gives it ("a.t()").
struct Named {
  std::string name;  ///< shown in the caption
  Tensor tensor;     ///< a CPU tensor of at most 3 dims and 64 elements
};

/// The most elements layout_svg() draws for one tensor, and the most storage elements.
inline constexpr std::int64_t kMaxDrawnElements = 64;

/// An SVG picture of `tensors` over their common storage (see the file's comment). Throws
/// kindling::Error when the list is empty, when the tensors do not all share one storage, when
/// one is not on the CPU, has more than 3 dims, or has (or its storage has) more than
/// kMaxDrawnElements elements. Deterministic: the same tensors give the same bytes.
std::string layout_svg(const std::vector<Named>& tensors);

/// One bar of a timeline: `lane` is its row (by name, rows in order of first appearance), from
/// `start` to `end` (any unit, the same for all bars), with a short `label` inside and a colour
/// chosen by `group` (bars of one group share a colour: the same batch in the worker that loads it
/// and in the loop that trains on it).
struct Bar {
  std::string lane;   ///< the row it is drawn in ("worker 0", "loop")
  double start = 0;   ///< where it starts
  double end = 0;     ///< where it ends (>= start)
  std::string label;  ///< a few characters drawn inside ("b3")
  int group = 0;      ///< its colour (negative: grey, for waiting)
};

/// An SVG timeline (a Gantt chart) of `bars`, with `title` above and an axis in `unit` below.
/// Throws kindling::Error for no bars or a bar that ends before it starts. Deterministic.
std::string timeline_svg(const std::string& title, const std::vector<Bar>& bars, const std::string& unit);

}  // namespace kindling::draw
