#pragma once
// Memory estimates from a topology's size alone (issue 28): what a run will allocate, known before
// anything is built, for require_memory (rica/core.hpp). Machine::check_memory refuses by the same
// formula once the machine's exact shape is known.

#include <cstdint>

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

}  // namespace rica
