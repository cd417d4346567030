#pragma once
// The machine's ledger: what the run has done, as opposed to what the nodes hold now. Per-thread
// statistics (latency, hops, histograms, per-job figures), the exactly-once record of delivered
// packets, per job and node the packets that entered and left the network, per job and link the
// packets carried, the delivery trace, and the sums and stuck buffers collected after the run.
// Not API: runtime/machine/machine.hpp composes it; docs/runtime.md has the design.
//
// Invariants and thread safety:
//  - ThreadStats k is written only by the worker in arena slot k (no shared counter on the packet
//    path); they are summed after the run, or between cycles by the main thread (observers);
//  - the exactly-once bitmap has one bit per (source PE, sequence number) below bitmap_k(): any
//    thread sets bits with a relaxed fetch_or, and a bit found set already is a duplicate;
//  - net_in / net_out [job * nodes + v] and the trace rows of PE v are written only by node v's
//    task (or the main thread between cycles, the machine still);
//  - conservation, checked by Machine::collect from these and the node tables: injected ==
//    delivered + in the network + held by the OS + dropped by faults, every id delivered once.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "rica/link_buffer.hpp"
#include "rica/packet.hpp"
#include "sparse.hpp"

namespace rica::detail {

inline std::uint64_t packet_id(const Packet& p) noexcept { return mix64((std::uint64_t{p.src} << 32) | p.seq); }

/// Log-linear latency bucket: 8 sub-buckets per power of two.
inline unsigned lat_bucket(std::uint64_t ns) noexcept {
  if (ns < 8) return static_cast<unsigned>(ns);
  const unsigned msb = 63u - static_cast<unsigned>(std::countl_zero(ns));
  return msb * 8 + static_cast<unsigned>((ns >> (msb - 3)) & 7u);
}
inline double lat_bucket_mid(unsigned b) noexcept {
  if (b < 8) return b;
  const unsigned msb = b / 8, sub = b % 8;
  const double lo = std::ldexp(8.0 + sub, static_cast<int>(msb) - 3);
  return lo + std::ldexp(0.5, static_cast<int>(msb) - 3);
}

/// Per worker-thread statistics, merged after the run (no shared counter on the packet path).
/// Indexed by the worker's slot in the arena; each on its own cache lines.
struct alignas(64) ThreadStats {
  std::uint64_t delivered = 0, hops = 0, duplicates = 0, beyond_bitmap = 0;
  std::uint64_t measured = 0;           // deliveries of packets generated after the warm-up
  std::uint64_t delivered_in_window = 0;  // cycle engine: deliveries during [warmup, cycles)
  std::uint64_t lat_sum = 0, lat_max = 0;
  std::uint64_t net_lat_sum = 0, net_lat_max = 0;  // from entering the network to delivery
  unsigned hops_max = 0;
  std::uint64_t sum_delivered_ids = 0;  // checksum of delivered (src, seq)
  std::uint64_t dropped = 0, dropped_ids = 0;  // faults: packets for a failed PE dropped (count, checksum)
  std::uint64_t hop_sum = 0;            // links crossed by the measured deliveries
  std::vector<std::uint64_t> hop_hist = std::vector<std::uint64_t>(256, 0);
  std::vector<std::uint64_t> lat_hist = std::vector<std::uint64_t>(64 * 8, 0);
  std::vector<std::uint64_t> net_lat_hist = std::vector<std::uint64_t>(64 * 8, 0);
  /// Per job (rica/os.hpp): deliveries, measured deliveries, their latency and hop sums, max latency.
  struct JobFigures {
    std::uint64_t delivered = 0, measured = 0, lat_sum = 0, lat_max = 0, hops = 0, misdelivered = 0;
    JobFigures& operator+=(const JobFigures& b) noexcept {
      delivered += b.delivered, measured += b.measured, lat_sum += b.lat_sum, hops += b.hops;
      misdelivered += b.misdelivered;
      lat_max = std::max(lat_max, b.lat_max);
      return *this;
    }
  };
  std::vector<JobFigures> job;
  /// Latency histograms per buffer class (the class a packet is delivered from) and per job:
  /// [(group * 2 + k) * lat_buckets + bucket], k = 0 total, 1 network. Empty when there is one
  /// class / one job (the run's own histograms are then that group's), so a plain run pays one
  /// test of an empty vector per measured delivery.
  static constexpr std::size_t lat_buckets = 64 * 8;
  std::vector<std::uint64_t> class_hist, job_hist;
  /// Adds x's figures (counts, sums, maxima, histograms, per-job figures) to these; the cycle
  /// engine's effect lists and the slot cache are not figures and stay as they are.
  void add(const ThreadStats& x) {
    delivered += x.delivered, hops += x.hops, duplicates += x.duplicates, beyond_bitmap += x.beyond_bitmap;
    measured += x.measured, delivered_in_window += x.delivered_in_window;
    lat_sum += x.lat_sum, net_lat_sum += x.net_lat_sum, hop_sum += x.hop_sum;
    lat_max = std::max(lat_max, x.lat_max), net_lat_max = std::max(net_lat_max, x.net_lat_max);
    hops_max = std::max(hops_max, x.hops_max);
    sum_delivered_ids += x.sum_delivered_ids, dropped += x.dropped, dropped_ids += x.dropped_ids;
    for (std::size_t i = 0; i < hop_hist.size(); ++i) hop_hist[i] += x.hop_hist[i];
    for (std::size_t i = 0; i < lat_hist.size(); ++i) lat_hist[i] += x.lat_hist[i];
    for (std::size_t i = 0; i < net_lat_hist.size(); ++i) net_lat_hist[i] += x.net_lat_hist[i];
    if (job.size() < x.job.size()) job.resize(x.job.size());
    for (std::size_t j = 0; j < x.job.size(); ++j) job[j] += x.job[j];
    for (auto [to, from] : {std::pair{&class_hist, &x.class_hist}, std::pair{&job_hist, &x.job_hist}}) {
      if (to->size() < from->size()) to->resize(from->size(), 0);
      for (std::size_t i = 0; i < from->size(); ++i) (*to)[i] += (*from)[i];
    }
  }
  /// A measured delivery (generated after the warm-up): latency `lat`, network latency `net`.
  void measure(const Packet& p, std::uint64_t lat, std::uint64_t net) noexcept {
    ++measured;
    lat_sum += lat;
    lat_max = std::max(lat_max, lat);
    net_lat_sum += net;
    net_lat_max = std::max(net_lat_max, net);
    const unsigned bl = std::min<unsigned>(lat_bucket(lat), 64 * 8 - 1);
    const unsigned bn = std::min<unsigned>(lat_bucket(net), 64 * 8 - 1);
    ++lat_hist[bl];
    ++net_lat_hist[bn];
    if (!class_hist.empty()) {  // sized for every class by make_threads
      ++class_hist[std::size_t{p.cls} * 2 * lat_buckets + bl];
      ++class_hist[(std::size_t{p.cls} * 2 + 1) * lat_buckets + bn];
    }
    if (!job_hist.empty()) {
      ++job_hist[std::size_t{p.job} * 2 * lat_buckets + bl];
      ++job_hist[(std::size_t{p.job} * 2 + 1) * lat_buckets + bn];
    }
    ++hop_hist[std::min<unsigned>(p.hops, 255)];  // the last bucket collects 255 and more
    hop_sum += p.hops;
    hops_max = std::max<unsigned>(hops_max, p.hops);
  }
  // Cycle engine: effects on other nodes' state, applied by the main thread between cycles (so
  // no decision in a cycle depends on how far another thread got in it).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> credit_returns;  // (credit index, words)
  std::vector<std::pair<node_t, std::uint32_t>> arrivals;                // (node, input index)
  std::vector<std::pair<std::uint64_t, node_t>> wakeups;                 // (cycle, node) to wake
  std::int64_t asleep = 0;                                               // nodes put to sleep - woken
  SlotCache slots;  ///< this thread's free packet slots (rica/link_buffer.hpp)
};


/// collect()'s sums over the nodes this process holds (under mpirun rank 0 adds every rank's).
struct NodeSums {
  std::uint64_t injected = 0, forwarded = 0, blocked = 0, in_network = 0;
  std::uint64_t injected_ids = 0;  ///< sum of packet_id over every packet the PEs injected
  std::uint64_t in_net_ids = 0;    ///< the same over the packets still in source queues
  std::uint64_t generating = 0;    ///< PEs still generating
  NodeSums& operator+=(const NodeSums& o) noexcept {
    injected += o.injected, forwarded += o.forwarded, blocked += o.blocked, in_network += o.in_network;
    injected_ids += o.injected_ids, in_net_ids += o.in_net_ids, generating += o.generating;
    return *this;
  }
};
/// A non-empty input buffer (the deadlock analysis): node, input, packets, words held, and
/// the head's destination and class.
struct StuckBuffer {
  node_t v;
  std::uint32_t in;
  std::uint64_t packets;
  std::uint32_t held;
  node_t dst;
  class_t cls;
  node_t src = 0;          ///< the head's source and sequence number (the packet routings' hash)
  std::uint32_t seq = 0;
};

/// One delivered packet in the trace (--trace): ids, hops, length, and its three times.
struct TraceRow {
  node_t src, dst;
  std::uint32_t seq;
  std::uint16_t hops;
  std::uint8_t words;
  std::uint64_t inject, enter, deliver;
};

class Ledger {
 public:
  // ---- set-up (Machine::allocate, the main thread) ----
  /// Per-job network counters for `jobs` jobs on `nodes` nodes of `ports` ports; `held(v)`: the
  /// nodes whose entries this process makes resident (all with one process).
  template <class Held>
  void allocate(node_t nodes, port_t ports, std::size_t jobs, Held&& held) {
    nodes_ = nodes;
    ports_ = ports;
    net_in_.resize(jobs * nodes);
    net_out_.resize(jobs * nodes);
    for (std::size_t j = 0; j < jobs; ++j)
      for (node_t v = 0; v < nodes; ++v)
        if (held(v)) net_in_[j * nodes + v] = net_out_[j * nodes + v] = 0;
    if (jobs > 1) job_link_.assign(jobs * nodes * ports, 0);
  }
  /// The exactly-once record: k bits per source PE (0: checksums only).
  void record_ids(std::uint64_t k, node_t pes) {
    bitmap_k_ = k;
    if (k) bitmap_ = std::vector<std::atomic<std::uint64_t>>((k * pes + 63) / 64);
  }
  std::uint64_t bitmap_k() const noexcept { return bitmap_k_; }
  /// One ThreadStats per arena slot, each with a slot cache on `pool`, and per-job figures.
  void make_threads(std::size_t n, PacketPool& pool, std::size_t jobs, std::size_t classes) {
    tstats_ = std::vector<ThreadStats>(n);
    for (ThreadStats& ts : tstats_) {
      ts.slots.attach(pool);
      ts.job.assign(jobs, {});
      if (classes > 1) ts.class_hist.assign(classes * 2 * ThreadStats::lat_buckets, 0);
      if (jobs > 1) ts.job_hist.assign(jobs * 2 * ThreadStats::lat_buckets, 0);
    }
  }
  /// Record every delivery in the trace, per PE.
  void start_trace(node_t pes) { traces_.resize(pes); }

