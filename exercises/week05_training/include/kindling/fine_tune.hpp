#pragma once
/// @file fine_tune.hpp
/// Fine-tuning's first step as one function (the task week05.fine_tune): freeze a trained network,
/// put a new head in place of its last layer, and say which tensors the optimizer should get.

#include <string>
#include <vector>

#include <kindling/module.hpp>

namespace kindling::train {

/// Replaces the child `head_name` of `model` with `new_head` as Module::replace_module does (same
/// position; the old head's parameters leave the model); freezes every parameter the model then
/// has (requires_grad false: backward computes no gradient for it and leaves its `.grad` as it
/// was); and makes every parameter of `new_head` require grad, even one that came frozen. Returns
/// the tensors to hand the optimizer: exactly `new_head`'s parameters, in its parameters() order.
/// A `model` without a child `head_name` throws kindling::IndexError (PyTorch's KeyError) and
/// changes nothing: no parameter is frozen.
std::vector<Tensor> freeze_and_replace_head(nn::Module& model, const std::string& head_name, nn::ModulePtr new_head);

}  // namespace kindling::train
