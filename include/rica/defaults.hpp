#pragma once
// Every default of rica, defined once (after CAF's caf/defaults.hpp). The CLI help, the docs
// and every run's recorded configuration read these constants.

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

// ---- The default network of `rica topo` / README command (1) --------------------------------
inline constexpr const char* topology = "cccb:n=4";

}  // namespace rica::defaults
