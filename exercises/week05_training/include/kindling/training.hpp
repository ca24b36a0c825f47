#pragma once
/// @file training.hpp
/// Week 5: everything a training loop needs beyond the model: losses, optimizers,
/// learning-rate schedules, gradient clipping, checkpoints, per-item seeds and the epoch loop.

#include <kindling/checkpoint.hpp>
#include <kindling/loss.hpp>
#include <kindling/lr_scheduler.hpp>
#include <kindling/optim.hpp>
#include <kindling/reproducibility.hpp>
#include <kindling/train_loop.hpp>
