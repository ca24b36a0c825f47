#pragma once
/// @file mnist.hpp
/// Fashion-MNIST from IDX files, and a CSV dataset.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <kindling/dataset.hpp>

namespace kindling::data {

/// The contents of one IDX file of unsigned bytes.
struct IdxFile {
  std::vector<std::int64_t> dims;  ///< e.g. {60000, 28, 28}
  std::vector<std::uint8_t> data;  ///< prod(dims) bytes, row-major
};

/// Reads an IDX file of unsigned bytes with `expected_dims` dims, gzipped or not
/// (the format of MNIST and Fashion-MNIST: a big-endian magic 0x000008NN where
/// NN is the number of dims, one big-endian 32-bit size per dim, then the bytes).
/// Throws kindling::Error naming the file and what is wrong: it cannot be opened,
/// it is not valid gzip, the magic number is wrong, or it is truncated.
IdxFile read_idx(const std::string& path, int expected_dims);

/// Where FashionMNIST looks by default: Debian's /usr/share/datasets/fashion-mnist
/// (package dataset-fashion-mnist) when it holds the files, else the kit's
/// datasets/fashion-mnist-subset (1,000 training and 500 test examples).
std::string default_fashion_mnist_root();

/// Fashion-MNIST: 28 x 28 grey images of 10 kinds of clothing.
/// Items are {image (28, 28) uint8, label int64 0-d}; use transforms::ToTensor
/// for a float (1, 28, 28) image in [0, 1].
class FashionMNIST : public Dataset {
 public:
  /// Reads root/{train,t10k}-images-idx3-ubyte[.gz] and the matching labels.
  /// Throws kindling::Error when a file is missing or corrupt, or when the image
  /// and label files hold different numbers of examples.
  explicit FashionMNIST(const std::string& root = default_fashion_mnist_root(), bool train = true);
  /// {images[index], labels[index]}.
  Example get(std::int64_t index) override;
  /// Number of examples.
  std::int64_t size() const override { return labels_.numel(); }
  /// (N, 28, 28) uint8.
  const Tensor& images() const { return images_; }
  /// (N) int64.
  const Tensor& labels() const { return labels_; }
  /// The class names, by label.
  static const std::array<const char*, 10>& classes();

 private:
  Tensor images_, labels_;
};

/// A numeric CSV file: one example per line, {features float32 (F), label int64 0-d}.
/// `label_column` (negative counts from the end) holds the label; a header line is
/// skipped when `has_header`. Throws kindling::Error "FILE:LINE: ..." for a row
/// with the wrong number of fields or a field that is not a number.
/// (Task week04.csv_dataset: the contract and the code are in src/tasks/csv_dataset.cpp.)
class CsvDataset : public Dataset {
 public:
  /// Reads the whole file.
  explicit CsvDataset(const std::string& path, std::int64_t label_column = -1, bool has_header = true);
  /// {features[index], labels[index]}.
  Example get(std::int64_t index) override;
  /// Number of rows.
  std::int64_t size() const override { return labels_.numel(); }

 private:
  Tensor features_, labels_;
};

}  // namespace kindling::data
