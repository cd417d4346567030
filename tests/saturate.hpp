#pragma once
// Tests of exactly-once delivery at saturation: every PE offers uniform traffic at rate 1 until
// its 60 packets are sent, through one-packet buffers, so the network stays full.

#include "rica/engine.hpp"
#include "rica/topology.hpp"
#include "traffic.hpp"

namespace rica::test {

/// One saturated uniform run of `t` on `engine` with routing `r` and `threads` workers.
inline RunStats saturate(const Topology& t, EngineKind engine, unsigned threads,
                         Routing r = Routing::deterministic) {
  TrafficOptions opt;
  opt.rate = 1.0;
  opt.packets = 60;
  auto app = TrafficRegistry::make("uniform", t, opt);
  EngineConfig cfg;
  cfg.engine = engine;
  cfg.routing = r;
  cfg.threads = threads;
  cfg.cycles = 100000;  // the injection window outlasts the 60 packets per PE
  cfg.buffer_words = 4;  // one packet per buffer
  cfg.packet_words = 3;
  cfg.packet_spread = 1;
  return run(t, *app, cfg);
}

}  // namespace rica::test
