// The HTML progress report: one self-contained page (inline CSS and SVG, no script,
// nothing fetched), so that it opens from disk in any browser, years from now.

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "grader.hpp"

namespace kindling::grader {
namespace {

std::string num(double v, int precision = 3) {
  std::ostringstream s;
  s << std::setprecision(precision) << v;
  return s.str();
}

const char* kStyle = R"css(
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; padding: 0 1em; }
h1 { margin-bottom: 0.2em; } .sub { color: #666; margin-top: 0; }
.summary { font-size: 1.25em; margin: 0.8em 0 1.2em; }
section.week { margin: 1.6em 0; }
.bar { background: #eee; border-radius: 4px; height: 14px; width: 100%; overflow: hidden; }
.bar > div { background: #2e9d4f; height: 100%; }
table { border-collapse: collapse; width: 100%; margin-top: 0.6em; }
td, th { text-align: left; padding: 4px 8px; border-bottom: 1px solid #eee; vertical-align: top; }
td.id { font-family: ui-monospace, monospace; white-space: nowrap; }
td.msg { font-size: 0.88em; color: #444; word-break: break-word; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 0.85em; white-space: nowrap; }
.status-passed .badge { background: #d6f5de; color: #17622d; }
.status-not_implemented .badge { background: #fff1c7; color: #7a5a00; }
.status-not_graded .badge { background: #eee; color: #555; }
.status-failed .badge, .status-crashed .badge, .status-timed_out .badge, .status-build_error .badge,
.status-memory_exceeded .badge {
  background: #fde0e0; color: #8a1c1c; }
svg text { font: 12px system-ui, sans-serif; fill: #333; }
.note { color: #666; font-size: 0.9em; }
)css";

std::string week_section(const Week& w, const std::vector<const Task*>& tasks, const State& s, bool perf) {
  double got = 0, max = 0;
  int passed = 0;
  std::ostringstream rows;
  for (const Task* t : tasks) {
    const auto it = s.latest.find(t->id);
    const double available =
        t->points + (it == s.latest.end() ? (perf ? t->perf_points : 0.0) : it->second.available_perf(perf));
    max += available;
    const std::string status = it == s.latest.end() ? "not_graded" : to_string(it->second.status);
    double earned = 0;
    std::string message = "not graded yet: ./grade " + t->id;
    if (it != s.latest.end()) {
      earned = it->second.points + (perf ? it->second.perf_points : 0.0);
      message = it->second.message;
      if (perf && it->second.perf_needs_gpu)
        message += (message.empty() ? "" : "; ") + std::string("performance ") + it->second.perf_message;
      if (it->second.status != Status::Passed)
        message += (message.empty() ? "" : " ") + std::string("(stuck? ./grade hint ") + t->id + ")";
      passed += it->second.status == Status::Passed;
    }
    got += earned;
    rows << "<tr class=\"task status-" << status << "\" data-task=\"" << xml_escape(t->id) << "\" data-status=\""
         << status << "\"><td class=\"id\">" << xml_escape(t->id) << "</td><td>" << xml_escape(t->title)
         << "</td><td><span class=\"badge\">" << xml_escape(status) << "</span></td><td>" << num(earned) << "/"
         << num(available) << "</td><td class=\"msg\">" << xml_escape(message) << "</td></tr>\n";
  }
  std::ostringstream out;
  const double share = max > 0 ? 100.0 * got / max : 0;
  out << "<section class=\"week\" id=\"" << xml_escape(w.id) << "\" data-passed=\"" << passed << "\" data-tasks=\""
      << tasks.size() << "\">\n<h2>" << xml_escape(w.id) << ": " << xml_escape(w.title) << "</h2>\n"
      << "<div class=\"bar\" title=\"" << num(share) << "%\"><div style=\"width:" << num(share) << "%\"></div></div>\n"
      << "<p>" << passed << "/" << tasks.size() << " tasks, " << num(got) << "/" << num(max) << " points</p>\n"
      << "<table><tr><th>task</th><th>title</th><th>status</th><th>points</th><th>message</th></tr>\n"
      << rows.str() << "</table>\n</section>\n";
  return out.str();
}

// One horizontal bar per task with performance points: the measured counter against
// the values for no points and for full points.
std::string perf_chart(const Manifest& m, const State& s) {
  std::vector<const Task*> tasks;
  for (const auto& t : m.tasks)
    if (t.perf) tasks.push_back(&t);
  if (tasks.empty()) return "";
  const int row = 34, left = 230, width = 560, top = 10;
  std::ostringstream svg;
  svg << "<svg id=\"perf-chart\" width=\"" << left + width + 160 << "\" height=\"" << top + row * tasks.size() + 10
      << "\" role=\"img\" aria-label=\"performance ratios\">\n";
  int i = 0;
  for (const Task* t : tasks) {
    const PerfSpec& p = *t->perf;
    const auto it = s.latest.find(t->id);
    const bool measured = it != s.latest.end() && it->second.perf_measured;
    const double v = measured ? it->second.perf_value : 0;
    const double scale = std::max({p.full, p.zero, v}) * 1.15;
    auto x = [&](double value) { return left + width * value / scale; };
    const int y = top + row * i++;
    svg << "<text x=\"0\" y=\"" << y + 17 << "\">" << xml_escape(t->id) << " (" << xml_escape(p.counter)
        << ")</text>\n";
    svg << "<rect x=\"" << left << "\" y=\"" << y + 4 << "\" width=\"" << width
        << "\" height=\"18\" fill=\"#f2f2f2\"/>\n";
    if (measured) {
      const bool good = p.full >= p.zero ? v >= p.full : v <= p.full;
      svg << "<rect class=\"perf-bar\" data-task=\"" << xml_escape(t->id) << "\" x=\"" << left << "\" y=\"" << y + 4
          << "\" width=\"" << num(x(v) - left, 6) << "\" height=\"18\" fill=\"" << (good ? "#2e9d4f" : "#d9822b")
          << "\"/>\n<text x=\"" << num(x(v) + 4, 6) << "\" y=\"" << y + 17 << "\">" << num(v) << "</text>\n";
    } else if (it != s.latest.end() && it->second.perf_needs_gpu) {
      svg << "<text x=\"" << left + 6 << "\" y=\"" << y + 17 << "\" class=\"note needs-gpu\" data-task=\""
          << xml_escape(t->id) << "\">needs_gpu (measured on a GPU only; not counted)</text>\n";
    } else {
      svg << "<text x=\"" << left + 6 << "\" y=\"" << y + 17
          << "\" class=\"note\">not measured (the tests must pass first)</text>\n";
    }
    for (const auto& [value, label] : {std::pair{p.zero, "none"}, std::pair{p.full, "full"}})
      svg << "<line x1=\"" << num(x(value), 6) << "\" x2=\"" << num(x(value), 6) << "\" y1=\"" << y + 1 << "\" y2=\""
          << y + 25 << "\" stroke=\"#555\" stroke-dasharray=\"3,2\"><title>" << label << " at " << num(value)
          << "</title></line>\n";
  }
  svg << "</svg>\n";
  return "<section id=\"performance\">\n<h2>Performance</h2>\n<p class=\"note\">Each bar is the median of a ratio "
         "measured in one process (dashed lines: no points, full points).</p>\n" +
         svg.str() + "</section>\n";
}

std::string history_plot(const std::vector<HistoryEntry>& history) {
  std::ostringstream out;
  out << "<section id=\"history\">\n<h2>Your runs</h2>\n";
  if (history.size() < 2) {
    out << "<p class=\"note\">The plot of your score over time fills in as you grade again.</p>\n</section>\n";
    return out.str();
  }
  const int left = 50, width = 700, top = 10, height = 200;
  double max = 0;
  for (const auto& h : history) max = std::max(max, h.max_score);
  if (max <= 0) max = 1;
  const auto n = history.size();
  auto x = [&](std::size_t i) { return left + width * static_cast<double>(i) / static_cast<double>(n - 1); };
  auto y = [&](double score) { return top + height * (1 - score / max); };
  out << "<svg id=\"history-plot\" width=\"" << left + width + 20 << "\" height=\"" << top + height + 40
      << "\" role=\"img\" aria-label=\"score over runs\">\n"
      << "<line x1=\"" << left << "\" x2=\"" << left + width << "\" y1=\"" << top + height << "\" y2=\"" << top + height
      << "\" stroke=\"#999\"/>\n<line x1=\"" << left << "\" x2=\"" << left << "\" y1=\"" << top << "\" y2=\""
      << top + height << "\" stroke=\"#999\"/>\n"
      << "<text x=\"4\" y=\"" << top + 10 << "\">" << num(max) << "</text><text x=\"4\" y=\"" << top + height
      << "\">0</text>\n<polyline fill=\"none\" stroke=\"#2e6fd9\" stroke-width=\"2\" points=\"";
  for (std::size_t i = 0; i < n; ++i) out << num(x(i), 6) << "," << num(y(history[i].score), 6) << " ";
  out << "\"/>\n";
  for (std::size_t i = 0; i < n; ++i)
    out << "<circle cx=\"" << num(x(i), 6) << "\" cy=\"" << num(y(history[i].score), 6)
        << "\" r=\"3\" fill=\"#2e6fd9\"><title>" << xml_escape(history[i].time) << ": " << num(history[i].score)
        << " points, " << history[i].passed << "/" << history[i].total << " tasks</title></circle>\n";
  out << "<text x=\"" << left << "\" y=\"" << top + height + 18 << "\">" << xml_escape(history.front().time)
      << "</text><text x=\"" << left + width << "\" y=\"" << top + height + 18 << "\" text-anchor=\"end\">"
      << xml_escape(history.back().time) << "</text>\n</svg>\n<p class=\"note\">" << n << " runs.</p>\n</section>\n";
  return out.str();
}

}  // namespace

std::string to_html(const Manifest& m, const State& s, const std::vector<HistoryEntry>& history, bool perf) {
  const HistoryEntry now = standing(m.tasks, s, perf);
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Kindling progress</title>\n"
      << "<style>" << kStyle << "</style>\n</head>\n<body>\n<h1>Kindling progress</h1>\n<p class=\"sub\">"
      << xml_escape(s.tree.empty() ? "exercises" : s.tree) << " tree, " << xml_escape(now.time) << "</p>\n"
      << "<p class=\"summary\" id=\"summary\"><b>" << now.passed << "/" << now.total << "</b> tasks, <b>"
      << num(now.score) << "/" << num(now.max_score) << "</b> points</p>\n";
  for (const auto& w : m.weeks) {
    std::vector<const Task*> tasks;
    for (const auto& t : m.tasks)
      if (t.week == w.id) tasks.push_back(&t);
    if (!tasks.empty()) out << week_section(w, tasks, s, perf);
  }
  if (perf) out << perf_chart(m, s);
  out << history_plot(history) << "</body>\n</html>\n";
  return out.str();
}

}  // namespace kindling::grader
