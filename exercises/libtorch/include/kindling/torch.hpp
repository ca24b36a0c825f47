#pragma once
/// @file torch.hpp
/// LibTorch's spellings over Kindling's engine: `#include <kindling/torch.hpp>` in place of
/// `#include <torch/torch.h>`, and a program written for LibTorch's C++ frontend compiles
/// against Kindling, within the subset listed in docs/libtorch.md.
///
/// Everything here translates; nothing computes. `torch::` sees all of `kindling::` (its
/// tensors, factories, operations, autograd), and adds what LibTorch spells differently:
/// options with `requires_grad`, the dtype and device constants, module holders
/// (`torch::nn::Linear fc{nullptr}`, `fc->weight`, `fc(x)`, `TORCH_MODULE`), options builders
/// (`Conv2dOptions(1, 10, 5).stride(2)`, `SGDOptions(0.01).momentum(0.5)`), the ATen functions
/// at `torch::` (`nll_loss` with `Reduction::Sum`, `max_pool2d`, `dropout`), and the data
/// pipeline of `torch::data` (`MNIST`, `.map(Normalize<>(...))`, `.map(Stack<>())`,
/// `make_data_loader`, batches with `.data` and `.target`).
///
/// Kindling's own names stay the teaching API (modules are values you hold in a
/// std::shared_ptr; optimizers take a Config struct; the DataLoader takes a dataset pointer
///
/// The layer is split as LibTorch's headers are, each part small: kindling/torch/tensor.hpp
/// (torch::, dtypes, devices, ATen functions, autograd, cuda), nn.hpp (module holders, options),
/// layers.hpp, rnn.hpp, functional.hpp, optim.hpp, data.hpp, serialize.hpp (torch::save,
/// torch::load) and utils.hpp. This file includes them all.

#include <kindling/torch/data.hpp>
#include <kindling/torch/functional.hpp>
#include <kindling/torch/layers.hpp>
#include <kindling/torch/nn.hpp>
#include <kindling/torch/optim.hpp>
#include <kindling/torch/rnn.hpp>
#include <kindling/torch/serialize.hpp>
#include <kindling/torch/tensor.hpp>
#include <kindling/torch/utils.hpp>
