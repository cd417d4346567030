#pragma once
// Telemetry over time (docs/runtime.md "Telemetry over time"): an Observer (rica/observer.hpp) that
// records, per window of W cycles (cycle engine) or W microseconds (async engine: the world stops at
// each window's end, rica/observer.hpp), what the machine did in the window and
// what it held at the window's end, as tidy tables (one row per window, per window and link, ...)
// written as CSV through the one CSV writer (rica/report.hpp) and read by Python as NumPy columns.
//
// Every count is the difference of the machine's exact cumulative figures at the two window
// boundaries, so the windows of a run sum exactly to the run's own totals (RunStats: injected,
// delivered, measured, packet-hops, link_packets) and are identical for any thread count. Words
// and packets "held" are the state at the window's end.
//
// Cost: per window, one pass over the nodes and input buffers (none per cycle), and over the links
// when the per-link table is asked for (Options::links, --telemetry-links: it is most of the
// window's cost, 7 values per link); no allocation per window but the tables' own growth. Every
// stop of the world is timed (Observer::on_stopped), and the summary gives the sum (stopped_s)
// and its share of the run, so the cost is measured on any host. A run without a Telemetry
// observer pays nothing. On the async engine the times (begin, end, latency sums) are ns of the
// run's clock, which stands still while the world is stopped.
//
// Thread safety: one run at a time (the observer contract: its calls never overlap, and on the
// async engine on_window may run on an engine worker); read the tables after the run.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/defaults.hpp"
#include "rica/observer.hpp"

namespace rica {

/// One table of the telemetry: named columns of equal length, each of integers or reals (a real
/// that is undefined, e.g. the mean latency of a window without a measured delivery, is NaN; the
/// CSV leaves it empty).
struct TelemetryTable {
  struct Column {
    std::string name;
    bool real = false;
    std::vector<std::uint64_t> ints;  ///< when !real
    std::vector<double> reals;        ///< when real
  };
  std::vector<Column> columns;
  std::size_t rows() const noexcept;
  /// The CSV text: a header, then one row per row (rica::report::csv_row). `leading` columns
  /// (name, value) come first in every row (e.g. the policy, rate and slice of one of several
  /// runs); without `header` the header line is left out (to append runs to one file).
  std::string csv(const std::vector<std::pair<std::string, std::string>>& leading = {}, bool header = true) const;
};

class Telemetry : public Observer {
 public:
  struct Options {
    /// Record the per-link table (per window and out-link: packets moved, words held downstream):
    /// rows of links x windows, most of a window's cost, so only when asked (--telemetry-links).
    bool links = false;
    /// Record the per-job table and the halt changes (OS runs: rica::run_jobs).
    bool jobs = false;
    /// The per-link table stops growing past this many rows (its later windows are left out and
    /// summary()["links_truncated"] says so); the other tables are never cut.
    std::uint64_t max_link_rows = defaults::telemetry::max_link_rows;
  };
  explicit Telemetry(std::uint64_t window = defaults::telemetry::window) : Telemetry(window, Options{}) {}
  Telemetry(std::uint64_t window, Options options);

  void on_start(const MachineView& v) override;
  void on_window(const MachineView& v, std::uint64_t begin, std::uint64_t end) override;
  void on_end(const MachineView& v) override;
  void on_stopped(std::uint64_t ns) override;

  /// Per window: window,begin,end,injected,delivered,measured,latency_sum,net_latency_sum,
  /// latency_mean,net_latency_mean,throughput (delivered per PE per cycle; async: per PE per
  /// microsecond),packet_hops,dropped,
  /// occupancy_words,occupancy_packets (held in input buffers at the end),source_queue (packets
  /// waiting at the end),blocked (head packets that found no room, in the window),halted (nodes
  /// the OS held at the end).
  const TelemetryTable& windows() const noexcept { return windows_; }
  /// Per window and present out-link (Options::links; else empty): window,end,node,port,peer,
  /// packets (moved in the window), words (held at the end in the input buffer the link feeds,
  /// every class).
  const TelemetryTable& links() const noexcept { return links_; }
  /// Per window and buffer class: window,end,class,words,packets (held at the end, every buffer).
  const TelemetryTable& classes() const noexcept { return classes_; }
  /// Per window and job (Options::jobs): window,end,job,pes (running it at the end),delivered,
  /// injected (by those PEs in the window: a PE's counts go to the job it runs at the window's
  /// end, so a window that holds a switch may give some to the next job; job 255 = no job at the
  /// end), halted. A job without PEs and without counts in a window has no row in it.
  const TelemetryTable& jobs() const noexcept { return jobs_; }
  /// Halt changes seen at window ends (Options::jobs): cycle,node,halted (1 held, 0 resumed),job.
  const TelemetryTable& halts() const noexcept { return halts_; }

  /// The tables by name: windows, classes (links with Options::links; jobs, halts with Options::jobs).
  std::vector<std::pair<std::string, const TelemetryTable*>> tables() const;

  /// The summary for a run's JSON: window, time_unit ("cycles", or "ns" on the async engine),
  /// windows, rows per table, peaks (delivered and occupancy per window, and the window's end),
  /// links (the per-link table recorded), links_truncated, the cost of watching — stops, stopped_s
  /// (the world stood still for the windows, summed) and stopped_share (of the wall time from the
  /// run's start to its end) — and `files` when given.
  nlohmann::json summary(const std::vector<std::string>& files = {}) const;
  /// Writes each table NAME of tables() as CSV file `prefix` + NAME + ".csv"; returns the paths.
  /// usage_error naming `what` when a file cannot be written.
  std::vector<std::string> write_csv(const std::string& prefix, const std::string& what) const;
  /// The files write_csv(prefix) writes, without writing them.
  std::vector<std::string> csv_paths(const std::string& prefix) const;

 private:
  Options opt_;
  TelemetryTable windows_, links_, classes_, jobs_, halts_;
  // The previous boundary's cumulative figures.
  MachineView::Totals last_{};
  std::vector<std::uint64_t> last_link_, last_inj_, last_del_, last_blocked_;
  std::vector<std::uint8_t> last_halted_;
  // Per window, reused (no allocation per window): per class, per job.
  std::vector<std::uint64_t> class_words_, class_packets_, job_pes_, job_del_, job_inj_, job_halted_;
  // The cost of watching: stops of the world and their wall time; the run's wall span.
  std::uint64_t stops_ = 0, stopped_ns_ = 0;
  std::int64_t started_ns_ = 0, ended_ns_ = 0;  // steady_clock at on_start, on_end
  std::vector<node_t> link_node_, link_peer_;  // present out-links: node, peer
  std::vector<port_t> link_port_, link_in_;     // and out-port, the peer's in-port
  std::uint64_t index_ = 0;
  bool truncated_ = false;
  node_t pes_ = 0;
  bool cycles_ = true;  // the cycle engine's run (else async: times in ns)
};

}  // namespace rica
