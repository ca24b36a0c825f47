// Task week06.ordered_index_add: index_add with the same bits on every run. Graded on the simulator
// in several thread orders, against the host's sums added in the order j = 0, 1, ..., and through
// the engine: index_select's gradient on `cuda` under use_deterministic_algorithms(true).

#include <cstdint>
#include <cstring>
#include <vector>

#include <kindling/cuda/kernels.hpp>
#include <kindling/cuda/runtime.hpp>
#include <kindling/cuda/sim.hpp>
#include <kindling/deterministic.hpp>
#include <kindling/kindling.hpp>

#include "sim_arrays.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {
namespace cu = kindling::cuda;
using sim_arrays::DeviceFloats;

// A device array of int64 of exactly its size (the simulator's bounds are the array's).
class DeviceIndex {
 public:
  explicit DeviceIndex(const std::vector<std::int64_t>& v) : p_(cu::sim_runtime().malloc(8 * (v.size() + 1))) {
    if (!v.empty()) cu::sim_runtime().memcpy(p_, v.data(), 8 * v.size(), cu::CopyKind::HostToDevice);
  }
  ~DeviceIndex() {
    cu::sim::reset_device();
    cu::sim_runtime().free(p_);
  }
  DeviceIndex(const DeviceIndex&) = delete;
  DeviceIndex& operator=(const DeviceIndex&) = delete;
  cu::DevPtr<const std::int64_t> cptr() const { return cu::device_ptr<const std::int64_t>(p_); }

 private:
  void* p_;
};

// Values whose float sums depend on the order of the additions: large ones that cancel, among ones.
std::vector<float> uneven(std::size_t n, int salt) {
  std::vector<float> v(n, 1.0f);
  for (std::size_t e = 0; e < n; ++e)
    if ((e + static_cast<std::size_t>(salt)) % 7 == 0) v[e] = (e % 2 ? -1e8f : 1e8f) * (1.0f + 0.125f * (e % 3));
  return v;
}

// Runs the task on out [outer, size, inner] (starting at `init`) and src [outer, count, inner], and
// compares every element with the host's additions in order j = 0, 1, ...: the same bits.
void expect_ordered(std::int64_t outer, std::int64_t size, std::int64_t count, std::int64_t inner,
                    const std::vector<std::int64_t>& index) {
  const auto n_out = static_cast<std::size_t>(outer * size * inner),
             n_src = static_cast<std::size_t>(outer * count * inner);
  std::vector<float> want = uneven(n_out, 3), src = uneven(n_src, 0);
  const DeviceFloats dout(want), dsrc(src);
  const DeviceIndex didx(index);
  try {
    cu::index_add_ordered<float>(dout.ptr(), dsrc.cptr(), didx.cptr(), outer, size, count, inner);
    cu::synchronize();
  } catch (const NotImplemented&) {
    throw;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "outer " << outer << ", size " << size << ", count " << count << ", inner " << inner
                  << ": the kernel failed on the simulator: " << e.what();
    return;
  }
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < count; ++j)
      for (std::int64_t i = 0; i < inner; ++i)
        want[static_cast<std::size_t>((o * size + index[static_cast<std::size_t>(j)]) * inner + i)] +=
            src[static_cast<std::size_t>((o * count + j) * inner + i)];
  const auto got = dout.host();
  for (std::size_t e = 0; e < want.size(); ++e)
    if (std::memcmp(&got[e], &want[e], sizeof(float)) != 0) {
      ADD_FAILURE() << "outer " << outer << ", size " << size << ", count " << count << ", inner " << inner
                    << ": out element " << e << " is " << got[e] << ", the host's additions in the order j = 0, 1, "
                    << "... give " << want[e] << " (the simulator ran your threads in several orders; the last "
                    << "order's result is compared)";
      return;
    }
}
}  // namespace

TEST(week06_ordered_index_add, RepeatedIndicesAddUpInTheOrderOfJ) {
  std::vector<std::int64_t> all_zero(60, 0);
  expect_ordered(1, 1, 60, 1, all_zero);  // one element receives 60 additions
  expect_ordered(1, 4, 10, 1, {3, 0, 3, 1, 3, 3, 0, 2, 3, 1});
}

