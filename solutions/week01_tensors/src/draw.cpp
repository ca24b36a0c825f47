// layout_svg: tensors over their storage, as SVG (draw.hpp).

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include <kindling/draw.hpp>
#include <kindling/error.hpp>
#include <kindling/kindling.hpp>

namespace kindling::draw {
namespace {

constexpr int kCellW = 46, kCellH = 38, kMargin = 12, kCaptionH = 22, kGap = 14;

// A value as a cell shows it: integers without a point, others with at most 3 significant digits.
std::string value_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::ostringstream s;
  if (v == std::floor(v) && std::fabs(v) < 1e6)
    s << static_cast<long long>(v);
  else
    s << std::setprecision(3) << v;
  return s.str();
}

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

// The fill of storage cell i of n: a hue per cell, so that a tensor's cells show where they read.
std::string fill_of(std::int64_t i, std::int64_t n) {
  return "hsl(" + std::to_string(n > 0 ? i * 300 / n : 0) + ", 70%, 85%)";
}

void cell(std::ostringstream& svg, int x, int y, const std::string& fill, const std::string& top,
          const std::string& bottom) {
  svg << "  <rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << kCellW << "\" height=\"" << kCellH << "\" fill=\""
      << fill << "\" stroke=\"#555\"/>\n";
  svg << "  <text x=\"" << x + kCellW / 2 << "\" y=\"" << y + 16 << "\" text-anchor=\"middle\" font-size=\"13\">"
      << escape(top) << "</text>\n";
  svg << "  <text x=\"" << x + kCellW / 2 << "\" y=\"" << y + 31
      << "\" text-anchor=\"middle\" font-size=\"10\" fill=\"#444\">" << escape(bottom) << "</text>\n";
}

void text(std::ostringstream& svg, int x, int y, const std::string& s) {
  svg << "  <text x=\"" << x << "\" y=\"" << y << "\" font-size=\"13\">" << escape(s) << "</text>\n";
}

}  // namespace

std::string layout_svg(const std::vector<Named>& tensors) {
  KINDLING_CHECK(!tensors.empty(), "layout_svg: nothing to draw");
  const Tensor& first = tensors.front().tensor;
  for (const Named& n : tensors) {
    KINDLING_CHECK(n.tensor.defined(), "layout_svg: ", n.name, " is undefined");
    KINDLING_CHECK(n.tensor.device().is_cpu(), "layout_svg: ", n.name, " is not on the CPU (draw a CPU tensor)");
    KINDLING_CHECK(n.tensor.dim() <= 3, "layout_svg: ", n.name, " has ", n.tensor.dim(), " dims (at most 3 are drawn)");
    KINDLING_CHECK(n.tensor.numel() <= kMaxDrawnElements, "layout_svg: ", n.name, " has ", n.tensor.numel(),
                   " elements (at most ", kMaxDrawnElements, " are drawn)");
    KINDLING_CHECK(n.tensor.storage().data() == first.storage().data() && n.tensor.dtype() == first.dtype(),
                   "layout_svg: ", n.name, " does not share ", tensors.front().name,
                   "'s storage (draw tensors that are views of one another)");
  }
  const auto storage_numel = static_cast<std::int64_t>(first.storage().nbytes() / element_size(first.dtype()));
  KINDLING_CHECK(storage_numel <= kMaxDrawnElements, "layout_svg: the storage has ", storage_numel,
                 " elements (at most ", kMaxDrawnElements, " are drawn)");
  // The storage's values, through a 1-D view of all of it.
  const Tensor strip = first.as_strided({storage_numel}, {1}, 0).to(kFloat64).contiguous();
  const double* values = strip.data_ptr<double>();

  // Each tensor's rows: (block, row) -> its elements' storage indices, in row-major order.
  struct Drawn {
    std::string caption;
    std::int64_t blocks = 1, rows = 1, cols = 1;
    std::vector<std::int64_t> offsets;
  };
  std::vector<Drawn> drawn;
  int width = 2 * kMargin + static_cast<int>(storage_numel) * kCellW;
  for (const Named& n : tensors) {
    const Tensor& t = n.tensor;
    Drawn d;
    d.caption = n.name + ": sizes " + to_string(t.sizes()) + ", strides " + to_string(t.strides()) + ", offset " +
                std::to_string(t.storage_offset());
    const std::int64_t dims = t.dim();
    d.cols = dims >= 1 ? t.size(-1) : 1;
    d.rows = dims >= 2 ? t.size(-2) : 1;
    d.blocks = dims >= 3 ? t.size(0) : 1;
    for (std::int64_t b = 0; b < d.blocks; ++b)
      for (std::int64_t r = 0; r < d.rows; ++r)
        for (std::int64_t c = 0; c < d.cols; ++c) {
          std::int64_t off = t.storage_offset();
          if (dims >= 1) off += c * t.stride(-1);
          if (dims >= 2) off += r * t.stride(-2);
          if (dims >= 3) off += b * t.stride(0);
          d.offsets.push_back(off);
        }
    width = std::max(width, 2 * kMargin + static_cast<int>(d.cols) * kCellW + (dims >= 3 ? 30 : 0));
    width = std::max(width, 2 * kMargin + static_cast<int>(d.caption.size()) * 8);
    drawn.push_back(std::move(d));
  }
  int height = kMargin + kCaptionH + kCellH + kGap;
  for (const Drawn& d : drawn)
    height += kCaptionH + static_cast<int>(d.blocks * d.rows) * kCellH + static_cast<int>(d.blocks - 1) * 8 + kGap;

  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"monospace\">\n";
  svg << "  <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  int y = kMargin + 14;
  text(svg, kMargin, y,
       "storage: " + std::to_string(storage_numel) + " elements of " + std::string(dtype_name(first.dtype())));
  y += kCaptionH - 14;
  for (std::int64_t i = 0; i < storage_numel; ++i)
    cell(svg, kMargin + static_cast<int>(i) * kCellW, y, fill_of(i, storage_numel),
         value_text(values[static_cast<std::size_t>(i)]), "[" + std::to_string(i) + "]");
  y += kCellH + kGap;
  for (const Drawn& d : drawn) {
    text(svg, kMargin, y + 14, d.caption);
    y += kCaptionH;
    std::size_t k = 0;
    for (std::int64_t b = 0; b < d.blocks; ++b) {
      const int x0 = kMargin + (d.blocks > 1 ? 30 : 0);
      if (d.blocks > 1) text(svg, kMargin, y + 24, "[" + std::to_string(b) + "]");
      for (std::int64_t r = 0; r < d.rows; ++r, y += kCellH)
        for (std::int64_t c = 0; c < d.cols; ++c, ++k) {
          const std::int64_t off = d.offsets[k];
          cell(svg, x0 + static_cast<int>(c) * kCellW, y, fill_of(off, storage_numel),
               value_text(values[static_cast<std::size_t>(off)]), "@" + std::to_string(off));
        }
      if (b + 1 < d.blocks) y += 8;
    }
    y += kGap;
  }
  svg << "</svg>\n";
  return svg.str();
}

