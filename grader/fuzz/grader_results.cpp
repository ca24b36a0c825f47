// Fuzz target: the results files a task's test program and benchmark write (GoogleTest's
// and Google Benchmark's JSON). Student code runs in those programs and can write anything
// there: a malformed file fails that task, and must never end the grading run.

#include <string>

#include "fuzz_input.hpp"
#include "grader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kindling::grader;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Task task;
  task.id = "week01.view";
  task.week = "week01";
  task.points = 5;
  ProcessResult run;
  run.exit_code = size % 2;
  run.output = text;  // the test's log, searched for the test that was running
  (void)classify(task, run, text, 10);
  std::string error;
  (void)perf_value({"week01", "BM_View", "speedup", 3.0, 1.5}, text, error);
  (void)perf_value({"week01", "BM_View", "ratio", 1.0, 2.0}, text, error);
  return 0;
}
