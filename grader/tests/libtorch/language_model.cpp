// In the style of the LibTorch tutorials' language model, written against <kindling/torch.hpp>:
// a word-level model (torch::nn::Embedding, a torch::nn::LSTM, a linear layer to the vocabulary)
// learns a small text by truncated backpropagation through time: batches cut with
// ids.index({Slice(), Slice(i, i + steps)}), the state carried across them detached, the
// gradient clipped. Then it samples words with Tensor::multinomial. Exits 0 when its perplexity
// on the text fell below 3 (a uniform guess over its 14 words has perplexity 14).
#include <kindling/torch.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using torch::indexing::Slice;

struct RNNLMImpl : torch::nn::Module {
  RNNLMImpl(int64_t vocab_size, int64_t embed_size, int64_t hidden_size)
      : embed(vocab_size, embed_size),
        lstm(torch::nn::LSTMOptions(embed_size, hidden_size).batch_first(true)),
        linear(hidden_size, vocab_size) {
    register_module("embed", embed);
    register_module("lstm", lstm);
    register_module("linear", linear);
  }
  std::tuple<torch::Tensor, std::tuple<torch::Tensor, torch::Tensor>> forward(
      torch::Tensor x, std::tuple<torch::Tensor, torch::Tensor> hx) {
    auto [out, state] = lstm->forward(embed->forward(x), hx);     // (batch, steps, hidden)
    out = out.reshape({out.size(0) * out.size(1), out.size(2)});  // one row per word
    return {linear->forward(out), state};
  }
  torch::nn::Embedding embed;
  torch::nn::LSTM lstm;
  torch::nn::Linear linear;
};
TORCH_MODULE(RNNLM);

int main() {
  torch::manual_seed(5);
  const std::string text =
      "the cat sat on the mat . the dog sat on the log . a cat saw a dog . the dog saw the cat on the mat . "
      "a bird sat on a tree . the bird saw the cat . the cat ran to the tree . the dog ran to the log . ";
  std::map<std::string, int64_t> word2idx;
  std::vector<std::string> idx2word;
  std::vector<int64_t> ids;
  for (int repeat = 0; repeat < 8; ++repeat) {
    std::istringstream words(text);
    for (std::string w; words >> w;) {
      if (!word2idx.count(w)) {
        word2idx[w] = static_cast<int64_t>(idx2word.size());
        idx2word.push_back(w);
      }
      ids.push_back(word2idx[w]);
    }
  }
  const auto vocab = static_cast<int64_t>(idx2word.size());
  const int64_t batch_size = 4, steps = 12;
  const int64_t per_row = static_cast<int64_t>(ids.size()) / batch_size;
  // (batch, words): each row a contiguous stretch of the text, as the tutorial's corpus is cut.
  auto data =
      torch::tensor(std::vector<int64_t>(ids.begin(), ids.begin() + batch_size * per_row)).view({batch_size, per_row});

  RNNLM model(vocab, 16, 48);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(0.01));
  double perplexity = 0;
  for (int epoch = 1; epoch <= 12; ++epoch) {
    auto state = std::make_tuple(torch::zeros({1, batch_size, 48}), torch::zeros({1, batch_size, 48}));
    double sum = 0;
    int64_t batches = 0;
    for (int64_t i = 0; i + steps < per_row; i += steps) {
      auto inputs = data.index({Slice(), Slice(i, i + steps)});
      auto targets = data.index({Slice(), Slice(i + 1, i + 1 + steps)}).reshape(-1);
      // Truncated backpropagation: the state goes on, its history does not.
      state = std::make_tuple(std::get<0>(state).detach(), std::get<1>(state).detach());
      auto [output, next] = model->forward(inputs, state);
      state = next;
      auto loss = torch::nn::functional::nll_loss(torch::nn::functional::log_softmax(output, 1), targets);
      optimizer.zero_grad();
      loss.backward();
      torch::nn::utils::clip_grad_norm_(model->parameters(), 0.5);
      optimizer.step();
      sum += loss.item<double>();
      ++batches;
    }
    perplexity = std::exp(sum / static_cast<double>(batches));
    std::printf("epoch %d: perplexity %.3f\n", epoch, perplexity);
  }

  torch::NoGradGuard no_grad;
  auto state = std::make_tuple(torch::zeros({1, 1, 48}), torch::zeros({1, 1, 48}));
  auto input = torch::tensor(std::vector<int64_t>{word2idx["the"]}).unsqueeze_(0);  // (1, 1)
  std::string sample = "the";
  for (int k = 0; k < 12; ++k) {
    auto [output, next] = model->forward(input, state);
    state = next;
    auto prob = output.exp_();                  // unnormalised: multinomial takes weights
    auto word_id = prob.multinomial(1).item();  // a Scalar
    input.fill_(word_id);
    sample += " " + idx2word[static_cast<size_t>(word_id.toLong())];
  }
  std::cout << "sampled: " << sample << "\n";
  const bool ok = perplexity < 3.0;
  std::cout << (ok ? "OK" : "FAILED: the model did not learn the text") << "\n";
  return ok ? 0 : 1;
}
