// Fits y = 3x - 1 with one nn::Linear(1, 1) and plain gradient descent, using the
// installed Kindling engine (find_package(Kindling), target kindling::kindling).

#include <cstdio>

#include <kindling/autograd.hpp>
#include <kindling/kindling.hpp>
#include <kindling/nn.hpp>

using namespace kindling;

int main() {
  manual_seed(0);
  const Tensor x = tensor({-2.0f, -1.0f, 0.0f, 1.0f, 2.0f, 3.0f}).reshape({6, 1});
  const Tensor y = x * 3 - 1;
  nn::Linear line(1, 1);
  const float lr = 0.05f;
  for (int step = 0; step < 300; ++step) {
    line.zero_grad();
    const Tensor error = line.forward(x) - y;
    const Tensor loss = (error * error).mean();
    loss.backward();
    NoGradGuard no_grad;  // the update itself is not part of the graph
    for (const Tensor& p : line.parameters()) p.sub_(p.grad() * lr);
    if (step % 100 == 0) std::printf("step %3d  loss %.6f\n", step, loss.item<float>());
  }
  std::printf("weight %.3f  bias %.3f\n", line.weight.item<float>(), line.bias.item<float>());
  return 0;
}
