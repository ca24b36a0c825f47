#pragma once
/// @file autograd.hpp
/// Week 2 in one include: reverse-mode automatic differentiation.
///
/// Tensor's autograd methods (requires_grad_, backward, grad, grad_fn,
/// register_hook, detach, ...) are declared in tensor.hpp and defined by this week.

#include <kindling/accumulate_grad.hpp>
#include <kindling/backward.hpp>
#include <kindling/copies.hpp>
#include <kindling/custom_function.hpp>
#include <kindling/dynamic_graph.hpp>
#include <kindling/engine.hpp>
#include <kindling/formulas.hpp>
#include <kindling/grad.hpp>
#include <kindling/gradcheck.hpp>
#include <kindling/hooks.hpp>
#include <kindling/inplace_check.hpp>
#include <kindling/kindling.hpp>
#include <kindling/no_grad.hpp>
#include <kindling/node.hpp>
#include <kindling/running_loss.hpp>
#include <kindling/saved_variable.hpp>
