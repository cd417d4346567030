#pragma once
// Every default of rica, defined once (after CAF's caf/defaults.hpp). The CLI help, the docs
// and every run's recorded configuration read these constants.

#include <cstddef>
#include <cstdint>

namespace rica::defaults {

// ---- Topology analysis (rica topo) ----------------------------------------------------------
namespace metrics {
/// Estimated work (sources x (BFS + routes)) above which exact analysis falls back to sampling.
inline constexpr std::uint64_t exact_work_limit = 1'000'000'000ULL;
/// Sampled sources when sampling.
inline constexpr unsigned sample_sources = 256;
/// Route steps a sampled analysis may spend (sources are cut down to fit, never below 4).
inline constexpr std::uint64_t sample_route_steps = 500'000'000ULL;
/// Seed of the sample (deterministic by default).
inline constexpr std::uint64_t seed = 1;
/// Nodes x min-degree x arcs above which the max-flow edge connectivity is not attempted.
inline constexpr std::uint64_t flow_work_limit = 2'000'000'000ULL;
}  // namespace metrics

// ---- The emulated machine (rica run) ----------------------------------------------------------
namespace engine {
inline constexpr unsigned threads = 0;          ///< 0 = every core of the host
inline constexpr std::uint64_t seed = 1;
inline constexpr unsigned buffer_words = 32;    ///< per input port and class (MDCE paper; RWC-1: 16)
inline constexpr unsigned packet_words = 3;     ///< 3 +- 1 words, as in the papers
inline constexpr unsigned packet_spread = 1;
inline constexpr unsigned batch = 16;           ///< packet moves per PE activation
inline constexpr unsigned block = 64;           ///< PEs per scheduling block (the unit a worker runs and steals)
inline constexpr std::uint64_t cycles = 10000;  ///< cycle engine: injection window (MDCE paper: 10,000 clocks)
inline constexpr unsigned router_cycles = 0;     ///< cycle engine: router pipeline per hop (0: none, today's model)
}  // namespace engine

namespace traffic {
inline constexpr const char* pattern = "uniform";
inline constexpr double rate = 1.0;             ///< packets per PE per injection opportunity
inline constexpr std::uint64_t packets = 200;   ///< packets per PE
inline constexpr double hotspot_fraction = 0.05;
/// --source-queue: an open-loop source generates nothing while this many of its packets wait to
/// enter the network (0 = unbounded, cycle engine only). Offered load above saturation is then
/// throttled to what the network accepts; sweeps report offered and generated load beside it.
inline constexpr unsigned backlog = 8;
inline constexpr unsigned source_queue_max = 1u << 20;  ///< --source-queue in [0, 2^20]
/// The async engine's smallest --rate (a probability per PE activation): at most 10,000 activations
/// per packet, so a run always progresses (issue 11, item 8).
inline constexpr double async_min_rate = 1e-4;
}  // namespace traffic

// ---- Telemetry over time (rica/telemetry.hpp; rica run --telemetry W) -------------------------
namespace telemetry {
/// Cycles per window: with the default 10,000-cycle injection window, 10 windows of injection plus
/// the drain; one pass over the machine per 1,000 cycles (docs/runtime.md: its cost measured).
inline constexpr std::uint64_t window = 1000;
/// On the async engine a window is W microseconds, at least this many: each window stops the world
/// once (docs/runtime.md "Async windows"), so a shorter one would spend the run pausing.
inline constexpr std::uint64_t async_min_window_us = 100;
/// The async engine's default window (Python's telemetry=True, the documented choice): 5 ms. A stop
/// costs its parking (each worker finishes its block) and the read (~55 - 100 ns per node), taken
/// by a worker, not the main thread, so no thread is woken by the OS for it; the run at 5 ms windows
/// against none, measured: docs/runtime.md "Async windows: who stops the world".
inline constexpr std::uint64_t async_window_us = 5000;
/// The default async window for a machine of `nodes` nodes (Python's telemetry=True): 5 ms per
/// 1,024 nodes, at least 5 ms. A stop's read grows with the nodes (~75 ns each, one worker reading
/// while the others wait), so the window grows with them and the share of the run stopped stays
/// about 1 % (docs/runtime.md: torus:128x128 at 5 ms windows stood still 20 % of its run).
constexpr std::uint64_t async_window_for(std::uint64_t nodes) noexcept {
  return async_window_us * (nodes / 1024 > 1 ? nodes / 1024 : 1);
}
/// The per-link table stops growing past this many rows (about 200 MB held; later windows left out).
inline constexpr std::uint64_t max_link_rows = 10'000'000;
}  // namespace telemetry

// ---- Trace-viewer export (rica/trace_events.hpp; rica run/demo/os --trace-events FILE) ------------
namespace trace_events {
/// Packets followed hop by hop: about 270 bytes of JSON per hop (docs/runtime.md), so with ten hops
/// a packet about 2.7 MB per 1,000 packets.
inline constexpr std::uint64_t packets = 1000;
/// The most --trace-events-packets accepts (about 2.7 GB of JSON at ten hops a packet).
inline constexpr std::uint64_t max_packets = 1'000'000;
}  // namespace trace_events

// ---- Sweeps (rica sweep) --------------------------------------------------------------------
namespace sweep {
/// Without --warmup a sweep leaves the first cycles / 10 of its window out of the statistics (the
/// network fills first; with the default 10,000-cycle window, 1,000 cycles).
inline constexpr std::uint64_t warmup_divisor = 10;
/// The offered loads without --rates (FROM:TO:STEP).
inline constexpr const char* rates = "0.01:0.1:0.01";
}  // namespace sweep

// ---- Application kernels (rica app sort|stencil, apps/sort, apps/stencil; docs/apps.md) -------
namespace apps {
inline constexpr const char* map = "identity";          ///< rank -> PE mapping
inline constexpr const char* sort_algorithm = "bitonic";
inline constexpr std::uint64_t sort_keys = 16384;       ///< keys in all (spread over the PEs)
inline constexpr unsigned keys_per_packet = 2;          ///< 1..3 (32-bit keys beside a 32-bit header)
inline constexpr unsigned sort_samples = 16;            ///< sample sort: samples per PE
inline constexpr const char* stencil_grid = "256x256";  ///< cells
inline constexpr unsigned stencil_points = 5;
inline constexpr unsigned stencil_iterations = 10;
inline constexpr unsigned values_per_packet = 2;        ///< halo doubles per packet, 1..2
inline constexpr double stencil_coefficient = 0.2;      ///< u += c * Laplacian(u) per iteration
/// Kernel state (keys, tiles, the serial reference) above this many bytes is refused (exit 2).
inline constexpr std::uint64_t memory_limit = std::uint64_t{4} << 30;
}  // namespace apps

// ---- Bounds of every option (the option table, apps/cli/engine_options.cpp, options.hpp and
// validate() check against these; exit 2 outside) ----
namespace limits {
inline constexpr unsigned threads = 1024;                     ///< --threads in [0, 1024]
inline constexpr unsigned buffer_words = 1u << 16;            ///< --buffer-words in [1, 65536]
inline constexpr unsigned packet_words = 255;                 ///< --packet-words mean in [1, 255]
inline constexpr unsigned link_cycles = 1u << 16;             ///< --link-cycles N in [1, 65536]
inline constexpr unsigned router_cycles = 1u << 16;           ///< --router-cycles R in [0, 65536]
inline constexpr unsigned batch = 1u << 20;                   ///< --batch in [1, 2^20]
inline constexpr unsigned block = 64;                         ///< --block: power of two in [1, 64]
inline constexpr std::uint64_t cycles = std::uint64_t{1} << 31;  ///< --cycles in [1, 2^31]
inline constexpr std::uint64_t packets = 1'000'000'000;       ///< --packets per PE in [1, 10^9]
inline constexpr std::uint64_t slice = std::uint64_t{1} << 30;   ///< rica os --slice in [1, 2^30]
inline constexpr unsigned jobs = 1024;                        ///< runs at once (--jobs) in [0, 1024]
inline constexpr std::size_t rates = 1000;                    ///< points of a --rates grid (more: refused)
inline constexpr std::uint64_t keys = (std::uint64_t{1} << 32) - 1;  ///< --keys in [1, 2^32 - 1]
inline constexpr std::uint64_t fault_items = 1'000'000;      ///< --faults links=K / nodes=K in [0, 10^6]
inline constexpr unsigned parts = 1u << 26;                   ///< --parts (rica partition, rica os) in [1, 2^26]
}  // namespace limits

// ---- Files read from the user (rica/io.hpp): larger ones are refused, never read to the end ---
namespace input {
inline constexpr std::uint64_t topology_file_bytes = std::uint64_t{256} << 20;  ///< file:<path>
inline constexpr std::uint64_t topology_line_bytes = 4096;
inline constexpr std::uint64_t keys_file_bytes = std::uint64_t{1} << 30;        ///< --keys-file, sort:file=
inline constexpr std::uint64_t keys_line_bytes = std::uint64_t{64} << 20;
}  // namespace input

// ---- The default network of `rica topo` / README command (1) --------------------------------
inline constexpr const char* topology = "cccb:n=4";  ///< CCCB 4x16x16, 1,024 PEs

}  // namespace rica::defaults
