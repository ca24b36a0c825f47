// Task week06.row_softmax: a numerically stable softmax of each row, one block per row, checked
// against PyTorch 1.13's torch.softmax(x, dim=1) (tools/oracle/week06.py) on the simulator.

#include <cmath>
#include <string>
#include <vector>

#include <kindling/cuda/kernels.hpp>
#include <kindling/cuda/sim.hpp>
#include <kindling/kindling.hpp>

#include "sim_arrays.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {
namespace cu = kindling::cuda;
using sim_arrays::DeviceFloats;

std::vector<float> softmax_rows(const std::vector<float>& x, int rows, int cols) {
  const DeviceFloats dx(x);
  const DeviceFloats y = DeviceFloats::uninitialized(x.size());
  cu::softmax_rows(dx.cptr(), y.ptr(), rows, cols);
  return y.host();
}

void expect_case(const nlohmann::json& c) {
  const std::string name = c["name"].get<std::string>();
  const int rows = c["rows"].get<int>(), cols = c["cols"].get<int>();
  const auto x = sim_arrays::floats_of(c["x"]), want = sim_arrays::floats_of(c["y"]);
  std::vector<float> got;
  try {
    got = softmax_rows(x, rows, cols);
  } catch (const NotImplemented&) {
    throw;
  } catch (const std::exception& e) {
    FAIL() << name << ": the kernel failed on the simulator: " << e.what();
  }
  ASSERT_EQ(got.size(), want.size()) << name;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << name << ", element " << i << ": " << got[i] << ", PyTorch gives nan";
      continue;
    }
    EXPECT_NEAR(got[i], want[i], 1e-6 + 1e-5 * std::fabs(want[i]))
        << name << ", row " << i / static_cast<std::size_t>(cols) << ", column " << i % static_cast<std::size_t>(cols);
  }
}

const nlohmann::json& named(const std::string& name) {
  for (const auto& c : oracle_json("softmax_rows"))
    if (c["name"] == name) return c;
  throw std::runtime_error("no oracle case " + name);
}
}  // namespace

TEST(week06_row_softmax, MatchesPyTorchForWidthsAroundTheBlock) {
  for (const char* name : {"one column", "five columns", "a block's width", "wider than a block", "a thousand columns"})
    expect_case(named(name));
}

TEST(week06_row_softmax, EachRowIsItsOwn) { expect_case(named("many rows")); }

TEST(week06_row_softmax, LargeInputsDoNotOverflow) {
  // Inputs around 1000: exp(1000) is inf in float, and inf / inf is NaN, unless the row's
  // maximum is subtracted first (the log-sum-exp trick of week 5).
  expect_case(named("large inputs (exp overflows without the max)"));
  // Inputs around -1000: every exp underflows to 0, and 0 / 0 is NaN, unless the maximum is
  // subtracted first.
  expect_case(named("very negative inputs (exp underflows without the max)"));
}

TEST(week06_row_softmax, NaNAndMinusInfinityFollowPyTorch) {
  expect_case(named("NaN, a row of -inf only, and some -inf"));
}

TEST(week06_row_softmax, TheMaximumIsTheWholeRowsNotTheFirstWarps) {
  // Row 0's largest value (120) sits at column 200, row 1's (95) in its last column: a maximum
  // taken over the first 32 columns only (one warp) shifts by 0 and 1, and exp(120) and exp(94)
  // overflow a float (its largest is about exp(88.7)).
  expect_case(named("the largest value past the first warp's columns"));
}

TEST(week06_row_softmax, PlusInfinityInARowGivesNaNThroughoutAsInPyTorch) {
  // The shift is +inf: inf - inf is NaN, and so is the row's sum.
  expect_case(named("+inf in a row"));
}

TEST(week06_row_softmax, NoRowsLaunchNothing) {
  cu::softmax_rows(cu::DevPtr<const float>(), cu::DevPtr<float>(), 0, 10);
  cu::synchronize();
}

// The engine's own softmax, on the device and on the CPU, follows the same cases.
TEST(EngineDeviceSoftmax, MatchesPyTorchOnTheRowSoftmaxCases) {
  for (const char* name : {"wider than a block", "the largest value past the first warp's columns",
                           "NaN, a row of -inf only, and some -inf", "+inf in a row"}) {
    const std::string key = name;  // a named string: GCC 13 warns of a reference bound through a temporary
    const auto& c = named(key);
    const std::int64_t rows = c["rows"].get<int>(), cols = c["cols"].get<int>();
    const auto x = sim_arrays::floats_of(c["x"]), want = sim_arrays::floats_of(c["y"]);
    const Tensor input = tensor(x).reshape({rows, cols});
    for (const Tensor& got : {softmax(input.cuda(), 1).cpu(), softmax(input, 1)}) {
      const Tensor g = got.contiguous();
      for (std::size_t i = 0; i < want.size(); ++i) {
        const float v = static_cast<const float*>(g.data_ptr())[i];
        if (std::isnan(want[i]))
          EXPECT_TRUE(std::isnan(v)) << name << ", element " << i << ": " << v << ", PyTorch gives nan";
        else
          EXPECT_NEAR(v, want[i], 1e-6 + 1e-5 * std::fabs(want[i])) << name << ", element " << i;
      }
    }
  }
}

}  // namespace kindling::testing
