// The dragonfly's non-minimal routings (rica/routing/dragonfly.hpp: `--routing valiant`,
// `ugal-l`, `ugal-g`, `par`) and the cycle engine's router pipeline (`--router-cycles`):
// - offered on the dragonfly only, 3 classes (PAR 4); the certificate (channel dependencies for
//   Valiant, Duato's condition for the others) passes with them and refuses a short count with
//   the cycle;
// - UGAL-G adds the board's queue of each path's global channel; PAR decides again at the next
//   router of the source group;
// - every Valiant route passes through its intermediate group, at most local, global, local,
//   global, local; UGAL-L is minimal at zero load and takes the Valiant hop when the minimal
//   port's queue is long enough;
// - exactly once at saturation on both engines, identical cycle-engine traces for 1 and 2
//   threads, and Valiant / UGAL-L beating minimal routing on an adversarial pattern;
// - --router-cycles R: zero-load latency (H - 1)(h + R) + max(L, h + R) for R in {0, 1, 3}.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "rica/engine.hpp"
#include "rica/registry.hpp"
#include "rica/routing.hpp"
#include "support.hpp"
#include "traffic.hpp"

namespace rica {
namespace {

const DragonflyTopology& df(const Topology& t) { return std::get<DragonflyTopology>(t.variant()); }

TEST(NonMinimal, OfferedOnTheDragonflyWithThreeClasses) {
  const Topology t = TopologyRegistry::parse("dragonfly:h=2");
  EXPECT_TRUE(offers(t, Routing::valiant));
  EXPECT_TRUE(offers(t, Routing::ugal_l));
  EXPECT_FALSE(offers(t, Routing::adaptive));
  EXPECT_EQ(routing_names(t), (std::vector<std::string>{"deterministic", "valiant", "ugal-l", "ugal-g", "par"}));
  EXPECT_EQ(routing_classes(t, Routing::valiant), 3);
  EXPECT_EQ(routing_classes(t, Routing::ugal_l), 3);
  EXPECT_EQ(routing_classes(t, Routing::ugal_g), 3);
  EXPECT_EQ(routing_classes(t, Routing::par), 4);
  EXPECT_EQ(routing_by_name("ugal-g"), Routing::ugal_g);
  EXPECT_EQ(routing_by_name("par"), Routing::par);
  EXPECT_EQ(routing_by_name("valiant"), Routing::valiant);
  EXPECT_EQ(routing_by_name("ugal-l"), Routing::ugal_l);
  EXPECT_STREQ(to_string(Routing::ugal_l), "ugal-l");
  for (const char* spec : {"torus:4x4", "hyperx:4x4,T=2", "slimfly:q=5"}) {
    const Topology o = TopologyRegistry::parse(spec);
    EXPECT_FALSE(offers(o, Routing::valiant)) << spec;
    EXPECT_THROW(check_routing(o, Routing::ugal_l), usage_error) << spec;
    EXPECT_THROW(check_routing(o, Routing::ugal_g), usage_error) << spec;
    EXPECT_THROW(check_routing(o, Routing::par), usage_error) << spec;
  }
  EXPECT_NO_THROW(check_routing(t, Routing::valiant));
}

TEST(NonMinimal, CertifiedWithTheDerivedClasses) {
  for (const char* spec : {"dragonfly:h=1", "dragonfly:h=2", "dragonfly:h=2,arrangement=relative", "dragonfly:h=3,p=1",
                           "dragonfly:h=2,p=1,a=3", "dragonfly:h=3,a=1"})
    for (Routing r : packet_routings) {
      const Topology t = TopologyRegistry::parse(spec);
      EXPECT_NO_THROW(certify_dragonfly(df(t), r, spec)) << spec << " " << to_string(r);
    }
}

// The certificate is not vacuous: each routing one class short (PAR with 3, the others with 2;
// a spec's classes=K stops at 2) deadlocks, and the message names the cycle.
TEST(NonMinimal, OneClassShortIsACycle) {
  for (const char* spec : {"dragonfly:h=2", "dragonfly:h=1", "dragonfly:h=2,arrangement=relative"})
    for (Routing r : packet_routings) {
      const Topology t = TopologyRegistry::parse(spec);
      const unsigned k = r == Routing::par ? 3 : 2;
      try {
        certify_dragonfly(df(t), r, spec, k);
        ADD_FAILURE() << spec << " " << to_string(r) << " certified with " << k << " classes";
      } catch (const usage_error& e) {
        EXPECT_NE(std::string(e.what()).find("the routing can deadlock: a cycle of"), std::string::npos) << e.what();
      }
    }
}

TEST(NonMinimal, AShortClassCountIsRefusedWithTheCycle) {
  // (classes=1 on a dragonfly with local links is refused already by the minimal routing's check.)
  for (const char* spec : {"dragonfly:h=2,classes=2", "dragonfly:h=1,classes=2",
                           "dragonfly:h=2,arrangement=relative,classes=2", "dragonfly:h=3,a=1,classes=1"})
    for (Routing r : packet_routings) {
      const Topology t = TopologyRegistry::parse(spec);
      try {
        check_routing(t, r);
        ADD_FAILURE() << spec << " " << to_string(r) << " was accepted";
      } catch (const usage_error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("the routing can deadlock: a cycle of"), std::string::npos) << m;
        EXPECT_NE(m.find("classes="), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
      }
    }
}

/// Walks packet (s, seq) from s to d under routing r, following the kernel's rule at zero load
/// (UGAL-L: the minimal hop, the escape); returns the nodes visited.
std::vector<node_t> walk(const Topology& t, Routing r, node_t s, node_t d, std::uint32_t seq) {
  Packet p;
  p.src = s, p.dst = d, p.seq = seq;
  std::vector<node_t> path{s};
  node_t cur = s;
  class_t cls = 0;
  for (unsigned n = 0;; ++n) {
    const CandidateSet cs = route_candidates(t, r, cur, d, cls, &p, 7);
    if (cs.escape.delivers()) break;
    const Link l = t.out_link(cur, cs.escape.port());
    EXPECT_TRUE(l.present());
    cur = l.peer;
    cls = cs.escape.next_class();
    path.push_back(cur);
    if (n > 20) {
      ADD_FAILURE() << "no arrival " << s << "->" << d;
      break;
    }
  }
  EXPECT_EQ(cur, d);
  return path;
}

TEST(NonMinimal, ValiantPassesThroughItsIntermediateGroup) {
  for (const char* spec : {"dragonfly:h=2", "dragonfly:h=2,arrangement=relative", "dragonfly:h=3,p=1"}) {
    const Topology t = TopologyRegistry::parse(spec);
    const auto& d = df(t);
    const DragonflyValiant v(d, 7);
    const node_t P = t.pes();
    auto group = [&](node_t n) { return n < P ? d.router_of(n) / d.a() : (n - P) / d.a(); };
    std::size_t nonminimal = 0;
    for (node_t s = 0; s < P; s += 3)
      for (node_t x = 0; x < P; ++x) {
        if (s == x) continue;
        for (std::uint32_t seq = 0; seq < 4; ++seq) {
          Packet p;
          p.src = s, p.seq = seq;
          const unsigned I = v.intermediate(p);
          const auto path = walk(t, Routing::valiant, s, x, seq);
          bool seen = false;
          unsigned globals = 0;
          for (std::size_t k = 0; k < path.size(); ++k) {
            seen = seen || group(path[k]) == I;
            if (k && path[k] >= P && path[k - 1] >= P && group(path[k]) != group(path[k - 1])) ++globals;
          }
          EXPECT_TRUE(seen || group(s) == group(x)) << spec << " " << s << "->" << x << " via " << I;
          EXPECT_LE(path.size(), 8u) << spec;  // terminal, <= 6 routers (5 router hops), terminal
          const bool minimal = I == group(s) || I == group(x) || group(s) == group(x);
          EXPECT_EQ(globals, minimal ? (group(s) != group(x) ? 1u : 0u) : 2u) << spec << " " << s << "->" << x;
          nonminimal += !minimal;
        }
      }
    EXPECT_GT(nonminimal, 0u);
  }
}

TEST(NonMinimal, UgalIsMinimalAtZeroLoadAndValiantWhenTheMinimalQueueIsLong) {
  const Topology t = TopologyRegistry::parse("dragonfly:h=2");
  const auto& d = df(t);
  const DragonflyUgalL u(d, 3);
  const DragonflyValiant v(d, 3);
  const node_t P = t.pes();
  std::size_t choices = 0;
  for (node_t s = 0; s < P; ++s)
    for (node_t x = 0; x < P; ++x) {
      Packet p;
      p.src = s, p.dst = x, p.seq = 5;
      const node_t r = P + d.router_of(s);
      const unsigned I = u.intermediate(p);
      const Hop minimal = u.hop(r, x, 1, I), valiant = v.hop(r, x, 0, I);
      const Hop zero = u.route(r, p, 0, [](port_t) { return 0u; });
      unsigned hm = 0, hv = 0;
      if (!u.choice(r, x, I, hm, hv)) continue;
      ++choices;
      EXPECT_EQ(zero.port(), minimal.port());
      EXPECT_EQ(zero.next_class(), minimal.next_class());
      if (minimal.port() == valiant.port()) continue;
      const Hop busy = u.route(r, p, 0, [&](port_t q) { return q == minimal.port() ? 60u : 4u; });
      EXPECT_EQ(busy.port(), valiant.port()) << s << "->" << x;  // 60 * hm > 4 * hv
      EXPECT_EQ(busy.next_class(), valiant.next_class());
    }
  EXPECT_GT(choices, 100u);
}

// UGAL-G: with empty local queues, the board's queue at the minimal path's global channel sends
// the packet the Valiant way, and the same queue on the Valiant path's global channel keeps it
// minimal; the board is read at the router that owns the channel, at its global port.
TEST(NonMinimal, UgalGReadsTheGlobalChannelsOfTheSourceGroup) {
  const Topology t = TopologyRegistry::parse("dragonfly:h=2");
  const auto& d = df(t);
  const DragonflyUgalG u(d, 3);
  const node_t P = t.pes();
  std::size_t seen = 0;
  for (node_t s = 0; s < P; ++s)
    for (node_t x = 0; x < P; ++x) {
      Packet p;
      p.src = s, p.dst = x, p.seq = 5;
      const node_t r = P + d.router_of(s);
      const unsigned I = u.intermediate(p);
      unsigned hm = 0, hv = 0;
      if (!u.choice(r, x, I, hm, hv)) continue;
      const Hop minimal = u.hop(r, x, 1, I), valiant = u.hop(r, x, 0, I);
      const bool local_m = minimal.port() < d.p() + d.a() - 1, local_v = valiant.port() < d.p() + d.a() - 1;
      if (!local_m || !local_v || minimal.port() == valiant.port()) continue;
      ++seen;
      // The owner of each path's global channel and its global port.
      const node_t om = t.out_link(r, minimal.port()).peer, ov = t.out_link(r, valiant.port()).peer;
      const port_t gm = u.hop(om, x, 1, I).port(), gv = u.hop(ov, x, 0, I).port();
      auto zero = [](port_t) { return 0u; };
      const Hop h1 = u.route(r, p, 0, zero, [&](node_t n, port_t q) { return n == om && q == gm ? 50u : 0u; });
      EXPECT_EQ(h1.port(), valiant.port()) << s << "->" << x;
      const Hop h2 = u.route(r, p, 0, zero, [&](node_t n, port_t q) { return n == ov && q == gv ? 50u : 0u; });
      EXPECT_EQ(h2.port(), minimal.port()) << s << "->" << x;
      // UGAL-L never sees those queues: minimal either way.
      EXPECT_EQ(DragonflyUgalL(d, 3).route(r, p, 0, zero).port(), minimal.port());
    }
  EXPECT_GT(seen, 50u);
}

// PAR: minimal at the source router at zero load (class 0 kept on the local hop), then decided
// again at the owner of the minimal global link, where a long queue on that global port turns it
// to the Valiant path (class 1); UGAL-L would have gone on.
TEST(NonMinimal, ParDecidesAgainAtTheNextRouterOfTheSourceGroup) {
  const Topology t = TopologyRegistry::parse("dragonfly:h=2");
  const auto& d = df(t);
  const DragonflyPar par(d, 3);
  const node_t P = t.pes();
  std::size_t turned = 0;
  for (node_t s = 0; s < P; ++s)
    for (node_t x = 0; x < P; ++x) {
      Packet p;
      p.src = s, p.dst = x, p.seq = 9;
      const node_t r = P + d.router_of(s);
      const unsigned I = par.intermediate(p);
      unsigned hm = 0, hv = 0;
      if (!par.choice(r, x, I, hm, hv)) continue;
      auto zero = [](port_t) { return 0u; };
      const Hop first = par.route(r, p, 0, zero);
      EXPECT_EQ(first.next_class(), first.port() < d.p() + d.a() - 1 ? 0 : 1) << "minimal from the source: class 0";
      if (first.port() >= d.p() + d.a() - 1) continue;  // the source router owns the global link
      const node_t rm = t.out_link(r, first.port()).peer;
      EXPECT_TRUE(par.decides(rm, p, 0));
      if (!par.choice(rm, x, I, hm, hv)) continue;
      const Hop global = par.hop(rm, x, 0, I), divert = par.hop(rm, x, 1, I);
      if (global.port() == divert.port()) continue;
      EXPECT_EQ(par.route(rm, p, 0, zero).port(), global.port());
      const Hop busy = par.route(rm, p, 0, [&](port_t q) { return q == global.port() ? 60u : 1u; });
      EXPECT_EQ(busy.port(), divert.port()) << s << "->" << x;
      EXPECT_EQ(busy.next_class(), divert.next_class());
      EXPECT_GE(busy.next_class(), 1);
      // After the turn (class 1 in the source group), no further decision.
      EXPECT_FALSE(par.decides(t.out_link(rm, busy.port()).peer, p, busy.next_class()));
      ++turned;
    }
  EXPECT_GT(turned, 50u);
}

RunStats saturate(const std::string& spec, Routing r, EngineKind engine, unsigned threads, const std::string& traffic,
                  const std::string& trace = "") {
  const Topology t = TopologyRegistry::parse(spec);
  TrafficOptions opt;
  opt.rate = 1.0;
  opt.packets = 60;
  auto app = TrafficRegistry::make(traffic, t, opt);
  EngineConfig cfg;
  cfg.engine = engine;
  cfg.threads = threads;
  cfg.cycles = 100000;
  cfg.buffer_words = 4;  // one packet per buffer
  cfg.packet_words = 3;
  cfg.packet_spread = 1;
  cfg.routing = r;
  cfg.trace = trace;
  return run(t, *app, cfg);
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(NonMinimal, ExactlyOnceAtSaturationOnBothEngines) {
  for (const char* spec : {"dragonfly:h=2", "dragonfly:h=2,arrangement=relative", "dragonfly:h=3,p=1"})
    for (Routing r : packet_routings)
      for (const char* traffic : {"uniform", "tornado"})
        for (EngineKind e : {EngineKind::cycle, EngineKind::async})
          for (unsigned th : {1u, 2u}) {
            const Topology t = TopologyRegistry::parse(spec);
            const RunStats st = saturate(spec, r, e, th, traffic);
            const std::string what = std::string(spec) + " " + to_string(r) + " " + traffic + " " + to_string(e);
            EXPECT_FALSE(st.deadlock) << what << "\n" << st.deadlock_report;
            EXPECT_TRUE(st.conservation_ok) << what;
            EXPECT_EQ(st.duplicates, 0u) << what;
            EXPECT_EQ(st.lost, 0u) << what;
            EXPECT_EQ(st.verify_method, "bitmap") << what;
            EXPECT_EQ(st.injected, std::uint64_t{t.pes()} * 60) << what;
            EXPECT_EQ(st.delivered, st.injected) << what;
          }
}

TEST(NonMinimal, CycleEngineIdenticalForOneAndTwoThreads) {
  const std::string a = ::testing::TempDir() + "rica_nm_a.csv", b = ::testing::TempDir() + "rica_nm_b.csv";
  for (Routing r : packet_routings) {
    saturate("dragonfly:h=2", r, EngineKind::cycle, 1, "uniform", a);
    saturate("dragonfly:h=2", r, EngineKind::cycle, 2, "uniform", b);
    const std::string ta = slurp(a);
    EXPECT_GT(ta.size(), 1000u);
    EXPECT_EQ(ta, slurp(b)) << to_string(r);
  }
}

double accepted(const std::string& spec, Routing r, const std::string& traffic) {
  const Topology t = TopologyRegistry::parse(spec);
  TrafficOptions opt;
  opt.rate = 1.0;
  opt.packets = 100000;
  auto app = TrafficRegistry::make(traffic, t, opt);
  EngineConfig cfg;
  cfg.engine = EngineKind::cycle;
  cfg.threads = 2;
  cfg.cycles = 3000;
  cfg.warmup = 1000;
  cfg.link_cycles = 1;
  cfg.routing = r;
  const RunStats st = run(t, *app, cfg);
  EXPECT_TRUE(st.conservation_ok && !st.deadlock) << spec << " " << to_string(r);
  return st.throughput;
}

// Tornado on the dragonfly's PE numbering sends each group's packets to two other groups: minimal
// routing loads two global links per group, Valiant spreads them over all of them.
TEST(NonMinimal, NonMinimalRoutingsBeatMinimalOnTornado) {
  const std::string spec = "dragonfly:h=2";
  const double m = accepted(spec, Routing::deterministic, "tornado"), v = accepted(spec, Routing::valiant, "tornado"),
               u = accepted(spec, Routing::ugal_l, "tornado"), g = accepted(spec, Routing::ugal_g, "tornado"),
               pa = accepted(spec, Routing::par, "tornado");
  const double mu = accepted(spec, Routing::deterministic, "uniform"), uu = accepted(spec, Routing::ugal_l, "uniform"),
               gu = accepted(spec, Routing::ugal_g, "uniform"), pu = accepted(spec, Routing::par, "uniform");
  std::printf("  dragonfly:h=2 accepted: tornado minimal %.4f valiant %.4f ugal-l %.4f ugal-g %.4f par %.4f; "
              "uniform minimal %.4f ugal-l %.4f ugal-g %.4f par %.4f\n",
              m, v, u, g, pa, mu, uu, gu, pu);
  EXPECT_GT(v, 1.3 * m);
  EXPECT_GT(u, 1.3 * m);
  EXPECT_GT(g, 1.3 * m);
  EXPECT_GT(pa, 1.3 * m);
  EXPECT_GT(uu, 0.8 * mu);
  EXPECT_GT(gu, 0.8 * mu);
  EXPECT_GT(pu, 0.8 * mu);
}

// --router-cycles R: over H hops of equal links of L cycles, with h = ceil(L / w) (vct) or L (saf),
// a packet that never waits is delivered (H - 1)(h + R) + max(L, h + R) cycles after it left.
TEST(RouterCycles, ZeroLoadLatencyFollowsTheFormula) {
  for (unsigned R : {0u, 1u, 3u})
    for (Timing timing : {Timing::vct, Timing::saf}) {
      const Topology t = TopologyRegistry::parse("torus:8x8");
      TrafficOptions opt;
      opt.rate = 0.001;
      opt.packets = 20000;
      auto app = TrafficRegistry::make("uniform", t, opt);
      EngineConfig cfg;
      cfg.engine = EngineKind::cycle;
      cfg.threads = 1;
      cfg.cycles = 20000;
      cfg.trace = ::testing::TempDir() + "rica_router.csv";
      cfg.timing = timing;
      cfg.packet_words = 4;
      cfg.packet_spread = 0;
      cfg.link_cycles = 6;
      cfg.router_cycles = R;
      const RunStats st = run(t, *app, cfg);
      ASSERT_TRUE(st.conservation_ok);
      std::ifstream f(cfg.trace);
      std::string line;
      std::getline(f, line);
      std::size_t rows = 0, exact = 0;
      double sum = 0, model = 0;
      while (std::getline(f, line)) {
        unsigned src, dst, seq, hops;
        unsigned long long inject, deliver;
        ASSERT_EQ(std::sscanf(line.c_str(), "%u,%u,%u,%llu,%llu,%u", &src, &dst, &seq, &inject, &deliver, &hops), 6);
        const std::uint64_t h = timing == Timing::vct ? 2 : 6;
        const std::uint64_t expect = (hops - 1) * (h + R) + std::max<std::uint64_t>(6, h + R);
        ZeroLoadTiming z;
        for (unsigned k = 0; k < hops; ++k) z.hop(6, 4, timing, R);
        ASSERT_EQ(z.tail, expect) << "ZeroLoadTiming states the same formula";
        ASSERT_GE(deliver - inject, expect) << "R " << R;
        exact += deliver - inject == expect;
        sum += static_cast<double>(deliver - inject);
        model += static_cast<double>(expect);
        ++rows;
      }
      ASSERT_GT(rows, 200u);
      EXPECT_GE(exact * 10, rows * 9) << "R " << R << " " << to_string(timing);
      std::printf("  torus:8x8 %s R=%u: mean zero-load latency %.3f, formula %.3f (%zu of %zu exact)\n",
                  to_string(timing), R, sum / static_cast<double>(rows), model / static_cast<double>(rows), exact, rows);
    }
}

TEST(RouterCycles, RefusedWithTheAsyncEngine) {
  EngineConfig cfg;
  cfg.engine = EngineKind::async;
  cfg.router_cycles = 1;
  EXPECT_THROW(validate(cfg), usage_error);
  cfg.engine = EngineKind::cycle;
  EXPECT_NO_THROW(validate(cfg));
  cfg.router_cycles = 65537;
  EXPECT_THROW(validate(cfg), usage_error);
}

}  // namespace
}  // namespace rica
