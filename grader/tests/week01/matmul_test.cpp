// Task week01.matmul: torch.matmul picks dot, mv, mm, a folded mm/mv or a batched bmm
// by the operands' ranks. 48 random products (every pair of ranks 1-4, with
// broadcast batch dims) and the error of each path come from PyTorch 1.13.

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

TEST(week01_matmul, MatchesPyTorchForEveryPairOfRanks) {
  for (const auto& c : oracle_json("matmul_random")) {
    SCOPED_TRACE(c.dump());
    const Tensor a = tensor_from_json(c.at("a")), b = tensor_from_json(c.at("b"));
    const Tensor out = matmul(a, b);
    expect_values(out, values_from_json(c.at("out")), 1e-5, 1e-5);
    EXPECT_FALSE(out.is_alias_of(a));
    EXPECT_FALSE(out.is_alias_of(b));
    // The same operands in other layouts give the same product.
    const Tensor at = a.dim() >= 2 ? a.transpose(-2, -1).contiguous().transpose(-2, -1) : a;
    const Tensor bt = b.dim() >= 2 ? b.transpose(-2, -1).contiguous().transpose(-2, -1) : b;
    expect_values(matmul(at, bt), values_from_json(c.at("out")), 1e-5, 1e-5);
  }
}

TEST(week01_matmul, RanksPickTheProduct) {
  const Tensor v = arange(3, kFloat32), m = arange(6, kFloat32).view({2, 3});
  EXPECT_EQ(matmul(v, v).dim(), 0);                                     // dot
  EXPECT_EQ(matmul(m, v).sizes().vec(), (Shape{2}));                    // mv
  EXPECT_EQ(matmul(v, m.t()).sizes().vec(), (Shape{2}));                // (1 x 3) mm, squeezed
  EXPECT_EQ(matmul(m, m.t()).sizes().vec(), (Shape{2, 2}));             // mm
  EXPECT_EQ(matmul(zeros({4, 2, 3}), v).sizes().vec(), (Shape{4, 2}));  // folded mv
  EXPECT_EQ(matmul(v, zeros({4, 3, 5})).sizes().vec(), (Shape{4, 5}));  // folded on the transposes
  const Tensor r = matmul(m, zeros({4, 3, 5}));
  EXPECT_EQ(r.sizes().vec(), (Shape{4, 2, 5}));
  EXPECT_TRUE(r.is_contiguous());
  EXPECT_EQ(matmul(zeros({2, 1, 2, 3}), zeros({5, 3, 4})).sizes().vec(), (Shape{2, 5, 2, 4}));  // broadcast bmm
  expect_values(matmul(arange(6).view({2, 3}), arange(3)), oracle_values("matmul_int"));
}

TEST(week01_matmul, EachPathGivesPyTorchsError) {
  for (const auto& c : oracle_json("matmul_errors")) {
    SCOPED_TRACE(c.dump());
    const Tensor a = zeros(c.at("a").get<Shape>()), b = zeros(c.at("b").get<Shape>());
    expect_error_json([&] { (void)matmul(a, b); }, c.at("error"));
  }
}
