// The example program's helpers: a progress bar and the loss/accuracy curves.
// (No Debian-packaged C++ progress-bar library exists; this is the 40 lines it takes.)

#include <algorithm>
#include <cstdio>
#include <sstream>

#include <kindling/train_loop.hpp>

namespace kindling::train {

ProgressBar::ProgressBar(std::ostream& out, bool tty, std::string label, std::int64_t every)
    : out_(out),
      tty_(tty),
      label_(std::move(label)),
      every_(std::max<std::int64_t>(every, 1)),
      start_(std::chrono::steady_clock::now()) {}

void ProgressBar::operator()(std::int64_t done, std::int64_t total, const EpochStats& running) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(running.examples) / elapsed : 0;
  const double eta = done > 0 ? elapsed / static_cast<double>(done) * static_cast<double>(total - done) : 0;
  char stats[160];
  std::snprintf(stats, sizeof stats, "loss %.4f  acc %5.1f%%  %6.0f items/s  ETA %4.0fs", running.loss,
                100 * running.accuracy, rate, eta);
  if (tty_) {
    const int width = 24;
    const auto filled = total > 0 ? static_cast<int>(width * done / total) : width;
    out_ << "\r\033[K" << label_ << " [" << std::string(static_cast<std::size_t>(filled), '#')
         << std::string(static_cast<std::size_t>(width - filled), '.') << "] " << done << "/" << total << "  " << stats
         << std::flush;
    if (done == total) out_ << "\n";
  } else if (done % every_ == 0 || done == total) {
    out_ << label_ << " " << done << "/" << total << "  " << stats << "\n" << std::flush;
  }
}

std::string curves_csv(const std::vector<CurvePoint>& points) {
  std::ostringstream out;
  out << "epoch,train_loss,train_accuracy,test_loss,test_accuracy,seconds\n";
  out.precision(6);
  for (const auto& p : points)
    out << p.epoch << "," << p.train.loss << "," << p.train.accuracy << "," << p.test.loss << "," << p.test.accuracy
        << "," << p.train.seconds + p.test.seconds << "\n";
  return out.str();
}

namespace {
// One panel: a polyline per series over epochs, with its y range and legend.
void panel(std::ostringstream& svg, double x0, const std::string& name, const std::vector<CurvePoint>& pts,
           double (*train)(const CurvePoint&), double (*test)(const CurvePoint&), bool unit_range) {
  const double w = 380, h = 240, top = 40;
  double lo = 0, hi = 1;
  if (!unit_range) {
    hi = 0;
    for (const auto& p : pts) hi = std::max({hi, train(p), test(p)});
    if (hi <= 0) hi = 1;
  }
  const auto n = pts.size();
  auto X = [&](std::size_t i) { return x0 + 40 + (n > 1 ? (w - 60) * static_cast<double>(i) / (n - 1) : 0.0); };
  auto Y = [&](double v) { return top + h - 20 - (h - 40) * (v - lo) / (hi - lo); };
  svg << "<text x=\"" << x0 + 40 << "\" y=\"" << top - 8 << "\">" << name << "</text>\n";
  svg << "<line x1=\"" << x0 + 40 << "\" y1=\"" << top + h - 20 << "\" x2=\"" << x0 + w - 20 << "\" y2=\""
      << top + h - 20 << "\" stroke=\"#999\"/>\n";
  svg << "<line x1=\"" << x0 + 40 << "\" y1=\"" << top + 20 << "\" x2=\"" << x0 + 40 << "\" y2=\"" << top + h - 20
      << "\" stroke=\"#999\"/>\n";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", hi);
  svg << "<text x=\"" << x0 << "\" y=\"" << Y(hi) + 4 << "\">" << buf << "</text>\n";
  svg << "<text x=\"" << x0 + 20 << "\" y=\"" << Y(lo) + 4 << "\">0</text>\n";
  const std::pair<double (*)(const CurvePoint&), const char*> series[] = {{train, "#2e6fd9"}, {test, "#d9822b"}};
  for (const auto& [f, colour] : series) {
    svg << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\" points=\"";
    for (std::size_t i = 0; i < n; ++i) svg << X(i) << "," << Y(f(pts[i])) << " ";
    svg << "\"/>\n";
  }
  svg << "<text x=\"" << x0 + w - 150 << "\" y=\"" << top + 30 << "\" fill=\"#2e6fd9\">train</text>"
      << "<text x=\"" << x0 + w - 90 << "\" y=\"" << top + 30 << "\" fill=\"#d9822b\">test</text>\n";
  svg << "<text x=\"" << x0 + w / 2 << "\" y=\"" << top + h + 2 << "\">epoch</text>\n";
}
}  // namespace

std::string curves_svg(const std::vector<CurvePoint>& points, const std::string& title) {
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"780\" height=\"300\" font-family=\"sans-serif\" "
         "font-size=\"12\">\n<rect width=\"780\" height=\"300\" fill=\"white\"/>\n<text x=\"10\" y=\"16\" "
         "font-size=\"14\">"
      << title << "</text>\n";
  panel(
      svg, 0, "loss", points, [](const CurvePoint& p) { return p.train.loss; },
      [](const CurvePoint& p) { return p.test.loss; }, false);
  panel(
      svg, 390, "accuracy", points, [](const CurvePoint& p) { return p.train.accuracy; },
      [](const CurvePoint& p) { return p.test.accuracy; }, true);
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace kindling::train
