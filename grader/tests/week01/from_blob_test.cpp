// Task week01.from_blob: a tensor over the caller's memory, the C++ side of the study
// notes' NumPy bridge ("a에 수정했는데 b도 값이 변해있습니다": a changed, and b
// changed with it), and in-place ops that return the very tensor they wrote.

#include <array>
#include <cstdint>

#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

TEST(week01_from_blob, WritesThroughEitherSideAreSeenByTheOther) {
  std::array<float, 6> data{1, 2, 3, 4, 5, 6};
  const Tensor t = from_blob(data.data(), {2, 3}, {3, 1});
  EXPECT_EQ(t.data_ptr(), static_cast<void*>(data.data()));
  EXPECT_EQ(t.dtype(), kFloat32);
  data[4] = 50;  // the array changes: the tensor sees it
  EXPECT_EQ(t.at<float>({1, 1}), 50.0f);
  t.select(1, 0).fill_(0);  // the tensor changes: the array sees it
  EXPECT_EQ(data, (std::array<float, 6>{0, 2, 3, 0, 50, 6}));
}

TEST(week01_from_blob, InPlaceOpsReturnTheSameTensorAndBumpItsVersion) {
  std::array<std::int64_t, 4> data{1, 2, 3, 4};
  const Tensor t = from_blob(data.data(), {4}, {1}, kInt64);
  const std::uint32_t v0 = t.version();
  const Tensor& a = t.add_(10);
  EXPECT_TRUE(a.is_same(t));  // the same TensorImpl, as Python's `id(x.add_(1)) == id(x)`
  EXPECT_EQ(t.version(), v0 + 1);
  const Tensor& m = t.mul_(2);
  EXPECT_TRUE(m.is_same(t));
  EXPECT_EQ(t.version(), v0 + 2);
  EXPECT_EQ(data, (std::array<std::int64_t, 4>{22, 24, 26, 28}));
  // The out-of-place form makes a new tensor in new memory and leaves the array alone.
  const Tensor b = t + 1;
  EXPECT_FALSE(b.is_alias_of(t));
  EXPECT_EQ(data[0], 22);
}

TEST(week01_from_blob, StridesAreTheCallersAndTheStorageCoversWhatTheyReach) {
  // A column-major 2 x 3 matrix (Fortran order, as NumPy's order='F').
  std::array<double, 6> data{1, 4, 2, 5, 3, 6};
  const Tensor t = from_blob(data.data(), {2, 3}, {1, 2}, kFloat64);
  EXPECT_EQ(t.to_vector<double>(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.storage().nbytes(), 6 * sizeof(double));
  // Every other element of 7: the storage ends at the last element reached.
  std::array<float, 7> seven{};
  EXPECT_EQ(from_blob(seven.data(), {4}, {2}).storage().nbytes(), 7 * sizeof(float));
  EXPECT_EQ(from_blob(seven.data(), {3, 0}, {1, 1}).storage().nbytes(), 0u);
  EXPECT_EQ(from_blob(seven.data(), Shape{}, Shape{}).numel(), 1);
}

TEST(week01_from_blob, TheDeleterRunsOnceWhenTheLastHandleGoes) {
  std::array<float, 4> data{1, 2, 3, 4};
  int calls = 0;
  void* seen = nullptr;
  Tensor view;
  {
    const Tensor t = from_blob(data.data(), {2, 2}, {2, 1}, kFloat32, [&](void* p) {
      ++calls;
      seen = p;
    });
    view = t.t();  // a view keeps the memory in use
  }
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(view.at<float>({0, 1}), 3.0f);
  view = Tensor();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, static_cast<void*>(data.data()));
}

TEST(week01_from_blob, BadSizesHaveClearMessages) {
  std::array<float, 4> data{};
  expect_error<Error>(
      [&] {
        (void)from_blob(data.data(), {2, -1}, {1, 1});
      },
      "Trying to create tensor with negative dimension -1: [2, -1]");
  expect_error<Error>(
      [&] {
        (void)from_blob(data.data(), {2, 2}, {1});
      },
      "from_blob: sizes and strides differ in length");
}

TEST(week01_from_blob, TakesTheCallersAddressAsItIsAlignedOrNot) {
  // The kit's own storage starts on a 64-byte cache line, as PyTorch's CPU allocator does.
  const auto line_offset = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64; };
  EXPECT_EQ(line_offset(zeros({3}).data_ptr()), 0U);
  // The caller's memory may start anywhere a float may: 4 bytes into a line here. from_blob
  // must neither copy it to a "better" address nor refuse it.
  alignas(64) static float buffer[32];
  for (int i = 0; i < 32; ++i) buffer[i] = static_cast<float>(i);
  const Tensor t = from_blob(buffer + 1, {2, 3}, {3, 1});
  EXPECT_EQ(t.data_ptr(), static_cast<void*>(buffer + 1));
  EXPECT_EQ(line_offset(t.data_ptr()), 4U);
  EXPECT_EQ(t.select(1, 2).to_vector<float>(), (std::vector<float>{3, 6}));
  // A view keeps its base's address plus the offset: one float64 in is 8 bytes past the line.
  EXPECT_EQ(line_offset(zeros({9}, kFloat64).narrow(0, 1, 8).data_ptr()), 8U);
}
