#include "gen.hpp"

#include <algorithm>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace kindling::gen {
namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw GenError(p.string() + ": cannot read");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::string where(const std::string& file, int line) { return file + ":" + std::to_string(line) + ": "; }

const std::regex kBegin(R"(^(\s*)//\s*BEGIN SOLUTION\b\s*(\S*)\s*$)");
const std::regex kEnd(R"(^\s*//\s*END SOLUTION\b.*$)");
const std::regex kStub(R"(^\s*//\s*STUB:\s?(.*)$)");
const std::regex kTaskId(R"(^week\d\d\.[a-z0-9_]+$)");
// Engine code that would hand a task's answer to the worksheet (a kernel the student writes in a
// task, used by the engine too): the worksheet gets the region's `// WORKSHEET:` lines instead.
const std::regex kReferenceBegin(R"(^(\s*)//\s*BEGIN REFERENCE ONLY\b\s*(\S*).*$)");
const std::regex kReferenceEnd(R"(^\s*//\s*END REFERENCE ONLY\b.*$)");
const std::regex kWorksheet(R"(^\s*//\s*WORKSHEET:\s?(.*)$)");

}  // namespace

Stubbed stub_regions(const std::string& text, const std::string& file, const std::set<std::string>* known) {
  Stubbed out;
  const auto lines = split_lines(text);
  bool inside = false;
  Region open;
  std::string indent;
  std::vector<std::string> stub;
  bool in_reference = false;
  int reference_line = 0;
  std::string reference_task;
  std::vector<std::string> worksheet;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i) + 1;
    const std::string& line = lines[i];
    std::smatch m;
    if (std::regex_match(line, m, kReferenceBegin)) {
      if (inside || in_reference) throw GenError(where(file, ln) + "BEGIN REFERENCE ONLY inside another region");
      reference_task = m[2];
      if (!std::regex_match(reference_task, kTaskId) || (known && !known->count(reference_task)))
        throw GenError(where(file, ln) + "BEGIN REFERENCE ONLY must name the task whose answer it holds, not '" +
                       reference_task + "'");
      in_reference = true;
      reference_line = ln;
      indent = m[1];
      worksheet.clear();
      continue;
    }
    if (std::regex_match(line, kReferenceEnd)) {
      if (!in_reference) throw GenError(where(file, ln) + "END REFERENCE ONLY without a matching BEGIN");
      if (worksheet.empty())
        throw GenError(where(file, reference_line) +
                       "a REFERENCE ONLY region needs the worksheet's code (// WORKSHEET:)");
      out.text += indent + "// (The reference engine does this as task " + reference_task + " asks; the\n" + indent +
                  "// worksheet's engine has a plainer form here, so that it gives no task's answer.)\n";
      for (const auto& w : worksheet) out.text += (w.empty() ? "" : indent + w) + "\n";
      in_reference = false;
      continue;
    }
    if (in_reference) {
      if (std::regex_match(line, m, kWorksheet)) worksheet.push_back(m[1]);
      continue;
    }
    if (std::regex_match(line, m, kBegin)) {
      if (inside)
        throw GenError(where(file, ln) + "nested BEGIN SOLUTION: region " + open.task + " opened at line " +
                       std::to_string(open.line) + " is not closed");
      const std::string id = m[2];
      if (id.empty()) throw GenError(where(file, ln) + "BEGIN SOLUTION without a task id (expected weekNN.name)");
      if (!std::regex_match(id, kTaskId))
        throw GenError(where(file, ln) + "malformed task id '" + id + "' (expected weekNN.name, snake_case)");
      if (known && !known->count(id))
        throw GenError(where(file, ln) + "task id '" + id + "' is not in the manifest (grader/tasks.json)");
      inside = true;
      open = {id, file, ln};
      indent = m[1];
      stub.clear();
      continue;
    }
    if (std::regex_match(line, kEnd)) {
      if (!inside) throw GenError(where(file, ln) + "END SOLUTION without a matching BEGIN SOLUTION");
      out.text += indent + "// BEGIN TASK " + open.task + " (replace the stub below with your code)\n";
      if (stub.empty()) out.text += indent + "KINDLING_TODO(\"" + open.task + "\");\n";
      for (const auto& s : stub) out.text += indent + s + "\n";
      out.text += indent + "// END TASK\n";
      out.regions.push_back(open);
      inside = false;
      continue;
    }
    if (inside) {
      if (std::regex_match(line, m, kStub)) stub.push_back(m[1]);
      continue;
    }
    out.text += line + "\n";
  }
  if (inside)
    throw GenError(where(file, open.line) + "unclosed region " + open.task + ": BEGIN SOLUTION has no END SOLUTION");
  if (in_reference) throw GenError(where(file, reference_line) + "unclosed REFERENCE ONLY region");
  return out;
}

