// The exercises generator's rules.

#include <gtest/gtest.h>

#include "gen.hpp"

using namespace kindling::gen;

namespace {
const std::set<std::string> kKnown{"week01.view", "week01.reshape"};

std::string error_of(const std::string& text) {
  try {
    stub_regions(text, "f.hpp", &kKnown);
  } catch (const GenError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Generator, RegionBecomesTodoStub) {
  const auto s = stub_regions("int f() {\n  // BEGIN SOLUTION week01.view\n  return 42;\n  // END SOLUTION\n}\n",
                              "f.hpp", &kKnown);
  EXPECT_EQ(s.text,
            "int f() {\n  // BEGIN TASK week01.view (replace the stub below with your code)\n"
            "  KINDLING_TODO(\"week01.view\");\n  // END TASK\n}\n");
  ASSERT_EQ(s.regions.size(), 1u);
  EXPECT_EQ(s.regions[0].line, 2);
}

TEST(Generator, StubLinesReplaceTheDefault) {
  const auto s = stub_regions("  // BEGIN SOLUTION week01.view\n  // STUB: return {};\n  real();\n  // END SOLUTION\n",
                              "f.hpp", &kKnown);
  EXPECT_NE(s.text.find("  return {};\n"), std::string::npos) << s.text;
  EXPECT_EQ(s.text.find("real()"), std::string::npos);
  EXPECT_EQ(s.text.find("KINDLING_TODO"), std::string::npos);
}

// Engine code that would give a task's answer away: the worksheet gets the region's WORKSHEET lines.
TEST(Generator, AReferenceOnlyRegionBecomesItsWorksheetForm) {
  const auto s = stub_regions(
      "int f() {\n  // BEGIN REFERENCE ONLY week01.view\n  // WORKSHEET: return 1;\n  return tree();\n"
      "  // END REFERENCE ONLY\n}\n",
      "f.cu", &kKnown);
  EXPECT_EQ(s.text.find("tree()"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("  return 1;\n"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("task week01.view asks"), std::string::npos) << s.text;
  EXPECT_TRUE(s.regions.empty()) << "a REFERENCE ONLY region is no task region";
  EXPECT_EQ(error_of("// BEGIN REFERENCE ONLY week01.view\nx();\n// END REFERENCE ONLY\n"),
            "f.hpp:1: a REFERENCE ONLY region needs the worksheet's code (// WORKSHEET:)");
  EXPECT_EQ(error_of("// BEGIN REFERENCE ONLY week09.nope\n// WORKSHEET: y();\n// END REFERENCE ONLY\n"),
            "f.hpp:1: BEGIN REFERENCE ONLY must name the task whose answer it holds, not 'week09.nope'");
  EXPECT_EQ(error_of("// BEGIN REFERENCE ONLY week01.view\n// WORKSHEET: y();\n"),
            "f.hpp:1: unclosed REFERENCE ONLY region");
}

TEST(Generator, UnclosedRegionNamesFileAndLine) {
  EXPECT_EQ(error_of("a\n// BEGIN SOLUTION week01.view\nb\n"),
            "f.hpp:2: unclosed region week01.view: BEGIN SOLUTION has no END SOLUTION");
}

TEST(Generator, NestedRegionNamesFileAndLine) {
  EXPECT_EQ(error_of("// BEGIN SOLUTION week01.view\n// BEGIN SOLUTION week01.reshape\n// END SOLUTION\n"),
            "f.hpp:2: nested BEGIN SOLUTION: region week01.view opened at line 1 is not closed");
}

TEST(Generator, UnnamedRegionNamesFileAndLine) {
  EXPECT_EQ(error_of("x\n// BEGIN SOLUTION\n// END SOLUTION\n"),
            "f.hpp:2: BEGIN SOLUTION without a task id (expected weekNN.name)");
}

TEST(Generator, UnknownTaskIdNamesFileAndLine) {
  EXPECT_EQ(error_of("// BEGIN SOLUTION week01.nope\n// END SOLUTION\n"),
            "f.hpp:1: task id 'week01.nope' is not in the manifest (grader/tasks.json)");
}

TEST(Generator, StrayEndNamesFileAndLine) {
  EXPECT_EQ(error_of("x\n// END SOLUTION\n"), "f.hpp:2: END SOLUTION without a matching BEGIN SOLUTION");
}

TEST(Generator, MalformedIdIsRejected) {
  EXPECT_EQ(error_of("// BEGIN SOLUTION View\n// END SOLUTION\n"),
            "f.hpp:1: malformed task id 'View' (expected weekNN.name, snake_case)");
}

TEST(Generator, LectureSamplesBecomeFunctionsWithExpectedOutput) {
  const std::string md = "# T\n```cpp\nstd::cout << 1;\n```\n\n```text\n1\n```\nprose\n```cpp\nint x = 2;\n```\n";
  const std::string program = lecture_program(md, "l.md");
  EXPECT_NE(program.find("void sample_0()"), std::string::npos);
  EXPECT_NE(program.find("void sample_1()"), std::string::npos);
  EXPECT_NE(program.find("#line 3 \"l.md\""), std::string::npos) << program;
  EXPECT_NE(program.find("R\"KINDLING(1\n)KINDLING\""), std::string::npos) << program;
}
