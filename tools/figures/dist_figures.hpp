#pragma once
// Week 7's figures (dist_figures.cpp): measured timelines of the ring all-reduce.

#include <filesystem>
#include <string>

namespace kindling::figures {

/// One rank of the recorded run (kindling-figures --ring-rank CSV, started by record_ring).
int ring_rank_main(const std::filesystem::path& csv);
/// Records the ring on 2 and 4 ranks into DATA/week07-ring-{2,4}.csv; `self` is this program.
void record_ring(const std::filesystem::path& data, const std::string& self);
/// One rank of --record-allreduce (kindling-figures --allreduce-rank CSV).
int allreduce_rank_main(const std::filesystem::path& csv);
/// Bus bandwidth of the reference ring against Gloo's all-reduce, 4 KiB to 64 MiB on 2 and 4 ranks,
/// into DATA/week07-allreduce.csv.
void record_allreduce(const std::filesystem::path& data, const std::string& self);
/// One rank of --record-ddp (kindling-figures --ddp-rank CSV).
int ddp_rank_main(const std::filesystem::path& csv);
/// A training step of one process, of naive data parallelism and of DDP on 2 ranks, and the timeline
/// of one DDP backward per rank, into DATA/week07-ddp.csv.
void record_ddp(const std::filesystem::path& data, const std::string& self);
/// The timeline of DATA's week07-ddp.csv: each rank's backward and its buckets' all-reduces.
std::string ddp_svg(const std::filesystem::path& csv, const std::string& title, const std::string& rank_word,
                    const std::string& backward_word, const std::string& wait_word);
/// The timeline of DATA's week07-ring-N.csv, with its words.
std::string ring_svg(const std::filesystem::path& csv, int nproc, const std::string& title,
                     const std::string& rank_word, const std::string& rs, const std::string& ag);

}  // namespace kindling::figures