  // ---- the packet path (node v's task) ----
  void entered(std::uint8_t job, node_t v) noexcept { ++net_in_[std::size_t{job} * nodes_ + v]; }
  void left(std::uint8_t job, node_t v) noexcept { ++net_out_[std::size_t{job} * nodes_ + v]; }
  void carried(std::uint8_t job, node_t v, port_t port) noexcept {
    if (!job_link_.empty()) ++job_link_[(std::size_t{job} * nodes_ + v) * ports_ + port];
  }
  /// Marks p's id in the exactly-once record; true if it was marked already (a duplicate).
  /// An id beyond the record counts in ts.beyond_bitmap (checked by checksums only).
  bool mark(const Packet& p, std::uint64_t& beyond) noexcept {
    if (!bitmap_k_) return false;
    if (p.seq >= bitmap_k_) {
      ++beyond;
      return false;
    }
    const std::uint64_t bit = std::uint64_t{p.src} * bitmap_k_ + p.seq;
    const std::uint64_t mask = std::uint64_t{1} << (bit % 64);
    return (bitmap_[bit / 64].fetch_or(mask, std::memory_order_relaxed) & mask) != 0;
  }
  bool tracing() const noexcept { return !traces_.empty(); }
  void trace(node_t v, const TraceRow& r) { traces_[v].push_back(r); }

