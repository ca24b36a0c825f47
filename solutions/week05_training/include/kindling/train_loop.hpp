#pragma once
/// @file train_loop.hpp
/// The training loop's two halves, written out (there is no Trainer: the loop is
/// the lesson), plus the small helpers the example program uses: a progress bar
/// and loss/accuracy curves as CSV and SVG.

#include <chrono>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <kindling/dataloader.hpp>
#include <kindling/module.hpp>
#include <kindling/optim.hpp>

namespace kindling::train {

/// What one pass over a loader measured.
struct EpochStats {
  double loss = 0;            ///< mean loss per example
  double accuracy = 0;        ///< share of examples whose arg-max class is the label
  std::int64_t examples = 0;  ///< examples seen
  std::int64_t batches = 0;   ///< batches seen
  double seconds = 0;         ///< wall time of the pass
};

/// Turns a batch's first field (the inputs) into the model's input, e.g. uint8
/// images into float32 in [0, 1], flattened for an MLP.
using Prepare = std::function<Tensor(const Tensor&)>;
/// Called after every batch with the batches done, the batches in the epoch and
/// the running statistics.
using Progress = std::function<void(std::int64_t done, std::int64_t total, const EpochStats& running)>;

/// One training epoch over `loader` (batches of {inputs, int64 labels}), as the
/// study notes write the loop. (Task week05.epoch.)
EpochStats train_epoch(nn::Module& model, data::DataLoader& loader, optim::Optimizer& optimizer, const Prepare& prepare,
                       const Progress& progress = {}, std::int64_t max_batches = -1);

/// The loss and accuracy of `model` over `loader`, in eval mode and without
/// recording a graph. (Task week05.epoch.)
EpochStats evaluate(nn::Module& model, data::DataLoader& loader, const Prepare& prepare);

/// A one-line progress bar: on a terminal it redraws itself (bar, loss, accuracy,
/// items/s, ETA); elsewhere it prints a plain line every `every` batches and at the end.
class ProgressBar {
 public:
  /// Writes to `out`; `tty` chooses the redrawn bar; `label` starts the line ("epoch 3/10").
  ProgressBar(std::ostream& out, bool tty, std::string label, std::int64_t every = 50);
  /// The Progress callback to pass to train_epoch.
  void operator()(std::int64_t done, std::int64_t total, const EpochStats& running);

 private:
  std::ostream& out_;
  bool tty_;
  std::string label_;
  std::int64_t every_;
  std::chrono::steady_clock::time_point start_;
};

/// One row of the curves: an epoch's training and test statistics.
struct CurvePoint {
  std::int64_t epoch = 0;  ///< 1, 2, ...
  EpochStats train;        ///< the training pass
  EpochStats test;         ///< the evaluation pass
};

/// "epoch,train_loss,train_accuracy,test_loss,test_accuracy,seconds" and one line per epoch.
std::string curves_csv(const std::vector<CurvePoint>& points);
/// A self-contained SVG with two panels: loss (train, test) and accuracy (train, test) per epoch.
std::string curves_svg(const std::vector<CurvePoint>& points, const std::string& title);

}  // namespace kindling::train
