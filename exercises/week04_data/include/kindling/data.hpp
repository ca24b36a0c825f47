#pragma once
/// @file data.hpp
/// Week 4 in one include: samplers (the DataLoader and datasets arrive with the rest of week 4).

#include <kindling/sampler.hpp>
