// The engine's layout pictures (draw.hpp): the SVG is well formed, places every element over the
// storage index its strides give, and refuses what it cannot draw.

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include <kindling/draw.hpp>
#include <kindling/kindling.hpp>

namespace kindling {
namespace {

// The "@k" labels of the tensor cells (storage indices), in drawing order.
std::vector<int> offsets_drawn(const std::string& svg) {
  std::vector<int> out;
  const std::regex at(">@([0-9]+)<");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), at); it != std::sregex_iterator(); ++it)
    out.push_back(std::stoi((*it)[1]));
  return out;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// Every element opened is closed, in order (the SVG is a tree of <svg>, <rect/> and <text>).
bool well_formed(const std::string& svg) {
  std::vector<std::string> open;
  const std::regex tag("<(/?)([a-z]+)[^>]*?(/?)>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tag); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[2];
    if ((*it)[3] == "/") continue;
    if ((*it)[1] == "/") {
      if (open.empty() || open.back() != name) return false;
      open.pop_back();
    } else {
      open.push_back(name);
    }
  }
  return open.empty();
}

TEST(EngineDraw, ATransposeReadsTheSameStorageInAnotherOrder) {
  const Tensor a = arange(6).reshape({2, 3});
  const std::string svg = draw::layout_svg({{"a", a}, {"a.t()", a.t()}});
  EXPECT_TRUE(well_formed(svg));
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(count(svg, "<rect"), 1u + 6 + 6 + 6);  // background, the strip, a, a.t()
  EXPECT_EQ(offsets_drawn(svg), (std::vector<int>{0, 1, 2, 3, 4, 5, 0, 3, 1, 4, 2, 5}));
  EXPECT_NE(svg.find("a.t(): sizes [3, 2], strides [1, 3], offset 0"), std::string::npos);
  EXPECT_NE(svg.find("storage: 6 elements of int64"), std::string::npos) << svg;
  EXPECT_EQ(svg, draw::layout_svg({{"a", a}, {"a.t()", a.t()}}));  // deterministic
}

TEST(EngineDraw, SlicesSkipExpandsRepeatAndThreeDimsDrawBlocks) {
  const Tensor x = arange(12, kFloat32);
  EXPECT_EQ(offsets_drawn(draw::layout_svg({{"x[1::3]", x.slice(0, 1, std::nullopt, 3)}})),
            (std::vector<int>{1, 4, 7, 10}));
  const Tensor row = x.slice(0, 0, 3);
  EXPECT_EQ(offsets_drawn(draw::layout_svg({{"row.expand(2, 3)", row.expand({2, 3})}})),
            (std::vector<int>{0, 1, 2, 0, 1, 2}));
  const std::string cube = draw::layout_svg({{"c", x.reshape({2, 2, 3})}});
  EXPECT_TRUE(well_formed(cube));
  EXPECT_NE(cube.find(">[1]<"), std::string::npos);  // the second block's label
  EXPECT_EQ(offsets_drawn(cube).size(), 12u);
  EXPECT_NE(draw::layout_svg({{"s", scalar_tensor(2.5)}}).find(">2.5<"), std::string::npos);
}

TEST(EngineDraw, RefusesWhatItCannotDraw) {
  EXPECT_THROW((void)draw::layout_svg({}), Error);
  EXPECT_THROW((void)draw::layout_svg({{"a", arange(4)}, {"b", arange(4)}}), Error);  // two storages
  EXPECT_THROW((void)draw::layout_svg({{"big", arange(65)}}), Error);
  EXPECT_THROW((void)draw::layout_svg({{"slice of a big storage", arange(100).slice(0, 0, 4)}}), Error);
  EXPECT_THROW((void)draw::layout_svg({{"4-d", zeros({1, 1, 1, 2})}}), Error);
  try {
    (void)draw::layout_svg({{"a", arange(4)}, {"b", arange(4)}});
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("b does not share a's storage"), std::string::npos) << e.what();
  }
}

TEST(EngineDraw, ATimelineHasALanePerNameAndABarPerEntry) {
  const std::vector<draw::Bar> bars{
      {"worker 0", 0, 2, "i0", 0}, {"worker 1", 1, 3, "i1", 1}, {"loop", 2, 5, "b0", 0}, {"loop", 0, 2, "wait", -1}};
  const std::string svg = draw::timeline_svg("two workers", bars, "ms");
  EXPECT_TRUE(well_formed(svg));
  EXPECT_EQ(count(svg, "<rect"), 1u + 4);
  EXPECT_NE(svg.find(">worker 1<"), std::string::npos);
  EXPECT_NE(svg.find(">5 ms<"), std::string::npos) << svg;  // the axis ends at the last bar's end
  EXPECT_NE(svg.find("#e5e5e5"), std::string::npos);        // a negative group is grey
  EXPECT_THROW((void)draw::timeline_svg("t", {}, "ms"), Error);
  EXPECT_THROW((void)draw::timeline_svg("t", {{"x", 3, 2, "backwards", 0}}, "ms"), Error);
}

}  // namespace
}  // namespace kindling
