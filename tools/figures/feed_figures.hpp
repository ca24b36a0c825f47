#pragma once
// Week 4's feed measurement (feed_figures.cpp): the whole disk -> worker -> pinned -> device
// pipeline, timed for each num_workers, against what feed_timeline() predicts from its parts.

#include <filesystem>
#include <map>
#include <string>

namespace kindling::figures {

/// Measures the pipeline into DATA/week04-feed.csv (kindling-figures --record-feed DATA).
void record_feed(const std::filesystem::path& data);
/// The table of DATA's week04-feed.csv as week 4's lecture shows it (Markdown, one decimal): for
/// each wait, rows `words` "measured", "model" and "loop" ("{}" stands for the wait), then "load"
/// and "cpu" for the first wait. kit.figures checks that each line is in the lecture.
std::string feed_table(const std::filesystem::path& csv, const std::map<std::string, std::string>& words);
/// The chart of DATA's week04-feed.csv: milliseconds per batch against num_workers, measured and
/// predicted, one pair of lines per step time. `words`: "title", "x", "y", "measured", "model",
/// "step".
std::string feed_svg(const std::filesystem::path& csv, const std::map<std::string, std::string>& words);

}  // namespace kindling::figures
