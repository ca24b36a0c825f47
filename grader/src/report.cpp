// The grader's outputs: the terminal table, its own JSON, Gradescope's
// results.json and JUnit XML.

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "grader.hpp"

namespace kindling::grader {

double Report::score() const {
  double s = 0;
  for (const auto& r : results) s += r.points + r.perf_points;
  return s;
}

double Report::max_score() const {
  double s = 0;
  for (const auto& r : results) s += r.task.points + r.available_perf(perf);
  return s;
}

namespace {
double earned(const TaskResult& t) { return t.points + t.perf_points; }
double available(const Report& r, const TaskResult& t) { return t.task.points + t.available_perf(r.perf); }

// The columns `s` takes on a terminal: a character of three or four bytes (Hangul) takes two.
std::size_t columns(const std::string& s) {
  std::size_t shown = 0;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte
    shown += c >= 0xE0 ? 2 : 1;
  }
  return shown;
}

// Korean words are two columns wide on a terminal and three bytes long: pad by what shows.
std::string pad(const std::string& s, std::size_t width) {
  const std::size_t shown = columns(s);
  return s + std::string(shown < width ? width - shown : 1, ' ');
}

std::string points(double p) {
  std::ostringstream s;
  s << p;
  return s.str();
}

std::string seconds(double s) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3) << s;
  return out.str();
}

}  // namespace

std::string xml_escape(const std::string& in) {
  std::string out;
  for (unsigned char c : in) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (c < 0x20 && c != '\n' && c != '\t')
          out += ' ';  // not allowed in XML 1.0
        else
          out += static_cast<char>(c);
    }
  }
  return out;
}

std::string wrap(const std::string& text, std::size_t first, std::size_t width, std::size_t indent) {
  constexpr std::size_t kNarrowest = 20;  // a line holds at least this many columns of text
  const std::size_t later = std::max(width > indent ? width - indent : 0, kNarrowest);
  std::string out, line;
  std::size_t room = std::max(first, kNarrowest), used = 0;
  const auto next_line = [&] {
    out += line + "\n" + std::string(indent, ' ');
    line.clear();
    used = 0;
    room = later;
  };
  std::size_t i = 0;
  bool start = true;  // at the start of a paragraph
  while (i < text.size()) {
    if (text[i] == '\n') {  // a line break of the text's own
      ++i;
      next_line();
      start = true;
      continue;
    }
    // The next word and the spaces before it, which are kept inside a line and dropped at a break.
    std::size_t word = text.find_first_not_of(' ', i);
    if (word == std::string::npos) break;  // trailing spaces
    const std::string spaces = text.substr(i, word - i);
    std::size_t end = text.find_first_of(" \n", word);
    if (end == std::string::npos) end = text.size();
    std::string w = text.substr(word, end - word);
    i = end;
    if (!start && used + columns(spaces) + columns(w) <= room) {
      line += spaces + w;
      used += columns(spaces) + columns(w);
      continue;
    }
    if (!start || used > 0) next_line();
    start = false;
    // A word longer than a line is broken where it must, between characters.
    while (columns(w) > room) {
      std::size_t cut = 0, shown = 0;
      while (cut < w.size()) {
        std::size_t len = 1;
        while (cut + len < w.size() && (static_cast<unsigned char>(w[cut + len]) & 0xC0) == 0x80) ++len;
        const std::size_t c = columns(w.substr(cut, len));
        if (shown + c > room) break;
        shown += c;
        cut += len;
      }
      if (cut == 0) break;  // a single character wider than the line: let it overflow
      line += w.substr(0, cut);
      used += shown;
      w.erase(0, cut);
      next_line();
    }
    line += w;
    used += columns(w);
  }
  out += line;
  while (!out.empty() && out.back() == ' ') out.pop_back();  // the indent of a last, empty line
  return out;
}

