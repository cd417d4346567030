// Runs over MPI ranks in the reports (distributed_report.hpp).
#include "distributed_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace rica::cli {

namespace {
template <class T>
T max_of(const std::vector<T>& v) {
  return v.empty() ? T{} : *std::max_element(v.begin(), v.end());
}
template <class T>
T sum_of(const std::vector<T>& v) {
  return std::accumulate(v.begin(), v.end(), T{});
}
}  // namespace

nlohmann::json distributed_json(const RunStats& st, const EngineConfig& cfg) {
  return {{"ranks", st.ranks},
          {"threads_per_rank", cfg.threads},
          {"split", st.rank_split},
          {"links", st.links},
          {"cut_links", st.cut_links},
          {"hops", st.hops},
          {"cross_rank_hops", st.cross_rank_hops},
          {"cross_rank_share", st.hops ? static_cast<double>(st.cross_rank_hops) / static_cast<double>(st.hops) : 0.0},
          {"batches", st.rank_batches},
          {"peak_rss_kb_per_rank", st.rank_peak_rss_kb},
          {"peak_rss_kb_max", max_of(st.rank_peak_rss_kb)},
          {"peak_rss_kb_sum", sum_of(st.rank_peak_rss_kb)},
          {"mpi_wait_share",
           {{"max", max_of(st.rank_mpi_wait_share)},
            {"mean", st.rank_mpi_wait_share.empty() ? 0.0
                                                     : sum_of(st.rank_mpi_wait_share) /
                                                           static_cast<double>(st.rank_mpi_wait_share.size())},
            {"per_rank", st.rank_mpi_wait_share}}}};
}

void print_distributed(const RunStats& st, const EngineConfig& cfg) {
  fmt::print("ranks         {} ranks x {} thread{} ({}); links cut {} of {} ({:.1f}%); hops across ranks {} of {} "
             "({:.1f}%)\n",
             st.ranks, cfg.threads, cfg.threads == 1 ? "" : "s", st.rank_split, st.cut_links, st.links,
             st.links ? 100.0 * static_cast<double>(st.cut_links) / static_cast<double>(st.links) : 0.0,
             st.cross_rank_hops, st.hops,
             st.hops ? 100.0 * static_cast<double>(st.cross_rank_hops) / static_cast<double>(st.hops) : 0.0);
  if (st.rank_batches)  // the async engine's bridges: packets and credits travel in batches per rank
    fmt::print("  batches     {} messages between ranks, {:.1f} packets each on average\n", st.rank_batches,
               static_cast<double>(st.cross_rank_hops) / static_cast<double>(st.rank_batches));
  const double n = static_cast<double>(std::max<std::size_t>(1, st.rank_mpi_wait_share.size()));
  fmt::print("ranks         time in MPI {:.1f}% max, {:.1f}% mean; peak RSS per rank {:.1f} MB max, {:.1f} MB "
             "all ranks\n",
             100.0 * max_of(st.rank_mpi_wait_share), 100.0 * sum_of(st.rank_mpi_wait_share) / n,
             static_cast<double>(max_of(st.rank_peak_rss_kb)) / 1024, static_cast<double>(sum_of(st.rank_peak_rss_kb)) / 1024);
}


}  // namespace rica::cli
