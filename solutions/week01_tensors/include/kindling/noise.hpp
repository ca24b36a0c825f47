#pragma once
/// @file noise.hpp
/// Additive noise of a given standard deviation, Gaussian or uniform, and the
/// Pearson correlation that measures how much of the signal survives it.
///
/// `x + std * randn_like(x)` is the usual way to add noise. Uniform noise of the
/// same standard deviation spans a wider interval than [-std, std]. At equal
/// variance the two leave the same correlation with the signal; they differ in
/// what else they leave (see the lecture's section on noise).
/// (Task week01.noise: the contracts and the code are in src/tasks/noise.cpp.)

#include <kindling/generator.hpp>
#include <kindling/tensor.hpp>

namespace kindling {

/// The distribution of the noise add_noise draws.
enum class NoiseKind {
  Gaussian,  ///< normal, mean 0: randn_like scaled by the standard deviation
  Uniform,   ///< uniform on an interval [-a, a) of the same variance
};

/// x plus noise of mean 0 and standard deviation `stddev`, drawn from `generator`
/// (the default generator when null): a new tensor of x's shape and dtype.
Tensor add_noise(const Tensor& x, double stddev, NoiseKind kind, Generator* generator = nullptr);

/// The Pearson correlation of a's and b's elements, paired in row-major order:
/// `torch.corrcoef(torch.stack([a.flatten(), b.flatten()]))[0, 1]`.
double correlation(const Tensor& a, const Tensor& b);

}  // namespace kindling
