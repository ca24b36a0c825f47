// MUTANT: does not drop the \r of a Windows line end, so the last field of every row is not a number
// Task week04.csv_dataset. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week04.csv_dataset`.
//
// A Dataset is two answers: how many items (size(), declared inline in mnist.hpp as
// labels_.numel()) and what item i is (get(i)). This one reads the whole file once, in the
// constructor, into two tensors: features_ (rows, F) float32 and labels_ (rows) int64.

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>
#include <kindling/mnist.hpp>

namespace kindling::data {

/// Reads the CSV file at `path` (for example Kaggle's fashion-mnist_train.csv:
/// a header `label,pixel1,...,pixel784`, then one image per line, label first).
/// - Lines are split at every ','. A trailing '\r' (a Windows line end) is
///   dropped; empty lines are skipped; line 1 is skipped when `has_header`.
/// - The first data row fixes the number of fields F; column `label_column`
///   (counting from the end when negative: -1 is the last) is the label, every
///   other column, in order, a feature. Each field is read as a number with
///   std::stod; spaces or tabs may follow it, anything else may not.
/// - features_ becomes a float32 tensor (rows, F - 1), labels_ an int64 tensor
///   (rows) holding each label converted to an integer (truncated). A file
///   with no data rows gives features_ (0, 0) and labels_ (0).
/// - Errors (kindling::Error; LINE counts from 1 and includes the header; FIELD
///   from 1):
///   `PATH: cannot open` when the file cannot be read;
///   `PATH:LINE: expected 3 fields, got 2` for a row whose count differs from
///   the first row's;
///   `PATH: label column 5 is out of range for 3 fields` (the column as given);
///   `PATH:LINE: field 2 ('x') is not a number` (the field as written);
///   `PATH:LINE: label '1e300' is out of range for int64` for a label that is not
///   finite or whose integer part does not fit in an int64 (converting such a
///   double to an integer is undefined behaviour, not merely a wrong number).
CsvDataset::CsvDataset(const std::string& path, std::int64_t label_column, bool has_header) {
  // BEGIN SOLUTION week04.csv_dataset
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open");
  std::vector<float> features;
  std::vector<std::int64_t> labels;
  std::int64_t fields = -1, line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if ((has_header && line_no == 1) || line.empty()) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    const auto n = static_cast<std::int64_t>(cells.size());
    if (fields < 0) fields = n;
    if (n != fields)
      throw Error(path + ":" + std::to_string(line_no) + ": expected " + std::to_string(fields) + " fields, got " +
                  std::to_string(n));
    const std::int64_t label_at = label_column < 0 ? n + label_column : label_column;
    if (label_at < 0 || label_at >= n)
      throw Error(path + ": label column " + std::to_string(label_column) + " is out of range for " +
                  std::to_string(n) + " fields");
    for (std::int64_t c = 0; c < n; ++c) {
      const std::string& cell = cells[static_cast<std::size_t>(c)];
      std::size_t used = 0;
      double v = 0;
      try {
        v = std::stod(cell, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || cell.find_first_not_of(" \t", used) != std::string::npos)
        throw Error(path + ":" + std::to_string(line_no) + ": field " + std::to_string(c + 1) + " ('" + cell +
                    "') is not a number");
      if (c == label_at) {
        // -2^63 <= v < 2^63, written so that NaN fails too: casting anything else is undefined.
        if (!(v >= -0x1p63 && v < 0x1p63))
          throw Error(path + ":" + std::to_string(line_no) + ": label '" + cell + "' is out of range for int64");
        labels.push_back(static_cast<std::int64_t>(v));
      } else {
        features.push_back(static_cast<float>(v));
      }
    }
  }
  const auto rows = static_cast<std::int64_t>(labels.size());
  features_ = tensor(features).reshape({rows, rows ? fields - 1 : 0});
  labels_ = tensor(labels);
  // END SOLUTION
}

/// Item `index`: {features row `index` (float32, shape (F - 1)), its label (int64,
/// 0-d)}, both views of the tensors read by the constructor (no copy). Throws
/// kindling::IndexError `index 7 is out of range for a dataset of 5 items` unless
/// 0 <= index < size() (check_index in dataset.hpp says exactly that).
Example CsvDataset::get(std::int64_t index) {
  // BEGIN SOLUTION week04.csv_dataset
  check_index(index, size());
  return {features_.select(0, index), labels_.select(0, index)};
  // END SOLUTION
}

}  // namespace kindling::data
