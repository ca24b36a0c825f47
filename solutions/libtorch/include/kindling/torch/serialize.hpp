#pragma once
/// @file torch/serialize.hpp
/// LibTorch's torch::save and torch::load over Kindling's checkpoints (safetensors, week 5). Part
/// of <kindling/torch.hpp>.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <kindling/torch/nn.hpp>
#include <kindling/torch/optim.hpp>
#include <kindling/training.hpp>

// ---- save and load -----------------------------------------------------------------------------------------
namespace torch {
/// torch::save(module, path): its parameters and buffers in Kindling's checkpoint format
/// (safetensors; week 5), which torch::load and kindling::load_checkpoint read.
template <class Impl>
void save(const nn::ModuleHolder<Impl>& module, const std::string& path) {
  ::kindling::serialize::save_checkpoint(path, *module, nullptr, 0);
}
/// torch::load(module, path): what torch::save wrote, into the module (every key must fit).
template <class Impl>
void load(const nn::ModuleHolder<Impl>& module, const std::string& path) {
  ::kindling::serialize::load_checkpoint(path, *module, nullptr);
}
/// torch::save(optimizer, path): its state dict in PyTorch's layout (week 5's checkpoint, without
/// a model).
inline void save(::kindling::optim::Optimizer& optimizer, const std::string& path) {
  ::kindling::serialize::TrainingState state;
  state.optimizer = &optimizer;
  ::kindling::serialize::save_checkpoint(path, state);
}
/// torch::load(optimizer, path): what torch::save(optimizer, path) wrote.
inline void load(::kindling::optim::Optimizer& optimizer, const std::string& path) {
  ::kindling::serialize::TrainingState state;
  state.optimizer = &optimizer;
  ::kindling::serialize::load_checkpoint(path, state);
}
/// torch::save(tensor, path): one tensor, named "tensor", in a safetensors file.
inline void save(const Tensor& t, const std::string& path) {
  ::kindling::serialize::FileContents contents;
  contents.tensors["tensor"] = t.detach().cpu().contiguous();
  ::kindling::serialize::save_file(path, contents);
}
/// torch::load(tensor, path): what torch::save(tensor, path) wrote.
inline void load(Tensor& t, const std::string& path) {
  t = ::kindling::serialize::load_file(path).tensors.at("tensor");
}
}  // namespace torch
