// The grader's words in another language (./grade --lang ko, KINDLING_LANG=ko, or a Korean
// locale): grader/i18n/<lang>.json gives the tasks' titles and hints and a table of the
// grader's own sentences, English -> translation. Machine-readable outputs (JSON, JUnit,
// Gradescope's statuses) and the tests' own messages stay in English: the tests' messages
// match PyTorch word for word.

#include <cstdlib>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "grader.hpp"

namespace kindling::grader {

namespace {
struct Catalog {
  std::string language = "en";
  std::map<std::string, std::string, std::less<>> messages;
};
Catalog& catalog() {
  static Catalog c;
  return c;
}

bool starts_with_ko(const char* v) { return v != nullptr && std::string_view(v).starts_with("ko"); }
}  // namespace

std::string choose_language(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* v = std::getenv("KINDLING_LANG"); v != nullptr && *v != '\0') return v;
  for (const char* name : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') continue;
    return starts_with_ko(v) ? "ko" : "en";  // the first one set decides, as in POSIX
  }
  return "en";
}

void set_language(const std::string& language, const std::filesystem::path& source_dir, Manifest& manifest) {
  Catalog& c = catalog();
  c = Catalog{};
  if (language == "en" || language.empty()) return;
  if (language != "ko") throw std::invalid_argument("--lang: " + language + " is not one of en, ko");
  const std::filesystem::path file = source_dir / "grader" / "i18n" / (language + ".json");
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot open " + file.string() + " (the " + language + " edition)");
  const nlohmann::json j = nlohmann::json::parse(in);
  c.language = language;
  for (const auto& [english, text] : j.at("messages").items()) c.messages[english] = text.get<std::string>();
  const auto& tasks = j.at("tasks");
  for (Task& t : manifest.tasks) {
    if (!tasks.contains(t.id)) continue;  // a task added since: its English words
    const auto& k = tasks.at(t.id);
    t.title = k.at("title").get<std::string>();
    t.hints = k.at("hints").get<std::vector<std::string>>();
  }
}

const std::string& language() { return catalog().language; }

std::string tr(const std::string& english) {
  const auto& m = catalog().messages;
  const auto it = m.find(english);
  return it == m.end() ? english : it->second;
}

std::string tr(const std::string& english, std::initializer_list<std::string> values) {
  std::string out = tr(english);
  std::size_t i = 0;
  for (const std::string& v : values) {
    const std::string slot = "{" + std::to_string(i++) + "}";
    for (auto at = out.find(slot); at != std::string::npos; at = out.find(slot, at + v.size()))
      out.replace(at, slot.size(), v);
  }
  return out;
}

std::string status_word(Status s) {
  const std::string english = to_string(s);
  const std::string translated = tr("status:" + english);
  return translated == "status:" + english ? english : translated;
}

}  // namespace kindling::grader
