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
/// The base of a transform from one example type to another (LibTorch's Transform): apply().
template <class Input, class Output>
class Transform {
 public:
  using InputType = Input;    ///< what it takes
  using OutputType = Output;  ///< what it gives
  virtual ~Transform() = default;
  /// The transformed example.
  virtual Output apply(Input input) = 0;
};

/// A transform of an example's data alone (LibTorch's TensorTransform): override
/// `Tensor operator()(Tensor)`.
template <class Target = Tensor>
class TensorTransform : public Transform<Example<Tensor, Target>, Example<Tensor, Target>> {
 public:
  /// The transformed data.
  virtual Tensor operator()(Tensor input) = 0;
  /// The example with its data transformed.
  Example<Tensor, Target> apply(Example<Tensor, Target> input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

/// Normalize<>(mean, stddev): (data - mean) / stddev, with one value for every channel or
/// one per channel (`Normalize<>({0.5, 0.5, 0.5}, {0.5, 0.5, 0.5})` on (C, H, W) data).
template <class Target = Tensor>
class Normalize : public TensorTransform<Target> {
 public:
  /// One mean and one standard deviation for every channel.
  Normalize(double mean, double stddev) : mean_(scalar_tensor(mean)), stddev_(scalar_tensor(stddev)) {}
  /// A mean and a standard deviation per channel (the data's first dimension).
  Normalize(const std::vector<double>& mean, const std::vector<double>& stddev)
      : mean_(tensor(mean, TensorOptions(kFloat32)).view({-1, 1, 1})),
        stddev_(tensor(stddev, TensorOptions(kFloat32)).view({-1, 1, 1})) {
    KINDLING_CHECK(mean.size() == stddev.size(), "Normalize: ", mean.size(), " means but ", stddev.size(),
                   " standard deviations");
  }
  /// (input - mean) / stddev.
  Tensor operator()(Tensor input) override { return (input - mean_.to(input.device())) / stddev_.to(input.device()); }

 private:
  Tensor mean_, stddev_;
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

/// What every dataset has: `.map(transform)`.
template <class Self>
class Mappable {
 public:
  /// The dataset with `transform` applied to each example (or, for Stack, to each batch).
  template <class Transform>
  MapDataset<Self, Transform> map(Transform transform) && {
    return MapDataset<Self, Transform>(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

/// The base of a dataset of one's own (LibTorch's Dataset<Self, SingleExample>): override
/// `SingleExample get(size_t index)` and `std::optional<size_t> size() const`.
template <class Self, class SingleExample = Example<>>
class Dataset : public Mappable<Self> {
 public:
  using ExampleType = SingleExample;  ///< one example
  Dataset() = default;
  virtual ~Dataset() = default;
  Dataset(const Dataset&) = default;                 ///< copies the dataset
  Dataset(Dataset&&) noexcept = default;             ///< moves the dataset
  Dataset& operator=(const Dataset&) = default;      ///< copies the dataset
  Dataset& operator=(Dataset&&) noexcept = default;  ///< moves the dataset
  /// Example `index`.
  virtual SingleExample get(std::size_t index) = 0;
  /// The number of examples (empty for a stream of unknown length, which this loader refuses).
  virtual std::optional<std::size_t> size() const = 0;
  /// The examples at `indices`.
  std::vector<SingleExample> get_batch(const std::vector<std::size_t>& indices) {
    std::vector<SingleExample> out;
    out.reserve(indices.size());
    for (const std::size_t i : indices) out.push_back(get(i));
    return out;
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
  Example<> get(std::size_t index) override {
    const auto i = static_cast<std::int64_t>(index);
    return {data_->images()[i].to(kFloat32).div(255).unsqueeze(0), data_->labels()[i]};
  }
  /// The number of examples.
  std::optional<std::size_t> size() const override { return static_cast<std::size_t>(data_->size()); }
  /// All images, (N, 1, 28, 28) float in [0, 1].
  Tensor images() const { return data_->images().to(kFloat32).div(255).unsqueeze(1); }
  /// All labels, (N) int64.
  Tensor targets() const { return data_->labels(); }

 private:
  std::shared_ptr<::kindling::data::FashionMNIST> data_;
};

namespace detail {
// A transform object's result on `e`: apply() for LibTorch's Transform classes, a call otherwise.
template <class T, class E>
auto run_transform(T& transform, E&& e) {
  if constexpr (requires { transform.apply(std::forward<E>(e)); })
    return transform.apply(std::forward<E>(e));
  else
    return transform(std::forward<E>(e));
}
}  // namespace detail

template <class Source, class Transform>
class MapDataset : public Mappable<MapDataset<Source, Transform>> {
 public:
  /// `source` with `transform`.
  MapDataset(Source source, Transform transform) : source_(std::move(source)), transform_(std::move(transform)) {}
  /// Example `index`, transformed.
  auto get(std::size_t index) const { return detail::run_transform(transform_, source_.get(index)); }
  /// The number of examples.
  std::optional<std::size_t> size() const { return source_.size(); }
  /// The examples at `indices`, as a batch.
  auto get_batch(const std::vector<std::size_t>& indices) const {
    std::vector<decltype(get(0))> out;
    for (std::size_t i : indices) out.push_back(get(i));
    return out;
  }

 private:
  // Mutable: LibTorch's get() and transforms are not const, and a loader reads through const.
  mutable Source source_;
  mutable Transform transform_;
};

/// Stack: a batch is one example of stacked tensors.
template <class Source, class E>
class MapDataset<Source, transforms::Stack<E>> : public Mappable<MapDataset<Source, transforms::Stack<E>>> {
 public:
  /// `source`, stacked.
  MapDataset(Source source, transforms::Stack<E>) : source_(std::move(source)) {}
  /// The number of examples.
  std::optional<std::size_t> size() const { return source_.size(); }
  /// Example `index` alone, as a batch of one (LibTorch's `get_batch(0)`).
  Example<> get_batch(std::size_t index) const { return get_batch(std::vector<std::size_t>{index}); }
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
  mutable Source source_;
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
  using Batch = decltype(std::declval<Dataset&>().get_batch(std::vector<std::size_t>{}));
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
  mutable Dataset dataset_;  // a dataset's get() may change it (LibTorch's is not const)
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
