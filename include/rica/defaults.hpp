#pragma once
// Every default of rica, defined once (after CAF's caf/defaults.hpp). The CLI help, the docs
// and every run's recorded configuration read these constants.

#include <cstdint>

namespace rica::defaults {

// ---- Topology analysis (rica topo) ----------------------------------------------------------
namespace metrics {
/// Sources x arcs above which all-pairs analysis (no known symmetry) falls back to sampling.
inline constexpr std::uint64_t exact_work_limit = 4'000'000'000ULL;
/// Sampled sources when sampling.
inline constexpr unsigned sample_sources = 256;
/// Seed of the sample (deterministic by default).
inline constexpr std::uint64_t seed = 1;
/// Nodes x min-degree x arcs above which the max-flow edge connectivity is not attempted.
inline constexpr std::uint64_t flow_work_limit = 2'000'000'000ULL;
}  // namespace metrics

// ---- The default network of `rica topo` / README command (1) --------------------------------
inline constexpr const char* topology = "cccb:n=4";

}  // namespace rica::defaults
