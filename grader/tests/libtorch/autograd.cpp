// In the style of pytorch/examples cpp/autograd, written against <kindling/torch.hpp>: basic
// autograd, a gradient penalty with torch::autograd::grad(create_graph), second derivatives,
// and two custom functions. Every printed value is checked; exits 0 when all agree.
#include <kindling/torch.hpp>

#include <cmath>
#include <iostream>

using namespace torch::autograd;

namespace {
int failures = 0;
void check(bool ok, const char* what) {
  std::cout << (ok ? "ok     " : "FAILED ") << what << "\n";
  failures += ok ? 0 : 1;
}

class LinearFunction : public Function<LinearFunction> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor input, torch::Tensor weight,
                               torch::Tensor bias = torch::Tensor()) {
    ctx->save_for_backward({input, weight, bias});
    auto output = input.mm(weight.t());
    if (bias.defined()) output += bias.unsqueeze(0).expand_as(output);
    return output;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    auto saved = ctx->get_saved_variables();
    auto g = grad_outputs[0];
    auto grad_bias = saved[2].defined() ? g.sum(0) : torch::Tensor();
    return {g.mm(saved[1]), g.t().mm(saved[0]), grad_bias};
  }
};

class MulConstant : public Function<MulConstant> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor tensor, double constant) {
    ctx->saved_data["constant"] = constant;
    return tensor * constant;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    return {grad_outputs[0] * ctx->saved_data["constant"].toDouble(), torch::Tensor()};
  }
};
}  // namespace

int main() {
  std::cout << std::boolalpha;
  torch::manual_seed(0);

  // Basic operations: out = mean(3 (x + 2)^2), d out / dx = 1.5 (x + 2) = 4.5 at x = 1.
  auto x = torch::ones({2, 2}, torch::requires_grad());
  auto y = x + 2;
  auto z = y * y * 3;
  auto out = z.mean();
  std::cout << y.grad_fn()->name() << " " << z.grad_fn()->name() << " " << out.grad_fn()->name() << "\n";
  check(y.grad_fn()->name() == "AddBackward0" && out.grad_fn()->name() == "MeanBackward0", "node names");
  out.backward();
  std::cout << x.grad() << "\n";
  check(torch::allclose(x.grad(), torch::full({2, 2}, 4.5)), "d out / dx = 4.5");

  // A vector-Jacobian product.
  auto v = torch::tensor({0.1, 1.0, 0.0001}, torch::kFloat);
  auto a = torch::randn({3}, torch::requires_grad());
  auto b = a * 2;
  int doublings = 1;
  while (b.norm().item<double>() < 1000) {
    b = b * 2;
    ++doublings;
  }
  b.backward(v);
  check(torch::allclose(a.grad(), v * std::pow(2.0, doublings)), "vector-Jacobian product");
  {
    torch::NoGradGuard no_grad;
    check(!a.pow(2).requires_grad(), "no_grad records nothing");
  }
  check(a.detach().eq(a).all().item<bool>(), "detach shares the values");

  // A gradient penalty: the norm of d output / d input pushed towards 1.
  auto model = torch::nn::Linear(4, 3);
  auto input = torch::randn({3, 4}).requires_grad_(true);
  auto output = model(input);
  auto target = torch::randn({3, 3});
  auto loss = torch::nn::MSELoss()(output, target);
  auto gradient = grad({output}, {input}, {torch::ones_like(output)}, /*retain_graph=*/true, /*create_graph=*/true)[0];
  auto penalty = torch::pow(gradient.norm(2, /*dim=*/1) - 1, 2).mean();
  (loss + penalty).backward();
  check(input.grad().defined() && model->weight.grad().defined(), "the penalty reaches the weights");

  // Second derivatives: d²/dx² x³ = 6x.
  auto s = torch::tensor({1.0, 2.0, 3.0}, torch::requires_grad());
  auto first = grad({s.pow(3).sum()}, {s}, {}, std::nullopt, /*create_graph=*/true)[0];
  auto second = grad({first.sum()}, {s})[0];
  std::cout << second << "\n";
  check(torch::allclose(second, s.detach() * 6), "second derivative of x^3");

  // Custom functions.
  auto cx = torch::randn({2, 3}).requires_grad_();
  auto weight = torch::randn({4, 3}).requires_grad_();
  LinearFunction::apply(cx, weight).sum().backward();
  check(torch::allclose(cx.grad(), weight.sum(0).expand({2, 3})), "LinearFunction: d/dx");
  check(torch::allclose(weight.grad(), cx.detach().sum(0).expand({4, 3})), "LinearFunction: d/dweight");
  auto mx = torch::randn({2}).requires_grad_();
  MulConstant::apply(mx, 5.5).sum().backward();
  check(torch::allclose(mx.grad(), torch::full({2}, 5.5)), "MulConstant");

  std::cout << (failures == 0 ? "OK" : "FAILED") << "\n";
  return failures == 0 ? 0 : 1;
}