bool is_source(const fs::path& p) {
  static const std::set<std::string> exts{".hpp", ".cpp", ".h", ".cc", ".cu", ".cuh"};
  return exts.count(p.extension().string()) > 0;
}

std::map<std::string, std::string> generate_tree(const fs::path& root, const std::set<std::string>& known,
                                                 std::vector<Region>& regions) {
  std::map<std::string, std::string> files;
  const fs::path src = root / "solutions";
  std::vector<fs::path> paths;
  for (const auto& e : fs::recursive_directory_iterator(src))
    if (e.is_regular_file()) paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    const std::string rel = fs::relative(p, src).generic_string();
    const std::string text = read_file(p);
    if (is_source(p)) {
      Stubbed s = stub_regions(text, "solutions/" + rel, &known);
      regions.insert(regions.end(), s.regions.begin(), s.regions.end());
      files[rel] = std::move(s.text);
    } else {
      files[rel] = text;
    }
  }
  return files;
}

Manifest read_manifest(const fs::path& root) {
  const fs::path p = root / "grader" / "tasks.json";
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(p));
  } catch (const nlohmann::json::exception& e) {
    throw GenError(p.string() + ": " + e.what());
  }
  Manifest m;
  for (const auto& w : j.at("weeks")) m.week_folders[w.at("id").get<std::string>()] = w.at("folder").get<std::string>();
  for (const auto& t : j.at("tasks")) {
    const auto id = t.at("id").get<std::string>();
    if (!m.task_ids.insert(id).second) throw GenError(p.string() + ": task " + id + " is listed twice");
    if (!m.week_folders.count(id.substr(0, 6))) throw GenError(p.string() + ": task " + id + " names no listed week");
  }
  return m;
}

