// kindling-gen: writes exercises/ from solutions/, checks the tree, and turns a
// lecture's code samples into a test program.

#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "gen.hpp"

int main(int argc, char** argv) {
  CLI::App app{"kindling-gen: the exercises generator and tree checker"};
  std::string root = ".";
  app.add_option("--root", root, "the kit's top folder")->check(CLI::ExistingDirectory);
  auto* generate = app.add_subcommand("generate", "write exercises/ from solutions/");
  auto* check = app.add_subcommand("check", "fail unless exercises/, regions, manifest, READMEs and tests agree");
  std::string md, out;
  auto* lecture = app.add_subcommand("lecture", "write a test program from a lecture's code samples");
  lecture->add_option("markdown", md, "the lecture (.md)")->required()->check(CLI::ExistingFile);
  lecture->add_option("output", out, "the .cpp to write")->required();
  std::string md_name;
  lecture->add_option("--name", md_name, "the path to show in messages (default: as given)");
  app.require_subcommand(1);
  CLI11_PARSE(app, argc, argv);
  try {
    if (*generate) {
      kindling::gen::write_tree(root);
      std::cout << "kindling-gen: wrote exercises/ from solutions/\n";
    } else if (*check) {
      const auto problems = kindling::gen::check_tree(root);
      for (const auto& p : problems) std::cerr << p << "\n";
      if (!problems.empty()) {
        std::cerr << "kindling-gen check: " << problems.size() << " problem(s)\n";
        return 1;
      }
      std::cout << "kindling-gen check: exercises/, regions, manifest, READMEs and test suites agree\n";
    } else if (*lecture) {
      std::ifstream in(md);
      std::ostringstream text;
      text << in.rdbuf();
      const std::string program = kindling::gen::lecture_program(text.str(), md_name.empty() ? md : md_name);
      std::ofstream(out) << program;
    }
  } catch (const std::exception& e) {
    std::cerr << "kindling-gen: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
