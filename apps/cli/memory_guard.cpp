// The memory guard of every command (memory_guard.hpp).
#include "memory_guard.hpp"

#include <fmt/format.h>

#include "rica/core.hpp"
#include "rica/footprint.hpp"
#include "rica/io.hpp"
#include "rica/registry.hpp"

namespace rica::cli {

namespace {
void refuse_above_room(const std::string& command, const std::string& spec, const TopologySize& s, double bytes) {
  require_memory(fmt::format("rica {} {} ({:.0f} nodes x {} ports)", command, quote_input(spec, 80), s.nodes, s.ports), bytes,
                 "choose a smaller network");
}
}  // namespace

TopologySize check_memory_for(const std::string& command, const std::string& spec, const Footprint& f) {
  const TopologySize s = TopologyRegistry::size(spec);
  refuse_above_room(command, spec, s, s.nodes * (f.per_node + f.per_link * s.ports));
  return s;
}

void check_run_memory(const std::string& command, const std::string& spec, const EngineConfig& cfg,
                      double sends_per_pe, unsigned machines) {
  const TopologySize s = TopologyRegistry::size(spec);
  refuse_above_room(command, spec, s, machines * run_bytes(s, cfg, sends_per_pe));
}


}  // namespace rica::cli