TEST(week06_ordered_index_add, EveryOuterAndInnerPositionIsItsOwn) {
  expect_ordered(3, 5, 40, 7, [] {
    std::vector<std::int64_t> v;
    for (int j = 0; j < 40; ++j) v.push_back((j * 3) % 5);
    return v;
  }());
  expect_ordered(2, 3, 5, 130, {2, 2, 0, 2, 1});  // inner wider than a block of threads
  expect_ordered(300, 2, 3, 1, {1, 1, 0});        // more columns than one block
}

TEST(week06_ordered_index_add, RowsThatNoIndexNamesAreLeftAsTheyWere) {
  expect_ordered(2, 6, 4, 3, {5, 5, 1, 5});  // rows 0, 2, 3 and 4 keep their values
}

TEST(week06_ordered_index_add, NothingToAddLaunchesNothing) {
  const DeviceFloats out(std::vector<float>{1.0f, 2.0f});
  const DeviceFloats none(std::vector<float>{});
  const DeviceIndex no_index(std::vector<std::int64_t>{});
  cu::index_add_ordered<float>(out.ptr(), none.cptr(), no_index.cptr(), 1, 2, 0, 1);
  cu::index_add_ordered<float>(none.ptr(), none.cptr(), no_index.cptr(), 0, 2, 3, 1);
  EXPECT_EQ(out.host(), (std::vector<float>{1.0f, 2.0f}));
}

// The engine's index_add under use_deterministic_algorithms(true) is your kernel: index_select's
// gradient on `cuda` is the CPU's, bit for bit, whatever order the device runs its threads in.
TEST(week06_ordered_index_add, TheEnginesDeterministicGradientIsTheCpusInEveryThreadOrder) {
  struct Restore {
    bool saved = are_deterministic_algorithms_enabled();
    ~Restore() { use_deterministic_algorithms(saved); }
  } restore;
  use_deterministic_algorithms(true);
  const std::vector<float> gv = uneven(40 * 3, 1);
  const Tensor g = tensor(gv).reshape({40, 3});
  std::vector<std::int64_t> iv;
  for (int j = 0; j < 40; ++j) iv.push_back(j % 3 == 0 ? 0 : j % 4);
  const Tensor index = tensor(iv);
  const Tensor x = zeros({4, 3}).requires_grad_();
  index_select(x, 0, index).backward(g);
  const Tensor cpu = x.grad();
  for (const int order : {0, 1, 2, 3}) {
    const Tensor xd = zeros({4, 3}).cuda().requires_grad_();
    const Tensor y = index_select(xd, 0, index.cuda());
    const cu::sim::ScopedThreadOrder threads(order);
    y.backward(g.cuda());
    EXPECT_TRUE(equal(xd.grad().cpu(), cpu)) << "thread order " << order << ":\n"
                                             << xd.grad().cpu() << "\nCPU:\n"
                                             << cpu;
  }
}

// Floats of double precision too (the engine's index_add of float64 tensors).
TEST(week06_ordered_index_add, DoublesAreAddedInOrderToo) {
  struct Restore {
    bool saved = are_deterministic_algorithms_enabled();
    ~Restore() { use_deterministic_algorithms(saved); }
  } restore;
  use_deterministic_algorithms(true);
  std::vector<double> gv(50, 1.0);
  gv[0] = 1e17;
  gv[1] = -1e17;
  const Tensor g = tensor(gv).reshape({50, 1});
  const Tensor x = zeros({1, 1}, kFloat64).cuda().requires_grad_();
  const Tensor y = index_select(x, 0, zeros({50}, kInt64).cuda());
  const cu::sim::ScopedThreadOrder reverse(1);
  y.backward(g.cuda());
  EXPECT_EQ(x.grad().cpu().item<double>(), 48.0) << "1e17 - 1e17, then 48 ones, in the order of j";
}

}  // namespace kindling::testing
