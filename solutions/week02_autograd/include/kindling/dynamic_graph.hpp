#pragma once
/// @file dynamic_graph.hpp
/// A forward pass whose depth depends on the data: the dynamic graph.
///
/// PyTorch (and Kindling) build the graph while the forward pass runs, so an
/// ordinary C++ `while` or `if` decides which operations are recorded, and the
/// graph can differ on every call. The autograd tutorial's example doubles a
/// tensor until its norm is large enough; backward then runs through exactly as
/// many doublings as that input needed.

#include <kindling/tensor.hpp>

namespace kindling::autograd {

/// What double_until_norm recorded: the result and how many doublings it took.
struct DoublingResult {
  Tensor y;           ///< x * 2^doublings, with one recorded mul node per doubling
  int doublings = 0;  ///< number of times x was doubled (at least 1)
};

/// The autograd tutorial's dynamic graph:
/// `y = x * 2; while (norm(y) < limit) y = y * 2;`, returning y and the count.
/// (Task week02.dynamic_graph: the contract and the code are in src/tasks/dynamic_graph.cpp.)
DoublingResult double_until_norm(const Tensor& x, double limit);

}  // namespace kindling::autograd
