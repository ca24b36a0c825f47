#pragma once
/// @file dataset.hpp
/// Datasets: "what is item i?" (torch.utils.data.Dataset).
///
/// An item (an Example) is a list of tensors, its fields: `{image, label}` for
/// a classification set. Fields that are numbers are 0-d tensors. A batch has
/// the same fields, each stacked along a new first dimension (collate.hpp).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <kindling/tensor.hpp>

namespace kindling::data {

/// One item: its fields, e.g. {image, label}.
using Example = TensorList;
/// A batch: each field of the examples stacked along dim 0.
using Batch = TensorList;

/// A map-style dataset: a size and random access to items.
///
/// Note: with num_workers > 0, get() is called from several threads at once
/// (Kindling's workers are threads). It must not modify shared state without a
/// lock; reading from memory or from files opened per call is fine.
class Dataset {
 public:
  virtual ~Dataset() = default;
  /// Item `index`, 0 <= index < size().
  virtual Example get(std::int64_t index) = 0;
  /// Number of items.
  virtual std::int64_t size() const = 0;
};

/// Items are the rows of tensors that share their first dim: item i is
/// {t[i] for t in tensors}. Throws Error "Size mismatch between tensors".
class TensorDataset : public Dataset {
 public:
  /// The tensors, all with the same size(0).
  explicit TensorDataset(TensorList tensors);
  /// {t.select(0, index) for each tensor} (views, no copy); a negative index counts from the end;
  /// IndexError "index 5 is out of bounds for dimension 0 with size 3" outside [-size, size).
  Example get(std::int64_t index) override;
  /// size(0) of the tensors.
  std::int64_t size() const override { return size_; }
  /// The tensors.
  const TensorList& tensors() const { return tensors_; }

 private:
  TensorList tensors_;
  std::int64_t size_ = 0;
};

/// The items of `dataset` at `indices`, in that order (torch.utils.data.Subset).
class Subset : public Dataset {
 public:
  /// A view of `dataset` through `indices`.
  Subset(std::shared_ptr<Dataset> dataset, std::vector<std::int64_t> indices);
  /// dataset.get(indices[index]).
  Example get(std::int64_t index) override;
  /// Number of indices.
  std::int64_t size() const override { return static_cast<std::int64_t>(indices_.size()); }

 private:
  std::shared_ptr<Dataset> dataset_;
  std::vector<std::int64_t> indices_;
};

/// Datasets one after another (torch.utils.data.ConcatDataset).
class ConcatDataset : public Dataset {
 public:
  /// The concatenation of `datasets`.
  explicit ConcatDataset(std::vector<std::shared_ptr<Dataset>> datasets);
  /// Item `index` of the concatenation (negative counts from the end, as in PyTorch).
  Example get(std::int64_t index) override;
  /// Total number of items.
  std::int64_t size() const override { return cumulative_.empty() ? 0 : cumulative_.back(); }

 private:
  std::vector<std::shared_ptr<Dataset>> datasets_;
  std::vector<std::int64_t> cumulative_;
};

/// A function from an example to an example (a transform).
using Transform = std::function<Example(Example)>;

/// `dataset` with `transform` applied to every item as it is fetched.
class MapDataset : public Dataset {
 public:
  /// Applies `transform` to the items of `dataset`.
  MapDataset(std::shared_ptr<Dataset> dataset, Transform transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}
  /// transform(dataset.get(index)).
  Example get(std::int64_t index) override { return transform_(dataset_->get(index)); }
  /// dataset.size().
  std::int64_t size() const override { return dataset_->size(); }

 private:
  std::shared_ptr<Dataset> dataset_;
  Transform transform_;
};

/// Throws IndexError "index 7 is out of range for a dataset of 5 items" unless 0 <= index < size.
void check_index(std::int64_t index, std::int64_t size);

}  // namespace kindling::data
