#pragma once
/// @file torch/data.hpp
/// LibTorch's torch::data over Kindling's data pipeline: datasets (`MNIST`), transforms
/// (`Normalize<>`, `Stack<>`), samplers and `make_data_loader`, with batches of `.data` and
/// `.target`. Part of <kindling/torch.hpp>.
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

#include <kindling/data.hpp>
#include <kindling/torch/tensor.hpp>

// ---- data -------------------------------------------------------------------------------------------------------
namespace torch::data {

/// One example, or a batch stacked into one: LibTorch's Example<Data, Target>.
template <class Data = Tensor, class Target = Tensor>
struct Example {
  Data data;      ///< the input
  Target target;  ///< the label
};

namespace transforms {
/// Normalize<>(mean, stddev): (data - mean) / stddev on each example.
template <class Target = Tensor>
struct Normalize {
  /// One mean and one standard deviation for every channel.
  Normalize(double mean_, double stddev_) : mean(mean_), stddev(stddev_) {}
  /// The example, normalized.
  Example<Tensor, Target> operator()(Example<Tensor, Target> e) const {
    e.data = (e.data - mean) / stddev;
    return e;
  }
  double mean;    ///< subtracted
  double stddev;  ///< divided by
};
/// Stack<>(): a batch of examples becomes one example of stacked tensors.
template <class E = Example<>>
struct Stack {};
}  // namespace transforms

namespace samplers {
struct SequentialSampler {};  ///< the examples in order
struct RandomSampler {};      ///< a random permutation each epoch
}  // namespace samplers

namespace datasets {
/// A dataset whose examples go through `transform` (what `.map(...)` returns).
template <class Source, class Transform>
class MapDataset;

/// The base of LibTorch-style datasets: `.map(transform)`.
template <class Self>
class Dataset {
 public:
  /// The dataset with `transform` applied to each example (or, for Stack, to each batch).
  template <class Transform>
  MapDataset<Self, Transform> map(Transform transform) && {
    return MapDataset<Self, Transform>(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

/// MNIST in LibTorch's form: images (1, 28, 28) float in [0, 1], labels int64, read by
/// Kindling's IDX reader from root/{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz].
class MNIST : public Dataset<MNIST> {
 public:
  /// Which half.
  enum class Mode { kTrain, kTest };
  /// The training or the test half of the files in `root`.
  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain)
      : data_(std::make_shared<::kindling::data::FashionMNIST>(root, mode == Mode::kTrain)) {}
  /// Example `index`.
  Example<> get(std::size_t index) const {
    const auto i = static_cast<std::int64_t>(index);
    return {data_->images()[i].to(kFloat32).div(255).unsqueeze(0), data_->labels()[i]};
  }
  /// The number of examples.
  std::optional<std::size_t> size() const { return static_cast<std::size_t>(data_->size()); }

 private:
  std::shared_ptr<::kindling::data::FashionMNIST> data_;
};

template <class Source, class Transform>
class MapDataset : public Dataset<MapDataset<Source, Transform>> {
 public:
  /// `source` with `transform`.
  MapDataset(Source source, Transform transform) : source_(std::move(source)), transform_(std::move(transform)) {}
  /// Example `index`, transformed.
  auto get(std::size_t index) const { return transform_(source_.get(index)); }
  /// The number of examples.
  std::optional<std::size_t> size() const { return source_.size(); }
  /// The examples at `indices`, as a batch.
  auto get_batch(const std::vector<std::size_t>& indices) const {
    std::vector<decltype(get(0))> out;
    for (std::size_t i : indices) out.push_back(get(i));
    return out;
  }

 private:
  Source source_;
  Transform transform_;
};

/// Stack: a batch is one example of stacked tensors.
template <class Source, class E>
class MapDataset<Source, transforms::Stack<E>> : public Dataset<MapDataset<Source, transforms::Stack<E>>> {
 public:
  /// `source`, stacked.
  MapDataset(Source source, transforms::Stack<E>) : source_(std::move(source)) {}
  /// The number of examples.
  std::optional<std::size_t> size() const { return source_.size(); }
  /// The examples at `indices`, stacked along a new first dim.
  Example<> get_batch(const std::vector<std::size_t>& indices) const {
    TensorList data, target;
    for (std::size_t i : indices) {
      auto e = source_.get(i);
      data.push_back(e.data);
      target.push_back(e.target);
    }
    return {stack(data, 0), stack(target, 0)};
  }

 private:
  Source source_;
};
}  // namespace datasets

/// DataLoaderOptions().batch_size(64).workers(2).drop_last(true).
class DataLoaderOptions {
 public:
  /// Batches of `batch_size`.
  explicit DataLoaderOptions(std::size_t batch_size = 1) : batch_size_(batch_size) {}
  DataLoaderOptions& batch_size(std::size_t v) {  ///< examples per batch
    batch_size_ = v;
    return *this;
  }
  /// Accepted and ignored: this loader reads in the calling thread (Kindling's own
  /// data::DataLoader has the workers of week 4).
  DataLoaderOptions& workers(std::size_t) { return *this; }
  DataLoaderOptions& drop_last(bool v) {  ///< leave out a last, smaller batch
    drop_last_ = v;
    return *this;
  }
  std::size_t batch_size() const { return batch_size_; }  ///< examples per batch
  bool drop_last() const { return drop_last_; }           ///< the drop_last flag

