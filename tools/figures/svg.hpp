#pragma once
// A few SVG elements, written in order into a white page: the figures that neither
// draw::timeline_svg nor draw::layout_svg draws (week 4's feed chart, week 6's figures).

#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace kindling::figures {

class Svg {
 public:
  Svg(int width, int height) : width_(width), height_(height) {}
  void rect(double x, double y, double w, double h, const std::string& fill, const std::string& stroke = "none") {
    out_ << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << w << "\" height=\"" << h << "\" fill=\"" << fill
         << "\" stroke=\"" << stroke << "\" stroke-width=\"0.6\"/>\n";
  }
  void line(double x1, double y1, double x2, double y2, const std::string& stroke, double width = 1) {
    out_ << "<line x1=\"" << x1 << "\" y1=\"" << y1 << "\" x2=\"" << x2 << "\" y2=\"" << y2 << "\" stroke=\"" << stroke
         << "\" stroke-width=\"" << width << "\"/>\n";
  }
  /// A line through `points`; `dash` is an SVG stroke-dasharray ("4 3") or empty for a solid line.
  void polyline(const std::vector<std::pair<double, double>>& points, const std::string& stroke, double width = 1.5,
                const std::string& dash = "") {
    out_ << "<polyline fill=\"none\" stroke=\"" << stroke << "\" stroke-width=\"" << width << "\"";
    if (!dash.empty()) out_ << " stroke-dasharray=\"" << dash << "\"";
    out_ << " points=\"";
    for (const auto& [x, y] : points) out_ << x << "," << y << " ";
    out_ << "\"/>\n";
  }
  void circle(double cx, double cy, double r, const std::string& fill) {
    out_ << "<circle cx=\"" << cx << "\" cy=\"" << cy << "\" r=\"" << r << "\" fill=\"" << fill << "\"/>\n";
  }
  void text(double x, double y, const std::string& s, int size = 12, const std::string& anchor = "start",
            const std::string& fill = "#222") {
    out_ << "<text x=\"" << x << "\" y=\"" << y << "\" font-size=\"" << size << "\" text-anchor=\"" << anchor
         << "\" fill=\"" << fill << "\">" << escape(s) << "</text>\n";
  }
  std::string str() const {
    std::ostringstream s;
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width_ << "\" height=\"" << height_
      << "\" viewBox=\"0 0 " << width_ << " " << height_ << "\" font-family=\"sans-serif\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << out_.str() << "</svg>\n";
    return s.str();
  }

 private:
  static std::string escape(const std::string& s) {
    std::string r;
    for (const char c : s) r += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
    return r;
  }
  int width_, height_;
  std::ostringstream out_;
};

}  // namespace kindling::figures
