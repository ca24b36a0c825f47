// Fuzz target: the files the grader keeps in a student's build folder (grade-state.json,
// history.jsonl, hints.json). docs/grading.md promises that a damaged one is ignored, never
// fatal: every input must load without an exception or a sanitizer report.

#include <string>

#include "fuzz_input.hpp"
#include "grader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kindling::grader;
  static const Manifest manifest = [] {
    Manifest m;
    for (const char* id : {"week01.view", "week01.reshape", "week05.adam"}) {
      Task t;
      t.id = id;
      t.week = std::string(id).substr(0, 6);
      t.points = 5;
      t.perf_points = 2;
      m.tasks.push_back(t);
    }
    return m;
  }();
  kindling::fuzz::MemoryFile f(data, size);
  const State s = load_state(f.path(), manifest);
  (void)standing(manifest.tasks, s, true);
  (void)load_history(f.path());
  (void)hints_seen(f.path(), "week01.view");
  return 0;
}