 private:
  std::size_t batch_size_;
  bool drop_last_ = false;
};

/// The loader make_data_loader returns: iterate it for batches.
template <class Dataset, class Sampler>
class StatelessDataLoader {
 public:
  /// Over `dataset`.
  StatelessDataLoader(Dataset dataset, DataLoaderOptions options) : dataset_(std::move(dataset)), options_(options) {}
  /// A batch type: what the dataset's get_batch returns.
  using Batch = decltype(std::declval<const Dataset&>().get_batch(std::vector<std::size_t>{}));
  /// Walks one epoch (a new order for a RandomSampler each time).
  class Iterator {
   public:
    /// At batch `at` of `order` (an end iterator, with no order, loads nothing).
    Iterator(const StatelessDataLoader* loader, std::vector<std::size_t> order, std::size_t at)
        : loader_(loader), order_(std::move(order)), at_(at) {
      if (!order_.empty()) load();
    }
    Batch& operator*() { return batch_; }    ///< the batch
    Batch* operator->() { return &batch_; }  ///< the batch
    Iterator& operator++() {                 ///< the next batch
      at_ += loader_->options_.batch_size();
      load();
      return *this;
    }
    bool operator!=(const Iterator& other) const { return at_ != other.at_; }  ///< not the end yet
    bool operator==(const Iterator& other) const { return at_ == other.at_; }  ///< the end

   private:
    void load() {
      const std::size_t n = order_.size(), b = loader_->options_.batch_size();
      if (at_ >= n || (loader_->options_.drop_last() && at_ + b > n)) {
        at_ = n;
        return;
      }
      const std::vector<std::size_t> indices(order_.begin() + static_cast<std::ptrdiff_t>(at_),
                                             order_.begin() + static_cast<std::ptrdiff_t>(std::min(n, at_ + b)));
      batch_ = loader_->dataset_.get_batch(indices);
    }
    const StatelessDataLoader* loader_;
    std::vector<std::size_t> order_;
    std::size_t at_;
    Batch batch_{};
  };
  /// The first batch of an epoch.
  Iterator begin() const { return Iterator(this, order(), 0); }
  /// Past the last batch.
  Iterator end() const { return Iterator(this, {}, dataset_.size().value()); }

 private:
  std::vector<std::size_t> order() const {
    const std::size_t n = dataset_.size().value();
    std::vector<std::size_t> o(n);
    if constexpr (std::is_same_v<Sampler, samplers::RandomSampler>) {
      const auto perm = randperm(static_cast<std::int64_t>(n)).template to_vector<std::int64_t>();
      for (std::size_t i = 0; i < n; ++i) o[i] = static_cast<std::size_t>(perm[i]);
    } else {
      for (std::size_t i = 0; i < n; ++i) o[i] = i;
    }
    return o;
  }
  Dataset dataset_;
  DataLoaderOptions options_;
};

/// make_data_loader<Sampler>(dataset, batch_size or options): a loader, held by a unique_ptr
/// as in LibTorch. The default sampler is RandomSampler, as in LibTorch.
template <class Sampler = samplers::RandomSampler, class Dataset>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset, DataLoaderOptions options) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), options);
}
/// See above.
template <class Sampler = samplers::RandomSampler, class Dataset>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset, std::size_t batch_size) {
  return make_data_loader<Sampler>(std::move(dataset), DataLoaderOptions(batch_size));
}

}  // namespace torch::data
