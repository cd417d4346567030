#pragma once
// The memory guard of every command: refuse a network too large for this host before building it.

#include <string>

#include "rica/engine.hpp"
#include "rica/registry.hpp"

namespace rica::cli {

// ---- Memory guard: every command, from the spec, before it builds or allocates (issue 28) ------
/// A command's working memory per node and per link (node x port) of its topology: measured peak
/// resident sizes over mesh, torus, hypercube, Omega and fat-tree networks (memory_guard.cpp).
struct Footprint {
  double per_node = 0, per_link = 0;
};
inline constexpr Footprint topo_footprint{40, 18};       ///< rica topo: graph, BFS and relay tables
inline constexpr Footprint bound_footprint{150, 8};      ///< rica bound, experiment's bound: channel loads
inline constexpr Footprint partition_footprint{50, 20};  ///< rica partition, os --parts: parts and pair checks
inline constexpr Footprint embed_footprint{30, 5};       ///< rica embed: placement, routes, congestion
/// Refuses (usage_error "memory: <command> <spec> needs about X GB ... but Y GB are available",
/// exit 2) when `f` applied to the size of `spec` (TopologyRegistry::size: nothing built) exceeds
/// what this process may use (require_memory). Returns the size.
TopologySize check_memory_for(const std::string& command, const std::string& spec, const Footprint& f);
/// The same for commands that run machines (run, app, os, sweep): `machines` at once, each
/// run_bytes (rica/footprint.hpp) of one application on `spec` sending `sends_per_pe` packets per
/// PE (0 when unknown: a lower bound, the machine checks the rest when built).
void check_run_memory(const std::string& command, const std::string& spec, const EngineConfig& cfg,
                      double sends_per_pe, unsigned machines = 1);

}  // namespace rica::cli
