#pragma once
/// @file training.hpp
/// Week 5: everything a training loop needs beyond the model: losses, optimizers,
/// learning-rate schedules, gradient clipping and checkpoints.

#include <kindling/checkpoint.hpp>
#include <kindling/loss.hpp>
#include <kindling/lr_scheduler.hpp>
#include <kindling/optim.hpp>