std::vector<std::string> check_tree(const fs::path& root) {
  std::vector<std::string> problems;
  const Manifest manifest = read_manifest(root);
  std::vector<Region> regions;
  const auto generated = generate_tree(root, manifest.task_ids, regions);

  // 1. The committed exercises/ equals the generated tree.
  const fs::path ex = root / "exercises";
  std::set<std::string> seen;
  if (fs::exists(ex)) {
    for (const auto& e : fs::recursive_directory_iterator(ex)) {
      if (!e.is_regular_file()) continue;
      const std::string rel = fs::relative(e.path(), ex).generic_string();
      seen.insert(rel);
      auto it = generated.find(rel);
      if (it == generated.end())
        problems.push_back("exercises/" + rel + ": has no source in solutions/");
      else if (read_file(e.path()) != it->second)
        problems.push_back("exercises/" + rel + ": differs from what solutions/" + rel + " generates");
    }
  }
  for (const auto& [rel, text] : generated)
    if (!seen.count(rel)) problems.push_back("exercises/" + rel + ": missing (run tools/generate-exercises)");

  // 2. Regions, manifest, week READMEs and test suites name the same tasks.
  std::set<std::string> region_ids;
  for (const auto& r : regions) region_ids.insert(r.task);
  for (const auto& id : manifest.task_ids) {
    if (!region_ids.count(id)) problems.push_back("grader/tasks.json: task " + id + " has no solution region");
    const std::string week = id.substr(0, 6);
    const fs::path readme = root / "solutions" / manifest.week_folders.at(week) / "README.md";
    if (!fs::exists(readme) || read_file(readme).find(id) == std::string::npos)
      problems.push_back(readme.lexically_relative(root).generic_string() + ": does not mention task " + id);
  }
  std::set<std::string> suite_ids;
  const std::regex suite(R"(\b(?:TEST|TEST_F|TEST_P)\s*\(\s*(week\d\d)_([a-z0-9_]+)\s*,)");
  const fs::path tests = root / "grader" / "tests";
  std::vector<fs::path> week_test_dirs;  // grader/tests/weekNN only: other folders test the kit itself
  if (fs::exists(tests))
    for (const auto& e : fs::directory_iterator(tests))
      if (e.is_directory() && std::regex_match(e.path().filename().string(), std::regex(R"(week\d\d)")))
        week_test_dirs.push_back(e.path());
  for (const auto& dir : week_test_dirs) {
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (!e.is_regular_file() || e.path().extension() != ".cpp") continue;
      const std::string text = read_file(e.path());
      for (std::sregex_iterator it(text.begin(), text.end(), suite), end; it != end; ++it) {
        const std::string id = (*it)[1].str() + "." + (*it)[2].str();
        suite_ids.insert(id);
        if (!manifest.task_ids.count(id))
          problems.push_back(fs::relative(e.path(), root).generic_string() + ": test suite " + (*it)[1].str() + "_" +
                             (*it)[2].str() + " names no task in grader/tasks.json");
      }
    }
  }
  for (const auto& id : manifest.task_ids)
    if (!suite_ids.count(id)) problems.push_back("grader/tests: no GoogleTest suite for task " + id);
  return problems;
}

void write_tree(const fs::path& root) {
  const Manifest manifest = read_manifest(root);
  std::vector<Region> regions;
  const auto generated = generate_tree(root, manifest.task_ids, regions);
  const fs::path ex = root / "exercises";
  if (fs::exists(ex)) {
    std::vector<fs::path> stale;
    for (const auto& e : fs::recursive_directory_iterator(ex))
      if (e.is_regular_file() && !generated.count(fs::relative(e.path(), ex).generic_string()))
        stale.push_back(e.path());
    for (const auto& p : stale) fs::remove(p);
  }
  for (const auto& [rel, text] : generated) {
    const fs::path out = ex / rel;
    fs::create_directories(out.parent_path());
    std::ofstream(out, std::ios::binary) << text;
  }
}

