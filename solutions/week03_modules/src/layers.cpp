// Constructors and printing of the given layers, containers and BatchNorm (the
// conv-BN fold is task week03.fold_conv_bn, in src/tasks/fold_conv_bn.cpp).

#include <kindling/nn.hpp>

#include "nn_internal.hpp"

namespace kindling::nn {

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(in_features) + ", out_features=" + std::to_string(out_features) +
         ", bias=" + detail::py_bool(bias.defined());
}

std::string LeakyReLU::extra_repr() const { return "negative_slope=" + detail::py_float_repr(negative_slope); }

Dropout::Dropout(double prob) : Module("Dropout"), p(prob) {
  KINDLING_CHECK_AS(ValueError, p >= 0.0 && p <= 1.0, "dropout probability has to be between 0 and 1, but got ",
                    detail::py_float_repr(p));
}

std::string Dropout::extra_repr() const { return "p=" + detail::py_float_repr(p) + ", inplace=False"; }

// ---- containers ---------------------------------------------------------------------------------------------------
// ModuleList's push_back and operator[], and ModuleDict's insert and operator[], are the task
// week03.module_list (src/tasks/module_list.cpp).
namespace {
std::size_t wrap_index(std::int64_t i, std::size_t size) {
  const auto n = static_cast<std::int64_t>(size);
  KINDLING_CHECK_AS(IndexError, i >= -n && i < n, "index ", i, " is out of range");
  return static_cast<std::size_t>(i < 0 ? i + n : i);
}
}  // namespace

Sequential::Sequential(const std::vector<std::pair<std::string, ModulePtr>>& named) : Module("Sequential") {
  for (const auto& [name, m] : named) register_child(name, m);
}

void Sequential::push_back(ModulePtr module) { register_child(std::to_string(children_.size()), std::move(module)); }

Module& Sequential::operator[](std::int64_t i) const { return *children_[wrap_index(i, children_.size())].second; }

ModuleDict::ModuleDict(const std::vector<std::pair<std::string, ModulePtr>>& named) : Module("ModuleDict") {
  for (const auto& [name, m] : named) insert(name, m);
}

bool ModuleDict::contains(const std::string& key) const {
  return std::any_of(children_.begin(), children_.end(), [&](const auto& c) { return c.first == key; });
}

std::vector<std::string> ModuleDict::keys() const {
  std::vector<std::string> k;
  for (const auto& [name, m] : children_) k.push_back(name);
  return k;
}

// ---- convolution and pooling
// ------------------------------------------------------------------------------------------
Conv2d::Conv2d(std::int64_t in, std::int64_t out, Pair2 kernel, Conv2dOptions opts)
    : Module("Conv2d"), in_channels(in), out_channels(out), kernel_size(kernel), options(opts) {
  KINDLING_CHECK_AS(ValueError, options.groups > 0, "groups must be a positive integer");
  KINDLING_CHECK_AS(ValueError, in % options.groups == 0, "in_channels must be divisible by groups");
  KINDLING_CHECK_AS(ValueError, out % options.groups == 0, "out_channels must be divisible by groups");
  KINDLING_CHECK_AS(ValueError, kernel.h > 0 && kernel.w > 0, "kernel_size must be positive, got ", kernel.tuple());
  weight = register_parameter("weight", empty({out, in / options.groups, kernel.h, kernel.w}));
  bias = register_parameter("bias", options.bias ? empty({out}) : Tensor());
  reset_parameters();
}

namespace {
// PyTorch's _ConvNd.reset_parameters: kaiming_uniform_ with a = sqrt(5), the bias from
// U(+-1/sqrt(fan_in)), fan_in taken from the weight's dim 1 (in for Conv2d, out for the
// transposed one).
void reset_conv_parameters(Tensor& weight, Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const auto fan_in = init::calculate_fan_in_and_fan_out(weight).first;
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}
}  // namespace

void Conv2d::reset_parameters() { reset_conv_parameters(weight, bias); }

Tensor Conv2d::forward(const Tensor& x) {
  return F::conv2d(x, weight, bias, options.stride, options.padding, options.dilation, options.groups);
}

std::string Conv2d::extra_repr() const {
  std::string s = std::to_string(in_channels) + ", " + std::to_string(out_channels) +
                  ", kernel_size=" + kernel_size.tuple() + ", stride=" + options.stride.tuple();
  if (!(options.padding == Pair2(0))) s += ", padding=" + options.padding.tuple();
  if (!(options.dilation == Pair2(1))) s += ", dilation=" + options.dilation.tuple();
  if (options.groups != 1) s += ", groups=" + std::to_string(options.groups);
  if (!bias.defined()) s += ", bias=False";
  return s;
}