std::string timeline_svg(const std::string& title, const std::vector<Bar>& bars, const std::string& unit) {
  KINDLING_CHECK(!bars.empty(), "timeline_svg: no bars");
  std::vector<std::string> lanes;
  double t0 = bars.front().start, t1 = bars.front().end;
  for (const Bar& b : bars) {
    KINDLING_CHECK(b.end >= b.start, "timeline_svg: a bar ends (", b.end, ") before it starts (", b.start, ")");
    if (std::find(lanes.begin(), lanes.end(), b.lane) == lanes.end()) lanes.push_back(b.lane);
    t0 = std::min(t0, b.start);
    t1 = std::max(t1, b.end);
  }
  constexpr int kLabelW = 90, kPlotW = 640, kLaneH = 30, kTop = 34;
  const double span = t1 > t0 ? t1 - t0 : 1.0;
  const auto x_of = [&](double t) { return kLabelW + (t - t0) / span * kPlotW; };
  const int height = kTop + static_cast<int>(lanes.size()) * kLaneH + 40;
  std::ostringstream svg;
  svg << std::fixed << std::setprecision(1);
  const int width = std::max(kLabelW + kPlotW + 50, 2 * kMargin + static_cast<int>(title.size()) * 8);
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"monospace\">\n";
  svg << "  <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  text(svg, kMargin, 20, title);
  for (std::size_t i = 0; i < lanes.size(); ++i) text(svg, kMargin, kTop + static_cast<int>(i) * kLaneH + 19, lanes[i]);
  for (const Bar& b : bars) {
    const auto lane = std::find(lanes.begin(), lanes.end(), b.lane) - lanes.begin();
    const double x = x_of(b.start), w = std::max(1.0, x_of(b.end) - x);
    const int y = kTop + static_cast<int>(lane) * kLaneH + 3;
    svg << "  <rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << w << "\" height=\"" << kLaneH - 6 << "\" fill=\""
        << (b.group < 0 ? std::string("#e5e5e5") : "hsl(" + std::to_string((b.group * 47) % 360) + ", 65%, 78%)")
        << "\" stroke=\"#555\"/>\n";
    svg << "  <text x=\"" << x + w / 2 << "\" y=\"" << y + 16 << "\" text-anchor=\"middle\" font-size=\"11\">"
        << escape(b.label) << "</text>\n";
  }
  const int axis = kTop + static_cast<int>(lanes.size()) * kLaneH + 6;
  svg << "  <line x1=\"" << kLabelW << "\" y1=\"" << axis << "\" x2=\"" << kLabelW + kPlotW << "\" y2=\"" << axis
      << "\" stroke=\"#555\"/>\n";
  for (int k = 0; k <= 4; ++k) {
    const double t = t0 + span * k / 4;
    std::ostringstream v;
    v << std::setprecision(3) << t;
    svg << "  <text x=\"" << x_of(t) << "\" y=\"" << axis + 16 << "\" text-anchor=\"middle\" font-size=\"11\">"
        << escape(v.str() + (k == 4 ? " " + unit : "")) << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace kindling::draw
