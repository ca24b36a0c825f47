// Task week05.epoch. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week05.epoch`.

#include <chrono>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/loss.hpp>
#include <kindling/no_grad.hpp>
#include <kindling/ops.hpp>
#include <kindling/train_loop.hpp>

namespace kindling::train {

/// One epoch of training, the loop of the study notes:
///
///     model.train()
///     for each batch {x, y} of loader (at most max_batches of them, when >= 0):
///         optimizer.zero_grad()
///         out = model(prepare(x))
///         loss = cross_entropy(out, y)             (mean over the batch; y first moved to
///                                                   out's device when it is elsewhere, as
///                                                   `y = y.to(device)` in PyTorch's loop)
///         loss.backward()
///         optimizer.step()
///         running loss += loss.item() * batch size  (a number: never keep the tensor)
///         correct += how many rows of out have their arg-max at y
///         progress(batches done, loader.size(), running statistics), when set
///
/// Returns loss = total loss / examples, accuracy = correct / examples, the
/// counts, and the wall time. The running statistics passed to `progress` are
/// those of the batches so far, in the same form.
EpochStats train_epoch(nn::Module& model, data::DataLoader& loader, optim::Optimizer& optimizer, const Prepare& prepare,
                       const Progress& progress, std::int64_t max_batches) {
  // BEGIN SOLUTION week05.epoch
  const auto start = std::chrono::steady_clock::now();
  model.train();
  EpochStats s;
  double total_loss = 0, correct = 0;
  for (const data::Batch& batch : loader) {
    if (max_batches >= 0 && s.batches >= max_batches) break;
    const Tensor& x = batch.at(0);
    optimizer.zero_grad();
    const Tensor out = model(prepare(x));
    const Tensor y = batch.at(1).device() == out.device() ? batch.at(1) : batch.at(1).to(out.device());
    const Tensor loss = nn::functional::cross_entropy(out, y);
    loss.backward();
    optimizer.step();
    const auto n = y.numel();
    total_loss += loss.item<double>() * static_cast<double>(n);
    correct += eq(argmax(out.detach(), 1), y).sum().item<double>();
    s.examples += n;
    ++s.batches;
    s.loss = total_loss / static_cast<double>(s.examples);
    s.accuracy = correct / static_cast<double>(s.examples);
    s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (progress) progress(s.batches, loader.size(), s);
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s;
  // END SOLUTION
}

/// The model's mean cross-entropy and accuracy over every batch of `loader`:
/// model.eval() first (Dropout off, BatchNorm on its running statistics), and the
/// whole pass under NoGradGuard (no graph is recorded, so no memory is kept for a
/// backward that never comes). The model is left in eval mode; train_epoch puts
/// it back in training mode. The labels follow the output's device, as in train_epoch.
EpochStats evaluate(nn::Module& model, data::DataLoader& loader, const Prepare& prepare) {
  // BEGIN SOLUTION week05.epoch
  const auto start = std::chrono::steady_clock::now();
  model.eval();
  NoGradGuard no_grad;
  EpochStats s;
  double total_loss = 0, correct = 0;
  for (const data::Batch& batch : loader) {
    const Tensor out = model(prepare(batch.at(0)));
    const Tensor y = batch.at(1).device() == out.device() ? batch.at(1) : batch.at(1).to(out.device());
    total_loss += nn::functional::cross_entropy(out, y, {.reduction = "sum"}).item<double>();
    correct += eq(argmax(out, 1), y).sum().item<double>();
    s.examples += y.numel();
    ++s.batches;
  }
  if (s.examples > 0) {
    s.loss = total_loss / static_cast<double>(s.examples);
    s.accuracy = correct / static_cast<double>(s.examples);
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s;
  // END SOLUTION
}

}  // namespace kindling::train
