#pragma once
// Running an application on an emulated machine (the async engine: every PE a lightweight unit of
// work scheduled by oneTBB only when it has work; real time, real concurrency).

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/app.hpp"
#include "rica/defaults.hpp"
#include "rica/observer.hpp"
#include "rica/topology.hpp"

namespace rica {

/// Which driver runs the machine: a registered engine's number (engines(), below). The built-ins
/// are named here: real threads in real time, and a deterministic virtual clock; an engine
/// registered later takes the next number (engine_kind_by_name finds it).
enum class EngineKind : std::uint8_t { async, cycle };
/// Cycle engine timing: virtual cut-through (the papers'; the head moves on while the tail still
/// crosses the previous link) or store-and-forward (a packet leaves only once all of it arrived).
enum class Timing : std::uint8_t { vct, saf };
/// Which waiting packet an output link takes: round robin over the inputs, or the oldest (by
/// generation time; ties by input order).
enum class Arbitration : std::uint8_t { round_robin, oldest };
/// The routing the hop kernel follows: the topology's deterministic route(), its adaptive
/// routing (candidate hops + an escape hop, rica/routing.hpp), or the dragonfly's non-minimal
/// Valiant, UGAL-L, UGAL-G and PAR (rica/routing/dragonfly.hpp), where the topology offers one.
enum class Routing : std::uint8_t { deterministic, adaptive, valiant, ugal_l, ugal_g, par };
/// Under mpirun (docs/distributed.md): how nodes are split over the ranks — contiguous blocks of
/// the node numbering (PEs, then switches, each in R blocks), or the partitions of
/// rica::partition (the topology's own cut; switches by the partition whose routes use them).
enum class RankSplit : std::uint8_t { blocks, partition };

const char* to_string(EngineKind k) noexcept;
const char* to_string(Timing t) noexcept;
const char* to_string(Arbitration a) noexcept;
const char* to_string(Routing r) noexcept;
const char* to_string(RankSplit s) noexcept;
/// By name (a registered engine: "async", "cycle", ...; "vct"/"saf", "rr"/"oldest"); usage_error
/// naming `option`, the nearest name and the accepted names otherwise.
EngineKind engine_kind_by_name(const std::string& name, const std::string& option = "--engine");
Timing timing_by_name(const std::string& name, const std::string& option = "--timing");
Arbitration arbitration_by_name(const std::string& name, const std::string& option = "--arbitration");
/// "deterministic", "adaptive", "valiant", "ugal-l", "ugal-g" or "par" (whether the topology offers it is checked by rica::run and by
/// check_routing() in rica/routing.hpp).
Routing routing_by_name(const std::string& name, const std::string& option = "--routing");
RankSplit rank_split_by_name(const std::string& name, const std::string& option = "--rank-split");

/// What an engine offers. Every entry point's checks and the CLI read these, never an engine's
/// name (docs/runtime.md, "Adding a driver").
struct EngineTraits {
  /// Time counts cycles (Context::now, latencies in cycles) and the run has an injection window
  /// (--cycles, --warmup); without it the clock is real time in ns.
  bool virtual_clock = false;
  /// The cycle engine's link model: --link-cycles, --timing, --arbitration.
  bool link_timing = false;
  /// A router pipeline per hop (--router-cycles).
  bool router_cycles = false;
  /// Faults during the run (--faults at=CYCLE).
  bool timed_faults = false;
  /// Observers get on_window (rica/observer.hpp; --telemetry): between cycles with a virtual clock,
  /// else every W microseconds of real time with the workers paused (the async engine).
  bool windows = false;
  /// Runs over MPI ranks (docs/distributed.md).
  bool over_ranks = false;
};

/// A registered engine: its name (--engine NAME), one line of documentation (--engine's help),
/// its traits, and the bytes of its own state per link (rica/footprint.hpp's estimate).
struct EngineInfo {
  std::string name, doc;
  EngineTraits traits;
  unsigned link_bytes = 0;
  EngineKind kind = EngineKind::async;
};

/// The registered engines, in registration order: the built-ins first (async, cycle), in the
/// order of their rica_engine() lines (cmake/engines.cmake), then those registered by code.
/// Registration happens before main() (static registration objects); after that the list is
/// read-only and any thread may read it.
std::vector<EngineInfo> engines();
/// Engine k's entry; usage_error when no engine has that number.
const EngineInfo& engine_info(EngineKind k);
inline const EngineTraits& engine_traits(EngineKind k) { return engine_info(k).traits; }
/// The names of the engines with a trait, e.g. engines_with(&EngineTraits::virtual_clock): {"cycle"}.
std::vector<std::string> engines_with(bool EngineTraits::*trait);
/// usage_error unless engine k has `trait`, in one line naming the option that needs it and the
/// engines that have it: "<option> applies to the cycle engine only (the async engine <lacks>); add
/// --engine cycle or drop <option>" (no parenthesis when `lacks` is empty).
void require_trait(EngineKind k, bool EngineTraits::*trait, const std::string& option, const std::string& lacks = "");

struct EngineConfig {
  EngineKind engine = EngineKind::async;                    ///< the driver (rica::run dispatches on it)
  unsigned threads = defaults::engine::threads;              ///< worker threads (0 = all cores)
  std::uint64_t seed = defaults::engine::seed;
  unsigned buffer_words = defaults::engine::buffer_words;    ///< per input port and class
  unsigned packet_words = defaults::engine::packet_words;    ///< mean packet length
  unsigned packet_spread = defaults::engine::packet_spread;  ///< length uniform in mean +- spread
  bool classes = true;       ///< false: every packet in class 0 (deliberately deadlock-prone)
  unsigned batch = defaults::engine::batch;                  ///< packet moves per PE activation
  unsigned block = defaults::engine::block;                  ///< PEs per scheduling block
  bool progress = false;     ///< progress line on stderr
  // ---- cycle engine (run_cycles) ----
  std::uint64_t cycles = defaults::engine::cycles;  ///< injection window in cycles
  std::uint64_t warmup = 0;  ///< packets generated before this cycle are left out of the statistics
  /// Cycles a link is busy per packet: 0 = the sending node's in-degree + out-degree (the MDCE
  /// paper's pin-limited links); link_cycles_words = one cycle per word.
  unsigned link_cycles = 0;
  bool link_cycles_words = false;
  Timing timing = Timing::vct;                              ///< cycle engine timing model
  /// Cycle engine output arbitration. Oldest first by default: round robin starves inputs deep in
  /// saturation (torus:32x32, rate 1: max latency 22,143 cycles and 0.0095 accepted, against
  /// 2,403 and 0.0252 oldest first; docs/runtime.md).
  Arbitration arbitration = Arbitration::oldest;
  /// Cycle engine: a router pipeline of this many cycles per hop — a packet's head may leave (or
  /// be delivered at) the node it reached only R cycles after it arrived. 0 (default): today's
  /// model exactly. The async engine refuses anything else.
  unsigned router_cycles = defaults::engine::router_cycles;
  /// Deterministic (default: the topology's route(), exactly as fast as without this option) or
  /// adaptive (refused with usage_error when the topology offers none).
  Routing routing = Routing::deterministic;
  std::string trace;         ///< CSV file: one row per delivered packet (both engines), trace_columns
  RankSplit rank_split = RankSplit::blocks;  ///< under mpirun: which rank owns which node
};

/// What an application sees of cfg's timing (rica/app.hpp's MachineParams).
inline MachineParams machine_params(const EngineConfig& cfg) {
  MachineParams p;
  p.cycle_clock = engine_traits(cfg.engine).virtual_clock;
  p.packet_words = cfg.packet_words;
  p.packet_spread = cfg.packet_spread;
  p.link_cycles = cfg.link_cycles;
  p.link_cycles_words = cfg.link_cycles_words;
  p.store_and_forward = cfg.timing == Timing::saf;
  p.router_cycles = cfg.router_cycles;
  return p;
}

/// The columns of the packet trace (EngineConfig::trace), in file order: source, destination,
/// sequence number, generation time, delivery time, hops, when the packet left its source queue,
/// length in words. Declared once: the writer's header, --trace's help and Python's reader use it.
inline constexpr std::array<std::string_view, 8> trace_columns{"src",     "dst",  "seq",   "inject",
                                                               "deliver", "hops", "enter", "words"};
/// trace_columns joined by commas: the trace file's header line (without its newline).
std::string trace_header();

/// The cycle engine's timing of a packet that never waits (docs/runtime.md): over a link of L
/// cycles per packet its head moves on after h = ceil(L / words) cycles (virtual cut-through) or
/// L (store-and-forward), plus the router pipeline R (--router-cycles) at the node it reaches;
/// its tail arrives L cycles after it left, and no earlier than one word time (h) after the tail
/// reached the previous node. A packet is delivered when its tail has arrived and its head is
/// ready: `tail` below is that time (the later of the two). Over H hops of equal links:
/// (H - 1)(h + R) + max(L, h + R).
struct ZeroLoadTiming {
  std::uint64_t ready = 0;  ///< head at the current node, ready to leave
  std::uint64_t tail = 0;   ///< delivery time at the current node: tail arrived and head ready
  void hop(unsigned link_cycles, unsigned words, Timing t, unsigned router_cycles = 0) noexcept {
    const std::uint64_t h = t == Timing::vct ? (link_cycles + words - 1) / words : link_cycles;
    const std::uint64_t left = ready;
    ready = left + h + router_cycles;
    tail = std::max({left + link_cycles, tail + h, ready});
  }
};

/// Figures of one run. Counts are exact (summed per PE / per thread after the run).
struct RunStats {
  std::uint64_t injected = 0, delivered = 0, duplicates = 0, lost = 0, in_network = 0;
  std::uint64_t forwarded = 0;   ///< relay hops (packets passed on by an intermediate node)
  std::uint64_t hops = 0;        ///< packet-hops (links traversed)
  std::uint64_t blocked = 0;     ///< times a head packet found no room downstream
  unsigned hops_max = 0;
  double hops_mean = 0;
  std::vector<std::uint64_t> hop_histogram;
  /// Latency: generation to delivery (source queueing included), in latency_unit.
  double latency_mean = 0, latency_p50 = 0, latency_p99 = 0, latency_p999 = 0, latency_max = 0;
  /// Network latency: entering the network (leaving the source queue) to delivery.
  double net_latency_mean = 0, net_latency_p50 = 0, net_latency_p99 = 0, net_latency_max = 0;
  /// The measured deliveries' latency histograms, total and network: log-linear buckets (8 per
  /// power of two; bucket b holds [latency_bucket_low(b), latency_bucket_low(b + 1)), in
  /// latency_unit). Empty when the engine did not fill them (rica::report::latency_distribution).
  std::vector<std::uint64_t> latency_histogram, net_latency_histogram;
  /// The same per buffer class a packet was delivered from ([class] = {total, network}; empty
  /// with one class) and per job of an OS run ([job]; empty with one job).
  std::vector<std::array<std::vector<std::uint64_t>, 2>> class_latency_histograms, job_latency_histograms;
  double wall_s = 0;
  double packets_per_s = 0, packet_hops_per_s = 0;
  std::uint64_t link_load_max = 0;
  double link_load_mean = 0;
  bool conservation_ok = false;  ///< injected == delivered + in_network + dropped_by_faults, no duplicate, none lost
  /// Faults (rica/faults.hpp): packets dropped because they were in a failed node or on a failed
  /// link when it failed, or were addressed to a failed PE.
  std::uint64_t dropped_by_faults = 0;
  std::uint64_t fault_cycle = 0;  ///< the cycle dynamic faults happened at (0: none, or static)
  std::string verify_method;     ///< "bitmap" (exact per packet) or "checksum"
  bool deadlock = false;
  std::string deadlock_report;   ///< full buffers and the waiting cycle, when deadlock
  bool app_ok = true;
  std::string app_message;
  std::uint64_t peak_rss_kb = 0;
  // Per PE / per link tables (for CSV).
  std::vector<std::uint64_t> pe_injected, pe_delivered, pe_forwarded, pe_blocked;
  std::vector<std::uint64_t> link_packets;  ///< [node * ports + out_port]
  // Cycle engine: virtual time.
  std::uint64_t cycles_run = 0;            ///< cycles simulated (injection window + drain)
  /// Of cycles_run, those jumped over in one step: the network empty, only sleeping generators
  /// left (their effect is that of stepping them: nothing moves).
  std::uint64_t cycles_skipped = 0;
  std::uint64_t measured = 0;              ///< packets generated after the warm-up (statistics)
  double throughput = 0;                   ///< packets delivered per PE per cycle in the window
  std::string latency_unit = "ns";
  // Under mpirun (docs/distributed.md); ranks == 1 otherwise and the rest stays 0.
  unsigned ranks = 1;                      ///< processes the machine was spread over
  std::uint64_t links = 0, cut_links = 0;  ///< links between distinct nodes; those between ranks
  std::uint64_t cross_rank_hops = 0;       ///< packet-hops over a cut link
  std::uint64_t rank_batches = 0;          ///< async engine: messages of packets and credits between ranks
  std::string rank_split;                  ///< "blocks" or "partition:<rule>"
  std::vector<std::uint64_t> rank_peak_rss_kb;  ///< each rank's peak RSS (kB) at the end of the run
  /// Each rank's share of its run time spent in the cycle loop's MPI exchange (blocked on the
  /// other ranks or moving the batches) rather than stepping its nodes.
  std::vector<double> rank_mpi_wait_share;
};

/// The lower bound of latency histogram bucket b (RunStats::latency_histogram): b below 8 is the
/// value b itself; from 24 on, 8 sub-buckets per power of two (within 1/8 of the value); 8..23
/// are empty.
constexpr std::uint64_t latency_bucket_low(unsigned b) noexcept {
  if (b < 24) return b < 8 ? b : 8;  // buckets 8..23 are never used (values 8.. start at 24)
  const unsigned msb = b / 8, sub = b % 8;
  return msb >= 64 ? ~std::uint64_t{0} : (std::uint64_t{8} + sub) << (msb - 3);
}

/// Throws usage_error naming the parameter when a configuration value is out of range.
void validate(const EngineConfig& cfg);

/// Runs `app` on `topology` with the driver cfg.engine names (run_async or run_cycles), watched by
/// `observers` (rica/observer.hpp: per window of cycles on the cycle engine; not owned).
RunStats run(const Topology& topology, App& app, const EngineConfig& cfg, Observers observers = {});

/// Runs `app` on `topology` until the application is done and the network is empty, or until a
/// deadlock is detected (stats.deadlock). Throws usage_error on an invalid configuration.
RunStats run_async(const Topology& topology, App& app, const EngineConfig& cfg);

/// The cycle engine: the same machine driven by a synchronous virtual clock. In each cycle every
/// node moves what it may, from the state at the start of the cycle (credits return one cycle
/// later), so every packet's route and latency depend only on the configuration and the seed —
/// identical for any number of threads. Latency in cycles. Injection runs for cfg.cycles cycles,
/// then the network drains.
RunStats run_cycles(const Topology& topology, App& app, const EngineConfig& cfg);

}  // namespace rica
