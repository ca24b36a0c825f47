// Task week02.deep_copy: `x = x + c` against `x += c`, told apart by the data pointer, the
// version counter and autograd's rules, and `clone().detach()` as a deep copy. Every fact
// comes from PyTorch 1.13 (tools/oracle/week02.py).

#include <kindling/autograd.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::autograd;
using namespace kindling::testing;

namespace {
// requires_grad, is_leaf, version and grad_fn as PyTorch reported them; same_data_ptr against `before`.
void expect_facts(const Tensor& t, const nlohmann::json& f, const void* before = nullptr) {
  EXPECT_EQ(t.requires_grad(), f.at("requires_grad").get<bool>());
  EXPECT_EQ(t.is_leaf(), f.at("is_leaf").get<bool>());
  EXPECT_EQ(static_cast<std::int64_t>(t.version()), f.at("version").get<std::int64_t>());
  if (f.at("grad_fn").is_null()) {
    EXPECT_EQ(t.grad_fn(), nullptr);
  } else {
    ASSERT_NE(t.grad_fn(), nullptr);
    EXPECT_EQ(t.grad_fn()->name(), f.at("grad_fn").get<std::string>());
  }
  if (before != nullptr) {
    EXPECT_EQ(t.data_ptr() == before, f.at("same_data_ptr").get<bool>());
  }
}
}  // namespace

TEST(week02_deep_copy, RebindingAParameterRecordsANewTensor) {
  const Tensor w = oracle_ramp({2, 3});
  const void* ptr = w.data_ptr();
  const Tensor r = add_rebinding(w, 1.0);
  const auto& c = oracle_json("rebind_leaf");
  expect_facts(r, c.at("result"), ptr);
  expect_facts(w, c.at("w_after"));
  EXPECT_TRUE(equal(r.detach(), w.detach() + 1));
}

TEST(week02_deep_copy, InPlaceOnAParameterIsRefusedUnlessNoGrad) {
  const Tensor w = oracle_ramp({2, 3});
  const void* ptr = w.data_ptr();
  const std::vector<float> before = w.detach().to_vector<float>();
  expect_oracle_error([&] { (void)add_in_place(w, 1.0); }, "inplace_leaf_error");
  EXPECT_EQ(w.detach().to_vector<float>(), before);  // refused before anything was written
  EXPECT_EQ(w.version(), 0U);
  NoGradGuard no_grad;
  // What an optimizer must not do: `p = p - lr * g` leaves a plain tensor, no parameter.
  expect_facts(add_rebinding(w, 1.0), oracle_json("rebind_leaf_no_grad"), ptr);
  // What it does: the parameter itself, written, one version later, still a parameter.
  const Tensor& same = add_in_place(w, 1.0);
  EXPECT_TRUE(same.is_same(w));
  expect_facts(w, oracle_json("inplace_leaf_no_grad"), ptr);
  EXPECT_FLOAT_EQ(w.detach().to_vector<float>()[0], before[0] + 1.0F);
}

TEST(week02_deep_copy, InPlaceOnANonLeafContinuesItsHistory) {
  const Tensor w = oracle_ramp({2, 3});
  Tensor h = w * 2;
  const void* ptr = h.data_ptr();
  const Tensor& same = add_in_place(h, 1.0);
  EXPECT_TRUE(same.is_same(h));
  const auto& c = oracle_json("inplace_nonleaf");
  expect_facts(h, c, ptr);
  h.backward(oracle_gout({2, 3}));
  expect_values(w.grad(), values_from_json(c.at("grad")));
}

TEST(week02_deep_copy, AViewSeesAnInPlaceWriteButNotARebinding) {
  const auto& c = oracle_json("alias_sees_inplace_not_rebind");
  Tensor a = arange(6, kFloat32);
  const Tensor v = a.view({2, 3});
  add_in_place(a, 1.0);
  expect_values(v, values_from_json(c.at("after_inplace")));
  a = add_rebinding(a, 1.0);  // the name a now holds a new tensor; v still views the old one
  expect_values(v, values_from_json(c.at("after_rebind")));
  expect_values(a, values_from_json(c.at("a")));
  EXPECT_FALSE(a.is_alias_of(v));
}

TEST(week02_deep_copy, DeepCopyMatchesCloneDetach) {
  const Tensor w = oracle_ramp({2, 3});
  const std::vector<std::pair<std::string, Tensor>> sources = {
      {"leaf", w},
      {"nonleaf_transposed", (w * 3).t()},
      {"step_slice", (w * 1).slice(1, 0, 3, 2)},
      {"plain", arange(6, kFloat32).reshape({2, 3}).select(0, 1)}};
  const auto& cases = oracle_json("deep_copy");
  ASSERT_EQ(cases.size(), sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const auto& c = cases[i];
    SCOPED_TRACE(c.at("name").get<std::string>());
    ASSERT_EQ(c.at("name").get<std::string>(), sources[i].first);
    const Tensor& src = sources[i].second;
    const Tensor copy = deep_copy(src);
    const auto& f = c.at("copy");
    expect_facts(copy, f, src.data_ptr());
    EXPECT_EQ(copy.strides().vec(), f.at("strides").get<Shape>());
    EXPECT_EQ(copy.storage_offset(), f.at("offset").get<std::int64_t>());
    expect_values(copy, values_from_json(f.at("values")));
    EXPECT_FALSE(copy.is_alias_of(src));
    // The two halves of the idiom, each on its own: detach shares, clone records.
    EXPECT_EQ(src.detach().data_ptr() == src.data_ptr(), c.at("detach_shares").get<bool>());
    const Tensor cl = src.clone();
    EXPECT_EQ(cl.grad_fn() ? cl.grad_fn()->name() : "None",
              c.at("clone_grad_fn").is_null() ? "None" : c.at("clone_grad_fn").get<std::string>());
  }
}

TEST(week02_deep_copy, ADeepCopyIsIndependentOfItsSource) {
  const Tensor w = oracle_ramp({2, 3});
  Tensor h = w * 2;
  h.detach().add_(0.0);  // bump h's version: a copy starts its own count at 0
  ASSERT_EQ(h.version(), 1U);
  const Tensor copy = deep_copy(h);
  EXPECT_EQ(copy.version(), 0U);
  copy.fill_(9.0);  // allowed: no grad, no history; h is untouched
  EXPECT_NE(h.detach().to_vector<float>()[0], 9.0F);
  h.sum().backward();  // h's graph still works, and the copy took no part in it
  EXPECT_EQ(w.grad().to_vector<float>(), std::vector<float>(6, 2.0F));
  EXPECT_FALSE(copy.grad().defined());
  // Under NoGradGuard as well: nothing recorded, nothing shared.
  NoGradGuard no_grad;
  const Tensor c2 = deep_copy(w);
  EXPECT_FALSE(c2.requires_grad());
  EXPECT_FALSE(c2.is_alias_of(w));
}
