// The given datasets and transforms.

#include <algorithm>

#include <kindling/dataset.hpp>
#include <kindling/factory.hpp>
#include <kindling/ops.hpp>
#include <kindling/transforms.hpp>

namespace kindling::data {

void check_index(std::int64_t index, std::int64_t size) {
  KINDLING_CHECK_AS(IndexError, index >= 0 && index < size, "index ", index, " is out of range for a dataset of ", size,
                    " items");
}

TensorDataset::TensorDataset(TensorList tensors) : tensors_(std::move(tensors)) {
  KINDLING_CHECK(!tensors_.empty(), "TensorDataset needs at least one tensor");
  for (const Tensor& t : tensors_) KINDLING_CHECK(t.dim() >= 1, "TensorDataset needs tensors with a first dimension");
  size_ = tensors_[0].sizes()[0];
  for (const Tensor& t : tensors_) KINDLING_CHECK(t.sizes()[0] == size_, "Size mismatch between tensors");
}

// Indexing the tensors, as PyTorch's TensorDataset does: a negative index counts from the end, and
// one out of range is the tensors' own IndexError.
Example TensorDataset::get(std::int64_t index) {
  KINDLING_CHECK_AS(IndexError, index >= -size_ && index < size_, "index ", index,
                    " is out of bounds for dimension 0 with size ", size_);
  if (index < 0) index += size_;
  Example e;
  e.reserve(tensors_.size());
  for (const Tensor& t : tensors_) e.push_back(t.select(0, index));
  return e;
}

Subset::Subset(std::shared_ptr<Dataset> dataset, std::vector<std::int64_t> indices)
    : dataset_(std::move(dataset)), indices_(std::move(indices)) {
  for (std::int64_t i : indices_) check_index(i, dataset_->size());
}

Example Subset::get(std::int64_t index) {
  check_index(index, size());
  return dataset_->get(indices_[static_cast<std::size_t>(index)]);
}

ConcatDataset::ConcatDataset(std::vector<std::shared_ptr<Dataset>> datasets) : datasets_(std::move(datasets)) {
  KINDLING_CHECK_AS(ValueError, !datasets_.empty(), "datasets should not be an empty iterable");
  std::int64_t total = 0;
  for (const auto& d : datasets_) cumulative_.push_back(total += d->size());
}

Example ConcatDataset::get(std::int64_t index) {
  const std::int64_t n = size();
  if (index < 0) {
    KINDLING_CHECK_AS(ValueError, -index <= n, "absolute value of index should not exceed dataset length");
    index += n;
  }
  check_index(index, n);
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), index);
  const auto which = static_cast<std::size_t>(it - cumulative_.begin());
  const std::int64_t start = which == 0 ? 0 : cumulative_[which - 1];
  return datasets_[which]->get(index - start);
}

namespace transforms {

Tensor to_tensor(const Tensor& image) {
  KINDLING_CHECK(image.dtype() == kUInt8, "to_tensor expects uint8 pixels, got ", dtype_name(image.dtype()));
  KINDLING_CHECK(image.dim() == 2 || image.dim() == 3, "to_tensor expects (H, W) or (H, W, C) pixels, got ",
                 image.dim(), " dims");
  const Tensor hwc = image.dim() == 2 ? image.unsqueeze(2) : image;
  return (hwc.permute({2, 0, 1}).to(kFloat32) / 255.0).contiguous();
}

Tensor normalize(const Tensor& image, const std::vector<double>& mean, const std::vector<double>& stdev) {
  KINDLING_CHECK(image.dim() == 3, "normalize expects a (C, H, W) tensor, got ", image.dim(), " dims");
  const std::int64_t c = image.sizes()[0];
  auto per_channel = [&](const std::vector<double>& v, const char* what) {
    KINDLING_CHECK(static_cast<std::int64_t>(v.size()) == c || v.size() == 1, "normalize: ", v.size(), " ", what,
                   " for ", c, " channels");
    std::vector<float> f(static_cast<std::size_t>(c));
    for (std::int64_t i = 0; i < c; ++i)
      f[static_cast<std::size_t>(i)] = static_cast<float>(v[v.size() == 1 ? 0 : static_cast<std::size_t>(i)]);
    return tensor(f).view({c, 1, 1});
  };
  for (double s : stdev)
    KINDLING_CHECK_AS(ValueError, s != 0,
                      "std evaluated to zero after conversion to float32, leading to division by zero.");
  return (image - per_channel(mean, "means")) / per_channel(stdev, "stds");
}

Transform ToTensor() {
  return [](Example e) {
    e.at(0) = to_tensor(e.at(0));
    return e;
  };
}

Transform Normalize(std::vector<double> mean, std::vector<double> stdev) {
  return [mean = std::move(mean), stdev = std::move(stdev)](Example e) {
    e.at(0) = normalize(e.at(0), mean, stdev);
    return e;
  };
}

Transform Compose(std::vector<Transform> list) {
  return [list = std::move(list)](Example e) {
    for (const auto& t : list) e = t(std::move(e));
    return e;
  };
}

}  // namespace transforms
}  // namespace kindling::data
