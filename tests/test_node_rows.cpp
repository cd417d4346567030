// Memory per port in use (issue 43): the machine's per-port tables give an indirect network's PEs
// rows for the ports their links use only (runtime/machine/node_rows.hpp), and everything that
// reads the tables (upstream, credits, buffers, the engines, the results) sees the same machine as
// with every node the routers' width: same links, exactly once, 1 and 2 threads identical.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../runtime/machine/machine.hpp"
#include "../runtime/machine/node_rows.hpp"
#include "rica/engine.hpp"
#include "rica/registry.hpp"
#include "traffic.hpp"

namespace {

using rica::node_t;
using rica::port_t;
using rica::detail::NodeRows;

TEST(NodeRows, TwoWidthsAreContiguousAndInvertible) {
  for (const NodeRows r : {NodeRows::two(10, 6, 2, 5), NodeRows::uniform(7, 4), NodeRows::two(5, 0, 1, 3),
                           NodeRows::two(5, 5, 1, 3)}) {
    std::size_t next = 0;
    for (node_t v = 0; v < r.nodes; ++v) {
      EXPECT_EQ(r.row(v), next) << v;
      EXPECT_EQ(r.width(v), v < r.split ? r.narrow : r.wide);
      for (port_t q = 0; q < r.width(v); ++q) EXPECT_EQ(r.node_of(r.row(v) + q), v);
      next += r.width(v);
    }
    EXPECT_EQ(r.total, next);
  }
  EXPECT_TRUE(NodeRows::uniform(7, 4).is_uniform());
  EXPECT_EQ(NodeRows::two(10, 6, 2, 5).total, 6u * 2 + 4u * 5);
}

struct Built {
  rica::Topology topo;
  std::unique_ptr<rica::App> app;
  rica::EngineConfig cfg;
  std::unique_ptr<rica::detail::Machine> m;
  explicit Built(const char* spec) : topo(rica::TopologyRegistry::parse(spec)) {
    rica::TrafficOptions opt;
    opt.rate = 0.1;
    opt.packets = 4;
    app = rica::TrafficRegistry::make("uniform", rica::traffic::PeSpace::of_shape({topo.pes()}), opt);
    cfg.engine = rica::EngineKind::cycle;
    std::vector<rica::detail::JobRt> jobs(1);
    jobs[0].app = app.get();
    jobs[0].size = topo.pes();
    m = std::make_unique<rica::detail::Machine>(topo, std::move(jobs), cfg);
  }
};

TEST(NodeRows, EveryLinkFindsItsProducerAndBuffer) {
  // Direct networks keep one width; indirect ones give their PEs the ports their links use.
  for (const char* spec : {"torus:4x4", "hypercube:n=4", "dragonfly:h=2", "slimfly:q=5", "fattree:n=3",
                           "omega:n=3", "hyperx:4x4,T=4", "cccb:n=2"}) {
    SCOPED_TRACE(spec);
    const Built b(spec);
    const rica::detail::Machine& m = *b.m;
    const NodeRows& r = m.rows();
    const node_t pes = b.topo.pes(), nodes = b.topo.nodes();
    if (pes == nodes) {
      EXPECT_TRUE(r.is_uniform());
      EXPECT_EQ(r.total, std::size_t{nodes} * b.topo.ports());
    } else {
      EXPECT_EQ(r.split, pes);
      EXPECT_EQ(r.wide, b.topo.ports());
    }
    if (std::string(spec).starts_with("dragonfly") || std::string(spec).starts_with("slimfly")) {
      EXPECT_EQ(r.narrow, 1u);  // a terminal's one link
      EXPECT_EQ(r.total, std::size_t{pes} + std::size_t{nodes - pes} * b.topo.ports());
    }
    b.topo.visit([&](const auto& t) {
      for (node_t v = 0; v < nodes; ++v)
        for (port_t p = 0; p < t.ports(); ++p) {
          const rica::Link l = t.out_link(v, p);
          if (!l.present()) continue;
          ASSERT_LT(p, r.width(v)) << "node " << v;
          ASSERT_LT(l.in_port, r.width(l.peer)) << "node " << l.peer;
          EXPECT_EQ(m.upstream(l.peer, l.in_port), v);
          EXPECT_EQ(m.upstream_port(l.peer, l.in_port), p);
        }
      for (node_t v = 0; v < nodes; ++v)  // ports beyond a node's rows: no link, no producer
        for (port_t q = r.width(v); q < b.topo.ports(); ++q) EXPECT_EQ(m.upstream(v, q), rica::no_node);
    });
  }
}

rica::RunStats run_uniform(const char* spec, unsigned threads, rica::EngineKind e) {
  const rica::Topology topo = rica::TopologyRegistry::parse(spec);
  rica::TrafficOptions opt;
  opt.rate = 0.3;
  opt.packets = 30;
  auto app = rica::TrafficRegistry::make("uniform", rica::traffic::PeSpace::of_shape({topo.pes()}), opt);
  rica::EngineConfig cfg;
  cfg.engine = e;
  cfg.threads = threads;
  cfg.link_cycles = 1;
  return rica::run(topo, *app, cfg);
}

TEST(NodeRows, IndirectNetworksRunExactlyOnceAndAlikeOnAnyThreadCount) {
  for (const char* spec : {"dragonfly:h=2", "slimfly:q=5", "fattree:n=3"}) {
    SCOPED_TRACE(spec);
    const rica::RunStats a = run_uniform(spec, 1, rica::EngineKind::cycle);
    const rica::RunStats c = run_uniform(spec, 2, rica::EngineKind::cycle);
    for (const rica::RunStats* st : {&a, &c}) {
      EXPECT_TRUE(st->conservation_ok);
      EXPECT_EQ(st->verify_method, "bitmap");
      EXPECT_EQ(st->delivered, st->injected);
      EXPECT_EQ(st->duplicates, 0u);
      EXPECT_FALSE(st->deadlock) << st->deadlock_report;
    }
    EXPECT_EQ(a.hops, c.hops);
    EXPECT_EQ(a.cycles_run, c.cycles_run);
    EXPECT_EQ(a.latency_mean, c.latency_mean);
    EXPECT_EQ(a.link_packets, c.link_packets);
    const rica::RunStats s = run_uniform(spec, 2, rica::EngineKind::async);
    EXPECT_TRUE(s.conservation_ok);
    EXPECT_EQ(s.delivered, s.injected);
    EXPECT_EQ(s.duplicates, 0u);
  }
}

}  // namespace
