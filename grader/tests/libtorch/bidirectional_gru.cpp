// In the style of the LibTorch tutorials' bidirectional recurrent network, written against
// <kindling/torch.hpp>: sequences of different lengths (3 to 10 numbers), padded, packed with
// torch::nn::utils::rnn::pack_padded_sequence(..., enforce_sorted=false) and read by a
// bidirectional torch::nn::GRU. The label (is the first number larger than the last?) needs
// both ends, so the classifier reads the last state of each direction, split with
// h_n.chunk(2, 0). Exits 0 when the accuracy on new sequences is above 0.9.
#include <kindling/torch.hpp>

#include <cstdio>
#include <iostream>

namespace rnn = torch::nn::utils::rnn;
using torch::indexing::Slice;

struct BiGRUImpl : torch::nn::Module {
  BiGRUImpl() : gru(torch::nn::GRUOptions(1, 16).bidirectional(true)), fc(32, 2) {
    register_module("gru", gru);
    register_module("fc", fc);
  }
  torch::Tensor forward(const rnn::PackedSequence& x) {
    auto [out, h_n] = gru->forward_with_packed_input(x);  // h_n: (2, batch, 16), forward then reverse
    auto directions = h_n.chunk(2, 0);
    return fc->forward(torch::cat({directions[0].squeeze(0), directions[1].squeeze(0)}, 1));
  }
  torch::nn::GRU gru;
  torch::nn::Linear fc;
};
TORCH_MODULE(BiGRU);

// A batch of padded sequences (max_len, batch, 1), their lengths and their labels.
struct Batch {
  torch::Tensor padded, lengths, labels;
};

Batch make_batch(int64_t batch, int64_t max_len) {
  auto lengths = torch::randint(3, max_len + 1, {batch});
  auto padded = torch::zeros({max_len, batch, 1});
  auto labels = torch::zeros({batch}, torch::kLong);
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t n = lengths[b].item<int64_t>();
    auto values = torch::rand({n});
    padded.index_put_({Slice(0, n), b, 0}, values);
    labels[b] = (values[0] > values[n - 1]).to(torch::kLong).item<int64_t>();
  }
  return {padded, lengths, labels};
}

int main() {
  torch::manual_seed(2);
  BiGRU model;
  std::cout << model << "\n";
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(0.01));
  for (int step = 1; step <= 150; ++step) {
    Batch b = make_batch(32, 10);
    auto packed = rnn::pack_padded_sequence(b.padded, b.lengths, /*batch_first=*/false, /*enforce_sorted=*/false);
    auto loss = torch::nn::functional::cross_entropy(model->forward(packed), b.labels);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    if (step % 50 == 0) std::printf("step %d: loss %.4f\n", step, loss.item<double>());
  }
  torch::NoGradGuard no_grad;
  Batch test = make_batch(500, 10);
  auto logits = model->forward(rnn::pack_padded_sequence(test.padded, test.lengths, false, false));
  const double accuracy = logits.argmax(1).eq(test.labels).to(torch::kDouble).mean().item<double>();
  std::printf("accuracy on 500 new sequences: %.3f\n", accuracy);
  const bool ok = accuracy > 0.9;
  std::cout << (ok ? "OK" : "FAILED: the bidirectional GRU did not learn") << "\n";
  return ok ? 0 : 1;
}