std::string table(const Report& r, bool color, std::size_t width, bool verbose) {
  std::ostringstream out;
  const char* reset = color ? "\033[0m" : "";
  constexpr std::size_t kMessageColumn = 56;  // where the message column starts (30 + 9 + 17)
  constexpr std::size_t kHintColumn = 30;     // where the lines under a task start
  width = std::max<std::size_t>(width, kMessageColumn + 40);
  out << pad(tr("task"), 30) << pad(tr("points"), 9) << pad(tr("status"), 17) << tr("message") << "\n";
  out << std::string(100, '-') << "\n";
  for (const auto& t : r.results) {
    const char* c = "";
    if (color)
      c = t.status == Status::Passed ? "\033[32m" : t.status == Status::NotImplemented ? "\033[33m" : "\033[31m";
    const std::string id = pad(t.task.id, 30), score = pad(points(earned(t)) + "/" + points(available(r, t)), 9),
                      status = pad(status_word(t.status), 17);
    // The message whole, wrapped under its own column (the fix is often named at its end).
    const std::size_t shown = columns(id + score + status);
    out << id << score << c << status << reset
        << wrap(t.message, width > shown ? width - shown : 0, width, kMessageColumn) << "\n";
    if (verbose && !t.failures.empty()) {
      out << std::string(kHintColumn, ' ') << tr("failures ({0}):", {std::to_string(t.failures.size())}) << "\n";
      for (const auto& f : t.failures)
        out << std::string(kHintColumn, ' ') << "- " << wrap(f, width - kHintColumn - 2, width, kHintColumn + 2)
            << "\n";
    }
    if (r.perf && t.task.perf_points > 0 && t.perf_needs_gpu)
      out << std::string(30, ' ') << tr("performance: {0} points", {points(t.task.perf_points)}) << " "
          << t.perf_message << "\n";
    else if (r.perf && t.task.perf_points > 0)
      out << std::string(30, ' ')
          << tr("performance: {0} points", {points(t.perf_points) + "/" + points(t.task.perf_points)})
          << (t.perf_message.empty() ? tr(" (not measured: the tests must pass first)") : ", " + t.perf_message)
          << "\n";
    for (const auto& counted : t.counters)
      out << std::string(30, ' ') << tr("counted: ") << wrap(counted, width - 30 - 9, width, 30 + 9) << "\n";
    if (t.status != Status::Passed && !t.task.hints.empty())
      out << std::string(30, ' ')
          << tr("stuck? ./grade hint {0} ({1} hints, one at a time)", {t.task.id, std::to_string(t.task.hints.size())})
          << "\n";
  }
  out << std::string(100, '-') << "\n";
  for (const auto& t : r.results)
    if (!t.cuda_backend.empty()) {
      out << tr("CUDA tasks ran on: ") << t.cuda_backend << "\n";
      break;
    }
  std::map<Status, int> counts;
  int needs_gpu = 0;
  for (const auto& t : r.results) {
    ++counts[t.status];
    needs_gpu += r.perf && t.perf_needs_gpu;
  }
  out << tr("score: ") << points(r.score()) << " / " << points(r.max_score()) << "  (" << tr("{0} tree;", {r.tree})
      << (r.perf ? "" : tr(" performance not graded;"));
  for (auto [s, n] : counts) out << " " << n << " " << status_word(s);
  if (needs_gpu > 0) out << "; " << tr("{0} needs_gpu (performance points left out)", {std::to_string(needs_gpu)});
  out << ")\n";
  return out.str();
}

nlohmann::json result_to_json(const TaskResult& t, bool perf) {
  return {{"id", t.task.id},
          {"title", t.task.title},
          {"status", to_string(t.status)},
          {"points", t.points},
          {"max_points", t.task.points},
          {"perf_points", t.perf_points},
          {"max_perf_points", t.available_perf(perf)},
          {"perf_status", !perf || t.task.perf_points <= 0 ? "none"
                          : t.perf_needs_gpu               ? "needs_gpu"
                          : t.perf_measured                ? "measured"
                                                           : "not_measured"},
          {"perf_message", t.perf_message},
          {"perf_measured", t.perf_measured},
          {"perf_value", t.perf_value},
          {"message", t.message},
          {"failures", t.failures},
          {"counters", t.counters},
          {"tests_passed", t.tests_passed},
          {"tests_skipped", t.tests_skipped},
          {"tests_total", t.tests_total},
          {"seconds", t.seconds}};
}

std::string to_json(const Report& r) {
  nlohmann::json j;
  j["tree"] = r.tree;
  j["score"] = r.score();
  j["max_score"] = r.max_score();
  j["tasks"] = nlohmann::json::array();
  for (const auto& t : r.results) j["tasks"].push_back(result_to_json(t, r.perf));
  return j.dump(2) + "\n";
}

