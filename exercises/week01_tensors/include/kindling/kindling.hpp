#pragma once
/// @file kindling.hpp
/// Everything in one include.

#include <kindling/casts.hpp>
#include <kindling/deterministic.hpp>
#include <kindling/eigh.hpp>
#include <kindling/factory.hpp>
#include <kindling/indexing.hpp>
#include <kindling/join.hpp>
#include <kindling/linalg.hpp>
#include <kindling/noise.hpp>
#include <kindling/ops.hpp>
#include <kindling/parallel.hpp>
#include <kindling/tensor.hpp>
