#pragma once
// Memory estimates from a topology's size alone (issue 28): what a run will allocate, known before
// anything is built, for require_memory (rica/core.hpp). Machine::check_memory refuses by the same
// formula once the machine's exact shape is known.

#include <cstdint>
#include <string>

#include "rica/engine.hpp"
#include "rica/registry.hpp"

namespace rica {

/// Bytes a machine holding `held` nodes of `ports` ports and `buffers` input buffers per node
/// (ports x classes) takes under `cfg` with `jobs` applications: link buffers and the packet slots
/// of four packets in flight per node, per-node state, per-port tables, each job's per-PE
/// allowance. Without the exactly-once bitmap and the distributed tables (the caller adds them).
double machine_bytes(double held, port_t ports, std::uint32_t buffers, double jobs, const EngineConfig& cfg);

/// A run of one application on all of a topology of size `s` under `cfg`: machine_bytes with
/// s.classes buffer classes (1 with cfg.classes off), plus the exactly-once bitmap of
/// `sends_per_pe` packets per PE. A lower bound of the machine's own check (classes are).
double run_bytes(const TopologySize& s, const EngineConfig& cfg, double sends_per_pe);

// ---- The memory guard of every command and request, from the spec, before it builds or allocates ----
/// A command's working memory per node and per link (node x port) of its topology: measured peak
/// resident sizes over mesh, torus, hypercube, Omega and fat-tree networks.
struct Footprint {
  double per_node = 0, per_link = 0;
};
inline constexpr Footprint topo_footprint{40, 18};       ///< rica topo: graph, BFS and relay tables
inline constexpr Footprint bound_footprint{150, 8};      ///< rica bound, experiment's bound: channel loads
inline constexpr Footprint partition_footprint{50, 20};  ///< rica partition, os --parts: parts and pair checks
inline constexpr Footprint embed_footprint{30, 5};       ///< rica embed: placement, routes, congestion
/// Refuses (usage_error "memory: rica <command> <spec> needs about X GB ... but Y GB are available",
/// exit 2) when `f` applied to the size of `spec` (TopologyRegistry::size: nothing built) exceeds
/// what this process may use (require_memory, rica/core.hpp). Returns the size.
TopologySize check_memory_for(const std::string& command, const std::string& spec, const Footprint& f);
/// The same for commands that run machines (run, app, os, sweep): `machines` at once, each
/// run_bytes of one application on `spec` sending `sends_per_pe` packets per PE (0 when unknown:
/// a lower bound, the machine checks the rest when built).
void check_run_memory(const std::string& command, const std::string& spec, const EngineConfig& cfg,
                      double sends_per_pe, unsigned machines = 1);

}  // namespace rica
