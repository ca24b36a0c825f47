// Task week06.visible_devices: CUDA_VISIBLE_DEVICES, by the CUDA runtime's rule. The cases of the
// CUDA C++ Programming Guide ("2,1" shows device 2 then device 1; "0,2,-1,1" shows 0 and 2), and
// strtoul's reading of each entry.

#include <vector>

#include <gtest/gtest.h>
#include <kindling/cuda/runtime.hpp>

#include "testing.hpp"

namespace kindling::testing {
namespace {
namespace cu = kindling::cuda;
using V = std::vector<int>;
}  // namespace

TEST(week06_visible_devices, UnsetShowsEveryDeviceAndEmptyShowsNone) {
  EXPECT_EQ(cu::visible_devices(nullptr, 3), (V{0, 1, 2})) << "the variable unset: every device, in order";
  EXPECT_EQ(cu::visible_devices(nullptr, 0), V{});
  EXPECT_EQ(cu::visible_devices("", 3), V{}) << "set, and empty: no device (is_available() is false)";
}

TEST(week06_visible_devices, TheListedDevicesInTheirOrder) {
  EXPECT_EQ(cu::visible_devices("1", 3), V{1}) << "one GPU of three: the process's cuda:0 is the machine's GPU 1";
  EXPECT_EQ(cu::visible_devices("2,1", 3), (V{2, 1})) << "the order given, not the machine's";
  EXPECT_EQ(cu::visible_devices("0,1,2", 3), (V{0, 1, 2}));
}

TEST(week06_visible_devices, TheFirstEntryThatIsNoDeviceEndsTheList) {
  EXPECT_EQ(cu::visible_devices("0,2,-1,1", 3), (V{0, 2})) << "-1 hides itself and everything after it";
  EXPECT_EQ(cu::visible_devices("0,5,1", 3), V{0}) << "5 is past the machine's 3 devices";
  EXPECT_EQ(cu::visible_devices("3", 3), V{});
  EXPECT_EQ(cu::visible_devices("0,,1", 3), V{0}) << "an empty entry is no index";
  EXPECT_EQ(cu::visible_devices("gpu0,1", 3), V{}) << "no digit at the start: no index";
  EXPECT_EQ(cu::visible_devices("1,1,0", 3), V{1}) << "a repeated device ends the list: none is listed twice";
}

TEST(week06_visible_devices, EachEntryIsReadAsStrtoulReadsANumber) {
  EXPECT_EQ(cu::visible_devices("1gpu2,0", 3), (V{1, 0})) << "the digits at the start: 1gpu2 is 1";
  EXPECT_EQ(cu::visible_devices(" 2, 0", 3), (V{2, 0})) << "blanks before a number are skipped";
  EXPECT_EQ(cu::visible_devices("10,1", 12), (V{10, 1})) << "an index of two digits";
  EXPECT_EQ(cu::visible_devices("01", 3), V{1}) << "a leading zero is still 1";
  EXPECT_EQ(cu::visible_devices("99999999999999999999,0", 3), V{})
      << "a number of twenty digits is no device: it must not overflow into one";
  EXPECT_EQ(cu::visible_devices("4294967297", 3), V{}) << "2^32 + 1 is not device 1";
}

}  // namespace kindling::testing
