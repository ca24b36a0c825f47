#pragma once
/// @file data.hpp
/// Week 4 in one include: datasets, transforms, samplers, collate, the DataLoader
/// with worker threads, and pinned memory.

#include <kindling/collate.hpp>
#include <kindling/dataloader.hpp>
#include <kindling/dataset.hpp>
#include <kindling/mnist.hpp>
#include <kindling/pinned.hpp>
#include <kindling/sampler.hpp>
#include <kindling/transforms.hpp>
#include <kindling/worker_pool.hpp>
