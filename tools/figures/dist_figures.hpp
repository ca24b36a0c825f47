#pragma once
// Week 7's figures (dist_figures.cpp): measured timelines of the ring all-reduce.

#include <filesystem>
#include <string>

namespace kindling::figures {

/// One rank of the recorded run (kindling-figures --ring-rank CSV, started by record_ring).
int ring_rank_main(const std::filesystem::path& csv);
/// Records the ring on 2 and 4 ranks into DATA/week07-ring-{2,4}.csv; `self` is this program.
void record_ring(const std::filesystem::path& data, const std::string& self);
/// The timeline of DATA's week07-ring-N.csv, with its words.
std::string ring_svg(const std::filesystem::path& csv, int nproc, const std::string& title,
                     const std::string& rank_word, const std::string& rs, const std::string& ag);

}  // namespace kindling::figures
