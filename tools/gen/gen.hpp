#pragma once
// kindling-gen's logic, as a library so that its rules are unit-tested:
// solution regions -> stubs, the tree-wide consistency check, lecture samples.

#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kindling::gen {

/// A problem with a file, its message starting "file:line: ".
class GenError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One `// BEGIN SOLUTION id` ... `// END SOLUTION` region.
struct Region {
  std::string task;
  std::string file;
  int line = 0;
};

/// A source file with its regions replaced by stubs.
struct Stubbed {
  std::string text;
  std::vector<Region> regions;
};

/// Replaces each solution region of `text` by its stub: the region's `// STUB:`
/// lines if it has any, else `KINDLING_TODO("id");`, framed by BEGIN/END TASK
/// comments. Throws GenError on an unclosed, nested or unnamed region, a malformed
/// id, or (when `known` is given) an id missing from it.
Stubbed stub_regions(const std::string& text, const std::string& file, const std::set<std::string>* known);

/// True for files whose regions are stubbed (C++ and CUDA sources).
bool is_source(const std::filesystem::path& p);

/// The exercises tree generated from `root`/solutions: relative path -> contents.
/// Also returns every region found.
std::map<std::string, std::string> generate_tree(const std::filesystem::path& root, const std::set<std::string>& known,
                                                 std::vector<Region>& regions);

/// Task ids and their weeks' folders, read from grader/tasks.json.
struct Manifest {
  std::set<std::string> task_ids;
  std::map<std::string, std::string> week_folders;  // "week01" -> "week01_tensors"
};
Manifest read_manifest(const std::filesystem::path& root);

/// Every problem that makes the tree inconsistent: committed exercises that differ
/// from the generated ones, and ids that are not named alike by regions, manifest,
/// week README and GoogleTest suites. Empty when all is well.
std::vector<std::string> check_tree(const std::filesystem::path& root);

/// Writes exercises/ from solutions/ (removing files that no longer have a source).
void write_tree(const std::filesystem::path& root);

/// The C++ test program for a lecture: each ```cpp block runs as a function and
/// its printed output must equal the ```text block right after it (if any).
std::string lecture_program(const std::string& markdown, const std::string& md_path);

}  // namespace kindling::gen