ConvTranspose2d::ConvTranspose2d(std::int64_t in, std::int64_t out, Pair2 kernel, ConvTranspose2dOptions opts)
    : Module("ConvTranspose2d"), in_channels(in), out_channels(out), kernel_size(kernel), options(opts) {
  KINDLING_CHECK_AS(ValueError, kernel.h > 0 && kernel.w > 0, "kernel_size must be positive, got ", kernel.tuple());
  weight = register_parameter("weight", empty({in, out, kernel.h, kernel.w}));
  bias = register_parameter("bias", options.bias ? empty({out}) : Tensor());
  reset_parameters();
}

void ConvTranspose2d::reset_parameters() { reset_conv_parameters(weight, bias); }

Tensor ConvTranspose2d::forward(const Tensor& x) {
  return F::conv_transpose2d(x, weight, bias, options.stride, options.padding, options.output_padding,
                             options.dilation);
}

std::string ConvTranspose2d::extra_repr() const {
  std::string s = std::to_string(in_channels) + ", " + std::to_string(out_channels) +
                  ", kernel_size=" + kernel_size.tuple() + ", stride=" + options.stride.tuple();
  if (!(options.padding == Pair2(0))) s += ", padding=" + options.padding.tuple();
  if (!(options.dilation == Pair2(1))) s += ", dilation=" + options.dilation.tuple();
  if (!(options.output_padding == Pair2(0))) s += ", output_padding=" + options.output_padding.tuple();
  if (!bias.defined()) s += ", bias=False";
  return s;
}

std::string MaxPool2d::extra_repr() const {
  return "kernel_size=" + kernel_size.repr() + ", stride=" + stride.repr() + ", padding=" + padding.repr() +
         ", dilation=" + dilation.repr() + ", ceil_mode=" + detail::py_bool(ceil_mode);
}

std::string AvgPool2d::extra_repr() const {
  return "kernel_size=" + kernel_size.repr() + ", stride=" + stride.repr() + ", padding=" + padding.repr();
}

// ---- BatchNorm
// --------------------------------------------------------------------------------------------------------
BatchNorm::BatchNorm(std::string name, std::vector<std::int64_t> dims, std::int64_t features, double epsilon,
                     std::optional<double> mom, bool has_affine, bool track)
    : Module(std::move(name)),
      num_features(features),
      eps(epsilon),
      momentum(mom),
      affine(has_affine),
      track_running_stats(track),
      dims_(std::move(dims)) {
  weight = register_parameter("weight", has_affine ? ones({features}) : Tensor());
  bias = register_parameter("bias", has_affine ? zeros({features}) : Tensor());
  if (track) {
    running_mean = register_buffer("running_mean", zeros({features}));
    running_var = register_buffer("running_var", ones({features}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, kInt64));
  } else {
    register_buffer("running_mean", Tensor());
    register_buffer("running_var", Tensor());
    register_buffer("num_batches_tracked", Tensor());
  }
}

void BatchNorm::reset_running_stats() {
  if (!track_running_stats) return;
  AutoGradMode off(false);
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

Tensor BatchNorm::forward(const Tensor& x) {
  if (std::find(dims_.begin(), dims_.end(), x.dim()) == dims_.end()) {
    throw ValueError(dims_.size() == 1 ? "expected " + std::to_string(dims_[0]) + "D input (got " +
                                             std::to_string(x.dim()) + "D input)"
                                       : "expected 2D or 3D input (got " + std::to_string(x.dim()) + "D input)");
  }
  double factor = momentum.value_or(0.0);
  if (is_training() && track_running_stats) {
    AutoGradMode off(false);
    num_batches_tracked.add_(ones({}, kInt64));
    if (!momentum) factor = 1.0 / num_batches_tracked.item<double>();
  }
  const bool use_batch_stats = is_training() || !running_mean.defined();
  const bool update = !is_training() || track_running_stats;
  return F::batch_norm(x, update ? running_mean : Tensor(), update ? running_var : Tensor(), weight, bias,
                       use_batch_stats, factor, eps);
}

std::string BatchNorm::extra_repr() const {
  return std::to_string(num_features) + ", eps=" + detail::py_float_repr(eps) +
         ", momentum=" + (momentum ? detail::py_float_repr(*momentum) : std::string("None")) +
         ", affine=" + detail::py_bool(affine) + ", track_running_stats=" + detail::py_bool(track_running_stats);
}

// ---- Upsample
// ----------------------------------------------------------------------------------------------------------
Upsample::Upsample(std::optional<Pair2> out_size, std::optional<double> scale, std::string interp,
                   std::optional<bool> corners)
    : Module("Upsample"), size(out_size), scale_factor(scale), mode(std::move(interp)), align_corners(corners) {}

Tensor Upsample::forward(const Tensor& x) {
  std::optional<std::pair<double, double>> scales;
  if (scale_factor) scales = std::pair{*scale_factor, *scale_factor};
  return F::interpolate(x, size, scales, mode, align_corners);
}

std::string Upsample::extra_repr() const {
  const std::string info = scale_factor ? "scale_factor=" + detail::py_float_repr(*scale_factor)
                                        : "size=" + (size ? size->repr() : std::string("None"));
  return info + ", mode=" + mode;
}

}  // namespace kindling::nn
