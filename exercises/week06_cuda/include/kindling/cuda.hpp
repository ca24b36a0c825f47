#pragma once
/// @file cuda.hpp
/// Week 6 in one include: the device runtime, the caching allocator, the week's kernels and the
/// CUDA built-ins of the simulator (or of nvcc).

#include <kindling/cuda/caching_allocator.hpp>
#include <kindling/cuda/fixtures.hpp>
#include <kindling/cuda/kernels.hpp>
#include <kindling/cuda/runtime.hpp>
#include <kindling/device_hooks.hpp>