std::string lecture_program(const std::string& markdown, const std::string& md_path) {
  struct Sample {
    int line;
    std::string code;
    std::optional<std::string> expected;
  };
  std::vector<Sample> samples;
  const auto lines = split_lines(markdown);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("```cpp", 0) != 0) continue;
    Sample s{static_cast<int>(i) + 2, "", std::nullopt};
    std::size_t j = i + 1;
    for (; j < lines.size() && lines[j].rfind("```", 0) != 0; ++j) s.code += lines[j] + "\n";
    if (j == lines.size()) throw GenError(where(md_path, static_cast<int>(i) + 1) + "unclosed ```cpp block");
    std::size_t k = j + 1;
    while (k < lines.size() && lines[k].empty()) ++k;
    if (k < lines.size() && lines[k] == "```text") {
      std::string out;
      std::size_t e = k + 1;
      for (; e < lines.size() && lines[e].rfind("```", 0) != 0; ++e) out += lines[e] + "\n";
      s.expected = out;
      j = e;
    }
    samples.push_back(std::move(s));
    i = j;
  }
  std::ostringstream p;
  p << "// Generated from " << md_path << " by kindling-gen lecture; do not edit.\n"
    << "#include <iostream>\n#include <sstream>\n#include <string>\n#include <kindling/kindling.hpp>\n"
    // Each later week's umbrella header, when the build has that week.
    << "#if __has_include(<kindling/draw.hpp>)\n#include <kindling/draw.hpp>\n#endif\n"
    << "#if __has_include(<kindling/autograd.hpp>)\n#include <kindling/autograd.hpp>\n#endif\n"
    << "#if __has_include(<kindling/draw_graph.hpp>)\n#include <kindling/draw_graph.hpp>\n#endif\n"
    << "#if __has_include(<kindling/nn.hpp>)\n#include <kindling/nn.hpp>\n#endif\n"
    << "#if __has_include(<kindling/data.hpp>)\n#include <kindling/data.hpp>\n#endif\n"
    << "#if __has_include(<kindling/training.hpp>)\n#include <kindling/training.hpp>\n#endif\n"
    << "#if __has_include(<kindling/quantize.hpp>)\n#include <kindling/quantize.hpp>\n#endif\n"
    << "#if __has_include(<kindling/feed.hpp>)\n#include <kindling/feed.hpp>\n#endif\n"
    << "#if __has_include(<kindling/cuda.hpp>)\n#include <kindling/cuda.hpp>\n#endif\n"
    // Week 7's headers are found only by the programs that link kindling_distributed.
    << "#if __has_include(<kindling/distributed.hpp>)\n#include <cstdlib>\n#include <filesystem>\n"
    << "#include <kindling/distributed.hpp>\n#include <kindling/distributed_sampler.hpp>\n"
    << "#include <kindling/ddp.hpp>\n#include <kindling/dist_checkpoint.hpp>\n#include <kindling/launch.hpp>\n"
    << "#include <kindling/ring.hpp>\n#include <kindling/zero.hpp>\n#endif\n\n"
    << "namespace {\n";
  for (std::size_t n = 0; n < samples.size(); ++n) {
    p << "void sample_" << n << "() {\n  using namespace kindling;\n#line " << samples[n].line << " \"" << md_path
      << "\"\n"
      << samples[n].code << "}\n";
  }
  p << "\nstd::string trim(std::string s) {\n"
    << "  std::string out, line; std::istringstream in(s);\n"
    << "  while (std::getline(in, line)) { line.erase(line.find_last_not_of(\" \\t\") + 1); out += line + \"\\n\"; }\n"
    << "  while (!out.empty() && out.back() == '\\n') out.pop_back();\n  return out;\n}\n}  // namespace\n\n"
    << "int main() {\n  int failed = 0;\n  struct S { void (*f)(); int line; bool check; const char* expected; };\n"
    << "  const S samples[] = {\n";
  for (std::size_t n = 0; n < samples.size(); ++n) {
    p << "    {sample_" << n << ", " << samples[n].line << ", " << (samples[n].expected ? "true" : "false")
      << ", R\"KINDLING(" << samples[n].expected.value_or("") << ")KINDLING\"},\n";
  }
  p << "  };\n  for (const S& s : samples) {\n    std::ostringstream captured;\n"
    << "    auto* old = std::cout.rdbuf(captured.rdbuf());\n    const auto flags = std::cout.flags();\n"
    << "    std::cout << std::boolalpha;\n    std::string error;\n"
    << "    try { s.f(); } catch (const std::exception& e) { error = e.what(); }\n    std::cout.flags(flags);\n    "
       "std::cout.rdbuf(old);\n"
    << "    const bool ok = error.empty() && (!s.check || trim(captured.str()) == trim(s.expected));\n"
    << "    std::cout << (ok ? \"ok     \" : \"FAILED \") << \"" << md_path << ":\" << s.line << \"\\n\";\n"
    << "    if (!ok) {\n      ++failed;\n      if (!error.empty()) std::cout << \"  threw: \" << error << \"\\n\";\n"
    << "      else std::cout << \"  expected:\\n\" << s.expected << \"  got:\\n\" << captured.str() << \"\\n\";\n    "
       "}\n  }\n"
    << "  std::cout << (std::size(samples) - failed) << \" passed, \" << failed << \" failed\\n\";\n"
    << "  return failed == 0 ? 0 : 1;\n}\n";
  return p.str();
}

}  // namespace kindling::gen
