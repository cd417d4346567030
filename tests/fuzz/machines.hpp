#pragma once
// Small machines the spec fuzz targets build their input on, one per kind the parsers treat
// differently (direct, indirect, the dragonfly-like families, a product, an odd PE count); the
// input's first byte chooses one. Built once per process (the parsers never modify them).
#include <array>
#include <cstdint>
#include <string>

#include "rica/registry.hpp"
#include "rica/topology.hpp"

namespace rica::fuzz {

inline const Topology& machine(std::uint8_t choice) {
  static const std::array<Topology, 7> machines = {
      TopologyRegistry::parse("torus:4x4"),         TopologyRegistry::parse("hypercube:3"),
      TopologyRegistry::parse("fattree:2,3"),       TopologyRegistry::parse("dragonfly:p=2,a=4,h=2"),
      TopologyRegistry::parse("hyperx:3x3,t=2"),    TopologyRegistry::parse("mesh:3x5"),
      TopologyRegistry::parse("slimfly:q=5,p=2")};
  return machines[choice % machines.size()];
}

}  // namespace rica::fuzz