// https://gradescope-autograders.readthedocs.io/en/latest/specs/ (results.json)
std::string to_gradescope(const Report& r) {
  nlohmann::json j;
  j["score"] = r.score();
  j["visibility"] = "visible";
  j["stdout_visibility"] = "visible";
  j["execution_time"] = 0.0;
  double total = 0;
  j["tests"] = nlohmann::json::array();
  for (const auto& t : r.results) {
    total += t.seconds;
    std::string output = to_string(t.status);
    if (!t.message.empty()) output += ": " + t.message;
    if (r.perf && t.task.perf_points > 0 && t.perf_needs_gpu)
      output += "\nPerformance: " + points(t.task.perf_points) + " points " + t.perf_message;
    else if (r.perf && t.task.perf_points > 0)
      output += "\nPerformance: " + points(t.perf_points) + "/" + points(t.task.perf_points) + " points" +
                (t.perf_message.empty() ? "" : ", " + t.perf_message);
    for (const auto& c : t.counters) output += "\nCounted: " + c;
    if (t.status != Status::Passed && !t.task.hints.empty())
      output += "\nHint: " + t.task.hints.front() + "\n(More hints: ./grade hint " + t.task.id + ")";
    nlohmann::json test = {{"name", t.task.id + " - " + t.task.title},
                           {"number", t.task.id},
                           {"score", earned(t)},
                           {"max_score", available(r, t)},
                           {"status", t.status == Status::Passed ? "passed" : "failed"},
                           {"output", output},
                           {"visibility", t.task.visibility}};
    // Gradescope keeps extra_data as it is: the class gradebook reads which points need a GPU.
    if (r.perf && t.perf_needs_gpu)
      test["extra_data"] = {{"perf_status", "needs_gpu"}, {"perf_points_needing_gpu", t.task.perf_points}};
    j["tests"].push_back(test);
  }
  j["execution_time"] = total;
  j["output"] =
      (r.note.empty() ? "" : r.note + "\n") + "Kindling grader: " + points(r.score()) + " / " + points(r.max_score());
  // The performance counters behind performance points, for Gradescope's leaderboard
  // (lower first when a lower value earns more, as for a time ratio).
  nlohmann::json board = nlohmann::json::array();
  for (const auto& t : r.results)
    if (r.perf && t.task.perf && t.perf_measured)
      board.push_back({{"name", t.task.id + " " + t.task.perf->counter},
                       {"value", t.perf_value},
                       {"order", t.task.perf->full < t.task.perf->zero ? "asc" : "desc"}});
  if (!board.empty()) j["leaderboard"] = board;
  return j.dump(2) + "\n";
}

// JUnit XML as Jenkins, GitLab and GitHub read it: one <testsuite> per week, one
// <testcase> per task; failed and not_implemented are <failure>s, crashes,
// time-outs and build errors are <error>s.
std::string to_junit(const Report& r) {
  std::map<std::string, std::vector<const TaskResult*>> weeks;
  for (const auto& t : r.results) weeks[t.task.week].push_back(&t);
  auto is_error = [](Status s) {
    return s == Status::Crashed || s == Status::TimedOut || s == Status::BuildError || s == Status::MemoryExceeded;
  };
  int tests = 0, failures = 0, errors = 0, skipped = 0;
  double time = 0;
  std::ostringstream body;
  for (const auto& [week, results] : weeks) {
    int f = 0, e = 0, s = 0;
    double wt = 0;
    for (const auto* t : results) {
      f += t->status == Status::Failed || t->status == Status::NotImplemented;
      e += is_error(t->status);
      s += r.perf && t->perf_needs_gpu;
      wt += t->seconds;
    }
    body << "  <testsuite name=\"" << xml_escape(week) << "\" tests=\"" << results.size() + static_cast<std::size_t>(s)
         << "\" failures=\"" << f << "\" errors=\"" << e << "\" skipped=\"" << s << "\" time=\"" << seconds(wt)
         << "\">\n";
    for (const auto* t : results) {
      // Performance points that need a GPU: a test case of their own, skipped.
      if (r.perf && t->perf_needs_gpu)
        body << "    <testcase name=\"" << xml_escape(t->task.id) << ".performance\" classname=\"kindling."
             << xml_escape(week) << "\" time=\"0.000\">\n      <skipped message=\"" << xml_escape(t->perf_message)
             << "\"/>\n    </testcase>\n";
      body << "    <testcase name=\"" << xml_escape(t->task.id) << "\" classname=\"kindling." << xml_escape(week)
           << "\" time=\"" << seconds(t->seconds) << "\"";
      if (t->status == Status::Passed) {
        body << "/>\n";
        continue;
      }
      const char* element = is_error(t->status) ? "error" : "failure";
      body << ">\n      <" << element << " message=\"" << xml_escape(t->message) << "\" type=\"" << to_string(t->status)
           << "\">" << xml_escape(t->message + (t->task.hints.empty() ? "" : "\nHint: " + t->task.hints.front()))
           << "</" << element << ">\n    </testcase>\n";
    }
    body << "  </testsuite>\n";
    tests += static_cast<int>(results.size()) + s;
    skipped += s;
    failures += f;
    errors += e;
    time += wt;
  }
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"kindling\" tests=\"" << tests
      << "\" failures=\"" << failures << "\" errors=\"" << errors << "\" skipped=\"" << skipped << "\" time=\""
      << seconds(time) << "\">\n"
      << body.str() << "</testsuites>\n";
  return out.str();
}

}  // namespace kindling::grader