  /// Job id j is reused for another job (job streams recycle ids, rica/os_stream.hpp): its
  /// network counters, link counts and per-thread figures start again from zero. Main thread,
  /// between cycles; the caller has read what it keeps and no packet of j is anywhere.
  template <class Held>
  void reset_job(std::size_t j, Held&& held) {
    for (node_t v = 0; v < nodes_; ++v)
      if (held(v)) net_in_[j * nodes_ + v] = net_out_[j * nodes_ + v] = 0;
    if (!job_link_.empty())
      std::fill_n(job_link_.begin() + static_cast<std::ptrdiff_t>(j * nodes_ * ports_), std::size_t{nodes_} * ports_, 0);
    for (ThreadStats& ts : tstats_)
      if (j < ts.job.size()) ts.job[j] = {};
  }

  // ---- reads (after the run, or between cycles) ----
  std::uint64_t net_in(std::size_t j, node_t v) const noexcept { return net_in_[j * nodes_ + v]; }
  std::uint64_t net_out(std::size_t j, node_t v) const noexcept { return net_out_[j * nodes_ + v]; }
  std::uint64_t job_link_packets(std::size_t j, node_t v, port_t port) const noexcept {
    return job_link_.empty() ? 0 : job_link_[(j * nodes_ + v) * ports_ + port];
  }
  std::vector<ThreadStats>& threads() noexcept { return tstats_; }
  const std::vector<ThreadStats>& threads() const noexcept { return tstats_; }
  /// Per-job figures summed over the threads.
  ThreadStats::JobFigures job_figures(std::size_t j) const {
    ThreadStats::JobFigures f;
    for (const ThreadStats& ts : tstats_) f += ts.job[j];
    return f;
  }
  /// Distinct ids marked in the exactly-once record.
  std::uint64_t distinct_marked() const noexcept {
    std::uint64_t n = 0;
    for (const auto& w : bitmap_) n += static_cast<std::uint64_t>(std::popcount(w.load(std::memory_order_relaxed)));
    return n;
  }
  /// The record's words, for the MPI gather (rank 0 ORs every rank's into its own).
  std::vector<std::atomic<std::uint64_t>>& id_words() noexcept { return bitmap_; }
  std::vector<std::vector<TraceRow>>& traces() noexcept { return traces_; }  ///< [PE]
  /// Drops by the main thread (dynamic faults, between cycles): count, id checksum, duplicates.
  struct MainDrops {
    std::uint64_t count = 0, ids = 0, dups = 0;
  };
  MainDrops& main_drops() noexcept { return main_drops_; }
  const MainDrops& main_drops() const noexcept { return main_drops_; }
  /// After the run: the node sums and non-empty buffers (rank 0: every rank's), sorted by
  /// (node, input), read by Machine::collect and Machine::analyse_stuck.
  NodeSums& sums() noexcept { return sums_; }
  std::vector<StuckBuffer>& stuck() noexcept { return stuck_; }
  const std::vector<StuckBuffer>& stuck() const noexcept { return stuck_; }

 private:
  node_t nodes_ = 0;
  port_t ports_ = 0;
  /// [job * nodes + v]: packets that entered / left the network at v.
  lazy_vector<std::uint64_t> net_in_, net_out_;
  std::vector<std::uint64_t> job_link_;  ///< [(job * nodes + v) * ports + port], more than one job
  std::vector<std::vector<TraceRow>> traces_;  ///< [PE]
  std::uint64_t bitmap_k_ = 0;                 ///< bits per source PE (0: checksum mode)
  std::vector<std::atomic<std::uint64_t>> bitmap_;
  std::vector<ThreadStats> tstats_;  ///< [arena slot]
  MainDrops main_drops_;
  NodeSums sums_;
  std::vector<StuckBuffer> stuck_;
};

}  // namespace rica::detail
