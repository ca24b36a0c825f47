#pragma once
// Week 4's feed measurement (feed_figures.cpp): the whole disk -> worker -> pinned -> device
// pipeline, timed for each num_workers, against what feed_timeline() predicts from its parts.

#include <filesystem>
#include <map>
#include <string>

namespace kindling::figures {

/// Measures the pipeline into DATA/week04-feed.csv (kindling-figures --record-feed DATA).
void record_feed(const std::filesystem::path& data);
/// The chart of DATA's week04-feed.csv: milliseconds per batch against num_workers, measured and
/// predicted, one pair of lines per step time. `words`: "title", "x", "y", "measured", "model",
/// "step".
std::string feed_svg(const std::filesystem::path& csv, const std::map<std::string, std::string>& words);

}  // namespace kindling::figures
