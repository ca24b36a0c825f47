#pragma once
// Week 6's figures (gpu_figures.cpp): drawn from the CUDA simulator's trace and timeline.

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kindling::figures {

/// The words a figure shows, by key ("threads.title"): one map for English, one for Korean.
using Words = std::map<std::string, std::string>;

/// (name, SVG) of each of week 6's figures, with `words`: "threads", "sectors", "tile-sweep",
/// "reduction", "register-block", "streams".
std::vector<std::pair<std::string, std::string>> week06_figures(const Words& words);

}  // namespace kindling::figures
