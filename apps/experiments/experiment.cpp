// The papers' dynamic experiments: set-ups, traffic matrices, rate grids and saturation figures
// (experiment.hpp).
#include "experiment.hpp"
#include "rica/channel_load.hpp"
#include "saturation.hpp"

#include "rica/assert.hpp"
#include "rica/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace rica::experiments {

// ---- Traffic matrices -----------------------------------------------------------------------------

std::vector<double> localized_offsets(std::uint32_t k) {
  std::vector<double> q(k, 0.0);
  if (k <= 1) {
    q.assign(1, 1.0);
    return q;
  }
  // round(Exp(mean)) = m with probability P(m - 1/2 <= X < m + 1/2) (m = 0: X < 1/2); the offset
  // is m mod k with a random sign (the sign of 0 and of k/2 makes no difference).
  const double mean = (static_cast<double>(k) - 1.0) / 2.0;
  for (std::uint64_t m = 0;; ++m) {
    const double lo = m == 0 ? 0.0 : static_cast<double>(m) - 0.5, hi = static_cast<double>(m) + 0.5;
    const double p = std::exp(-lo / mean) - std::exp(-hi / mean);
    const auto d = static_cast<std::uint32_t>(m % k);
    if (d == 0) {
      q[0] += p;
    } else {
      q[d] += p / 2;
      q[k - d] += p / 2;
    }
    if (std::exp(-hi / mean) < 1e-18) break;
  }
  return q;
}

TrafficMatrix traffic_matrix(const std::string& spec, const Topology& t, std::uint64_t seed) {
  const std::string name = TrafficRegistry::canonical(spec);
  if (const auto mesh = TrafficRegistry::mesh_layout(spec, traffic::PeSpace::of(t))) {  // the mesh emulation
    return TrafficMatrix(name, [mesh = *mesh](node_t s, TrafficMatrix::Row& r) {
      const auto nbs = mesh.neighbours(s);
      for (node_t nb : nbs) r.emplace_back(nb, 1.0 / static_cast<double>(nbs.size()));
    });
  }
  const traffic::Pattern pattern = TrafficRegistry::pattern(spec, t, seed);
  return std::visit(
      [&](const auto& p) -> TrafficMatrix {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, traffic::Uniform>) {
          return TrafficMatrix::uniform();
        } else if constexpr (std::is_same_v<P, traffic::Quarter>) {
          return TrafficMatrix(name, [part = p.part](node_t s, TrafficMatrix::Row& r) {
            const node_t base = s - s % part;
            for (node_t d = base; d < base + part; ++d)
              if (d != s) r.emplace_back(d, 1.0 / (part - 1));
          });
        } else if constexpr (std::is_same_v<P, traffic::Partitioned>) {
          return TrafficMatrix(name, [p](node_t s, TrafficMatrix::Row& r) {
            const auto& sl = (*p.slots)[s];
            for (std::uint32_t i = 0; i < sl.count; ++i)
              if (i != sl.local) r.emplace_back((*p.members)[sl.begin + i], 1.0 / (sl.count - 1));
          });
        } else if constexpr (std::is_same_v<P, traffic::Hotspot>) {
          return TrafficMatrix(name, [p](node_t s, TrafficMatrix::Row& r) {
            const double f = s == p.hot ? 0.0 : p.fraction, u = (1.0 - f) / (p.n - 1);
            for (node_t d = 0; d < p.n; ++d)
              if (d != s) r.emplace_back(d, u + (d == p.hot ? f : 0.0));
          });
        } else if constexpr (std::is_same_v<P, traffic::Localized>) {
          // Offsets are independent per coordinate; the redraw removes the all-zero offset.
          std::vector<std::vector<double>> q;
          double zero = 1;
          for (auto k : p.shape) {
            q.push_back(localized_offsets(k));
            zero *= q.back()[0];
          }
          return TrafficMatrix(name, [shape = p.shape, q, norm = 1.0 / (1.0 - zero)](node_t s, TrafficMatrix::Row& r) {
            const Coords c = to_coords(shape, s);
            const auto n = static_cast<node_t>(shape_size(shape));
            for (node_t d = 0; d < n; ++d) {
              if (d == s) continue;
              double prob = norm;
              node_t rem = d;
              for (std::size_t i = 0; i < shape.size(); ++i) {
                const std::uint32_t k = shape[i], x = rem % k;
                rem /= k;
                prob *= q[i][(x + k - c[i]) % k];
              }
              r.emplace_back(d, prob);
            }
          });
        } else if constexpr (std::is_same_v<P, traffic::Custom>) {
          if (p.random)
            throw usage_error(fmt::format("traffic '{}': a user pattern with random destinations has no traffic "
                                          "matrix (the channel-load bound needs one)", p.label));
          return TrafficMatrix(name, [p](node_t s, TrafficMatrix::Row& r) {
            Rng unused;
            r.emplace_back(p(s, unused), 1.0);
          });
        } else {  // deterministic: one destination (a self-mapped PE sends nothing)
          return TrafficMatrix(name, [p](node_t s, TrafficMatrix::Row& r) {
            Rng unused;
            r.emplace_back(p(s, unused), 1.0);
          });
        }
      },
      pattern);
}

// ---- Set-ups --------------------------------------------------------------------------------------

const std::vector<Setup>& setups() {
  static const std::vector<Setup> all = [] {
    Setup mdce;
    mdce.name = "mdce-1024";
    mdce.title = "MDCE paper, section 5: 1,024 PEs, link time = in+out degree, 32-word buffers";
    mdce.source = "dce-mdce-networks §5, Figs 7-11";
    mdce.networks = {{"(CB)^2", "cb2:n=4"},         {"CCCB", "cccb:n=4"},     {"CB", "cbanyan:n=7,S=8"},
                     {"CCC", "ccc:n=7,S=8"},        {"2MD", "mesh:32x32"},    {"2DT", "torus:32x32"},
                     {"3DT", "torus:8x8x16"},       {"FT", "fattree:10"},     {"MIN", "omega:10"}};
    mdce.patterns = {"uniform", "quarter", "hotspot", "mesh", "localized"};
    mdce.figures = {{"uniform", "Fig. 7"}, {"quarter", "Fig. 8"}, {"hotspot", "Fig. 9"}, {"mesh", "Fig. 10"},
                    {"localized", "Fig. 11"}};
    mdce.link_cycles = "degree";
    mdce.buffer_words = 32;
    mdce.notes = {
        "The paper gives no packet length: RWC-1's 3 +- 1 words (uniform) is used.",
        "Mesh emulation is paced (a PE starts its next round with probability `rate` per cycle once its last "
        "round is complete) so that it draws a curve; rate 1 is the plain closed loop.",
        "CB and CCC at 8x128 wire the added 8th column's cross link to flip bit 0 (`wiring=flip`; docs/topologies.md, \"Decisions where the papers are silent\").",
        "The hot-spot sweep is repeated with seeds 1..3 (the paper: results vary a lot between trials)."};
    Setup rwc;
    rwc.name = "rwc1";
    rwc.title = "RWC-1 paper, section 3.4: 1,024 PEs, one word per cycle per link, 16-word buffers";
    rwc.source = "rwc1-interconnect §3.4, Figs 6-9";
    rwc.networks = {{"CB", "cbanyan:n=7,S=8"}, {"Adaptive CB", "cbanyan:n=7,S=8", Routing::adaptive},
                    {"(CB)^2", "cb2:n=4"},     {"CCCB", "cccb:n=4"},
                    {"MIN", "omega:10"},       {"2MD", "mesh:32x32"},   {"2DT", "torus:32x32"}};
    rwc.patterns = {"uniform", "quarter", "hotspot", "mesh"};
    rwc.x_axis = {{"uniform", "interval"}, {"quarter", "interval"}, {"hotspot", "accepted"}, {"mesh", "accepted"}};
    rwc.figures = {{"uniform", "Fig. 6"}, {"quarter", "Fig. 7"}, {"hotspot", "Fig. 8"}, {"mesh", "Fig. 9"}};
    rwc.link_cycles = "words";
    rwc.buffer_words = 16;
    rwc.notes = {
        "The paper does not state link timing: one word per cycle (a 3-word packet holds a link 3 cycles).",
        "Adaptive CB is our design (the paper does not say how it routes; docs/topologies.md): c-Banyan 8x128 with "
        "--routing adaptive, any shortest choice of the round (column) that corrects each address bit, the "
        "deterministic route as escape, the same 3 spiral classes. Every other network routes deterministically.",
        "The paper does not state its run length: 10,000 cycles as in the MDCE paper.",
        "Mesh emulation is paced as in mdce-1024; the hot-spot sweep uses seeds 1..3."};
    // MDCE paper, Appendix A, Fig. 12: DCE(n = 7, delta) at 8 x 128 under the set-up of §5.
    Setup delta = mdce;
    delta.name = "mdce-delta";
    delta.title = "MDCE paper, Appendix A: DCE 8x128 for cross-link step delta = 0..3, link time = in+out degree";
    delta.source = "dce-mdce-networks Appendix A, Fig. 12";
    delta.networks = {{"delta=0 (CCC)", "dce:n=7,delta=0,S=8"},
                      {"delta=1 (CB)", "dce:n=7,delta=1,S=8"},
                      {"delta=2", "dce:n=7,delta=2,S=8"},
                      {"delta=3", "dce:n=7,delta=3,S=8"}};
    delta.patterns = {"uniform"};
    delta.figures = {{"uniform", "Fig. 12"}};
    delta.notes = {
        "The paper plots uniform (random) traffic; the set-up is mdce-1024's (3 +- 1-word packets, 32-word "
        "buffers, link time = in+out degree, 10,000 cycles).",
        "delta = 0 is CCC and delta = 1 c-Banyan (flip wiring, the added 8th column's cross link flips bit 0)."};
    // Deterministic vs adaptive routing (docs/experiments/adaptive): 256 PEs, RWC-1's link model.
    Setup ada;
    ada.name = "adaptive";
    ada.title = "Deterministic vs adaptive routing: 256 PEs, one word per cycle per link, 16-word buffers";
    ada.source = "rica (issue 13); Duato-style minimal adaptive routing, Adaptive CB";
    ada.networks = {{"2DT", "torus:16x16"},       {"2DT adaptive", "torus:16x16", Routing::adaptive},
                    {"HC", "hypercube:8"},        {"HC adaptive", "hypercube:8", Routing::adaptive},
                    {"FT", "fattree:8"},          {"FT adaptive", "fattree:8", Routing::adaptive},
                    {"CB", "cbanyan:n=5,S=8"},    {"Adaptive CB", "cbanyan:n=5,S=8", Routing::adaptive},
                    {"CCCB", "cccb:n=3,S=4"},     {"Adaptive CCCB", "cccb:n=3,S=4", Routing::adaptive}};
    ada.patterns = {"uniform", "transpose", "tornado", "bitrev", "hotspot"};
    ada.skip = {{"tornado", {"HC", "HC adaptive"}}};
    ada.link_cycles = "words";
    ada.buffer_words = 16;
    ada.cycles = 4000;
    ada.hotspot_seeds = 1;
    ada.notes = {
        "Adaptive: torus minimal adaptive with a dimension-order escape (3 classes), hypercube every differing bit "
        "with an e-cube escape (2 classes), fat tree adaptive up-links (1 class), Adaptive CB on c-Banyan and "
        "CCCB (docs/topologies.md).",
        "The rate grid and the bound column come from the deterministic routes' channel load; adaptive sweeps reach "
        "twice as far past it.",
        "Tornado does not apply to the hypercube (coordinates of range 2). cbanyan:n=5,S=8 and cccb:n=3,S=4 have "
        "256 PEs, so transpose and bit reversal act on the address bits.",
        "4,000 cycles per run (a quarter warm-up), one seed per point."};
    // Saturation against the channel-load bound at 1,024 PEs (docs/reproduction.md, "The
    // channel-load bound"): the papers' networks and the baselines under mdce-1024's timing.
    Setup sat;
    sat.name = "saturation";
    sat.title = "Saturation against the channel-load bound: 1,024 PEs, uniform, link time = in+out degree";
    sat.source = "rica (the channel-load bound, docs/reproduction.md)";
    sat.networks = {{"MIN", "omega:10"},      {"FT", "fattree:10"},        {"HC", "hypercube:10"},
                    {"CCCB", "cccb:n=4"},     {"(CB)^2", "cb2:n=4"},       {"CB", "cbanyan:n=7,S=8"},
                    {"CCC", "ccc:n=7,S=8"},   {"dB", "debruijn:10"},       {"8N", "torus8:32"},
                    {"M_{x+x}", "mxx:32"},    {"3DT", "torus:8x8x16"},     {"2DT", "torus:32x32"},
                    {"2MD", "mesh:32x32"}};
    sat.patterns = {"uniform"};
    sat.link_cycles = "degree";
    sat.buffer_words = 32;
    sat.notes = {"mdce-1024's set-up (3 +- 1-word packets, 32-word buffers, link time = in+out degree, 10,000 "
                 "cycles, round-robin arbitration) on every 1,024-PE network rica has.",
                 "saturation / bound is the fraction of the channel-load bound the router reaches."};
    // RWC-1 §3.2: 16-PE partitions of the 1,024-PE machines, every partition running uniform
    // traffic inside itself at once (traffic partition:parts=64, the partitions of `rica partition
    // NET --parts 64`, all closed), under the RWC-1 set-up.
    Setup p16 = rwc;
    p16.name = "partition16";
    p16.title = "RWC-1 section 3.2: 64 partitions of 16 PEs at once, uniform inside each; one word per cycle per "
                "link, 16-word buffers";
    p16.source = "rwc1-interconnect §3.2";
    p16.networks = {{"CB", "cbanyan:n=7,S=8"}, {"(CB)^2", "cb2:n=4"}, {"CCCB", "cccb:n=4"}};
    p16.patterns = {"partition:parts=64"};
    p16.x_axis = {};
    p16.figures = {};
    p16.notes = {"Each PE sends uniformly to the 15 other PEs of its partition (traffic partition:parts=64: the 64 "
                 "partitions `rica partition NET --parts 64` makes, all closed); RWC-1's set-up otherwise.",
                 "The paper says a 16-PE c-Banyan partition is bottlenecked by the few links between its two rings; "
                 "(CB)^2 and CCCB were designed to fix it."};
    // Today's low-diameter networks beside the papers' at about 1,024 PEs (docs/topologies.md,
    // "Today's networks beside the papers'"): one word per cycle per link, so a high-radix router
    // is not charged for its degree.
    Setup modern;
    modern.name = "modern";
    modern.title = "The papers' networks beside dragonfly, HyperX and Slim Fly: about 1,024 PEs, one word per cycle "
                   "per link, 32-word buffers";
    modern.source = "rica (issue 32): Kim et al. 2008 (dragonfly), Ahn et al. 2009 (HyperX), Besta and Hoefler "
                    "2014 (Slim Fly)";
    modern.networks = {{"CCCB", "cccb:n=4"},
                       {"(CB)^2", "cb2:n=4"},
                       {"M_{x+x}", "mxx:32"},
                       {"2DT", "torus:32x32"},
                       {"DF", "dragonfly:4"},
                       {"DF UGAL-L", "dragonfly:4", Routing::ugal_l},
                       {"DF UGAL-G", "dragonfly:4", Routing::ugal_g},
                       {"DF PAR", "dragonfly:4", Routing::par},
                       {"HyperX", "hyperx:16x16,T=4"},
                       {"SF", "slimfly:q=9"}};
    modern.patterns = {"uniform", "quarter", "hotspot"};
    modern.skip = {{"quarter", {"SF"}}};  // 1,134 PEs: not four equal quarters
    modern.link_cycles = "words";
    modern.buffer_words = 32;
    modern.cycles = 4000;
    modern.hotspot_seeds = 1;
    modern.notes = {
        "PEs: 1,024 (CCCB, (CB)^2, M_{x+x}, 2DT, HyperX 16x16 with 4 PEs per router), 1,056 (dragonfly h=4: 33 "
        "groups of 8 routers, 4 PEs each), 1,134 (Slim Fly q=9, 162 routers, 7 PEs each).",
        "One word per cycle per link (RWC-1's model, 3 +- 1-word packets): the papers' set-up charges a link the "
        "in+out degree of its node, which would make a 15-port dragonfly router 7 times slower than a CCCB node.",
        "DF: minimal routing (2 classes); DF UGAL-L / UGAL-G / PAR: the dragonfly's non-minimal routings "
        "(3, 3 and 4 classes; docs/topologies.md). The rate grid and the bound column come from each network's "
        "deterministic routes.",
        "Quarter (four partitions) does not apply to Slim Fly q=9: 1,134 PEs are not four equal quarters.",
        "4,000 cycles per run (a quarter warm-up), one seed per point (the hot spot too)."};
    // The same comparison at about 16,384 PEs (docs/topologies.md): the networks' 16K sizes under
    // the 1,024-PE set-up's patterns and the dragonfly's four routings (scripts/experiments/modern_16k.sh
    // runs it with --quick --cycles 1000: 5 rates per sweep, 1,000 cycles a run).
    Setup modern16 = modern;
    modern16.name = "modern-16k";
    modern16.title = "The papers' networks beside dragonfly, HyperX and Slim Fly: about 16,384 PEs, one word per "
                     "cycle per link, 32-word buffers";
    modern16.networks = {{"CCCB", "cccb:n=6,S=8,X=5"},
                         {"(CB)^2", "cb2:n=6,S=8,X=5"},
                         {"M_{x+x}", "mxx:128"},
                         {"2DT", "torus:128x128"},
                         {"DF", "dragonfly:8"},
                         {"DF UGAL-L", "dragonfly:8", Routing::ugal_l},
                         {"DF UGAL-G", "dragonfly:8", Routing::ugal_g},
                         {"DF PAR", "dragonfly:8", Routing::par},
                         {"HyperX", "hyperx:16x16x16,T=4"},
                         {"SF", "slimfly:q=23"}};
    modern16.skip = {};  // 19,044 Slim Fly PEs are four equal quarters
    modern16.cycles = 1000;
    modern16.quick_rates = {0.05, 0.5, 0.7, 0.9, 1.5};  // a fifth rate below the knee
    modern16.exact_bounds = true;  // dragonfly:8 (absolute) has no routing-preserving symmetry
    modern16.notes = {
        "PEs: 16,384 (CCCB and (CB)^2 with 8-column rings, 5-bit cluster and 6-bit c-Banyan addresses; M_{x+x} "
        "128x128; 2DT 128x128; HyperX 16x16x16 with 4 PEs per router), 16,512 (dragonfly h=8: 129 groups of 16 "
        "routers, 8 PEs each), 19,044 (Slim Fly q=23, 1,058 routers, 18 PEs each).",
        "One word per cycle per link (RWC-1's model, 3 +- 1-word packets), the patterns of the 1,024-PE experiment "
        "'modern' with its parameters (quarter: four partitions by address; hot spot: 5 % of the packets to PE 0).",
        "DF: minimal routing (2 classes); DF UGAL-L / UGAL-G / PAR: 3, 3 and 4 classes (docs/topologies.md). The "
        "rate grid and the bound column come from each network's deterministic routes, computed exactly (all "
        "pairs where no symmetry gives them).",
        "Run with --quick --cycles 1000 (scripts/experiments/modern_16k.sh): 5 rates per sweep (5, 50, 70, 90 and "
        "150 % of the bound; the hot spot's grid reaches 4 x the bound, 2.5 times as far), 1,000 cycles per run (a "
        "quarter warm-up), one seed per point."};
    return std::vector<Setup>{mdce, rwc, delta, ada, sat, p16, modern, modern16};
  }();
  return all;
}

const Setup& setup_by_name(const std::string& name) { return find_entry(setups(), name, "experiment"); }

EngineConfig engine_config(const Setup& s) {
  EngineConfig cfg;
  cfg.buffer_words = s.buffer_words;
  cfg.packet_words = s.packet_words;
  cfg.packet_spread = s.packet_spread;
  cfg.cycles = s.cycles;
  set_link_cycles(cfg, s.link_cycles);
  // The committed runs (docs/experiments) use round-robin output arbitration, the simple router
  // of the papers' era; kept pinned so they stay reproducible under the oldest-first default.
  cfg.arbitration = Arbitration::round_robin;
  return cfg;
}

std::vector<double> rate_grid(double bound, bool quick, const PacedSchedule* paced, double reach,
                              const std::vector<double>& quick_rates) {
  static const std::vector<double> full{0.03, 0.1, 0.25, 0.4, 0.55, 0.7, 0.8, 0.9, 1.0, 1.2, 1.6};
  static const std::vector<double> few{0.05, 0.5, 0.9, 1.5};
  std::vector<double> r;
  for (double f : !quick ? full : quick_rates.empty() ? few : quick_rates) {
    RICA_ASSERT(f > 0.0, "rate_grid: rates are positive fractions of the bound");
    const double x = std::min(1.0, f * reach / 1.6 * bound / (paced ? paced->round_packets : 1.0));
    const double scale = std::pow(10.0, 3 - std::floor(std::log10(x)));  // 4 significant digits
    r.push_back(std::round(x * scale) / scale);
  }
  if (paced) r.push_back(1.0);
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

double grid_reach(const std::string& pattern) { return pattern.starts_with("hotspot") ? 4.0 : 1.6; }

// ---- Summaries ------------------------------------------------------------------------------------

Summary summarize(const std::vector<SweepPoint>& points, const ChannelLoad& load) {
  if (points.empty()) throw std::logic_error("summarize: no points");
  Summary s;
  s.network = points.front().network;
  s.topology = points.front().topology;
  s.pattern = points.front().traffic;
  s.zero_load_routed = load.zero_load_latency;
  s.bound = load.bound;
  s.max_load = load.max_load;
  s.bound_method = load.method;
  struct Rate {
    double rate, offered, accepted = 0, latency = 0, delivered = 0;
    unsigned n = 0;
  };
  std::vector<Rate> rates;
  std::map<std::uint64_t, double> best_of_seed;
  for (const SweepPoint& p : points) {
    auto it = std::find_if(rates.begin(), rates.end(), [&](const Rate& r) { return r.rate == p.rate; });
    if (it == rates.end()) it = rates.insert(rates.end(), Rate{p.rate, p.offered});
    it->accepted += p.accepted;
    it->latency += p.latency_mean;
    it->delivered += static_cast<double>(p.delivered);
    ++it->n;
    best_of_seed[p.seed] = std::max(best_of_seed[p.seed], p.accepted);
  }
  for (Rate& r : rates) r.accepted /= r.n, r.latency /= r.n, r.delivered /= r.n;
  std::sort(rates.begin(), rates.end(), [](const Rate& a, const Rate& b) { return a.rate < b.rate; });
  s.seeds = static_cast<unsigned>(best_of_seed.size());
  s.zero_load = rates.front().latency;
  for (const Rate& r : rates)
    if (r.accepted > s.saturation) {
      s.saturation = r.accepted;
      s.offered_at_saturation = r.offered;
      s.delivered_at_saturation = static_cast<std::uint64_t>(r.delivered + 0.5);
    }
  s.saturation_min = s.saturation_max = best_of_seed.begin()->second;
  for (const auto& [seed, v] : best_of_seed) {
    s.saturation_min = std::min(s.saturation_min, v);
    s.saturation_max = std::max(s.saturation_max, v);
  }
  std::vector<double> acc, lat;  // the one knee (saturation.hpp), as rica sweep's summary
  for (const Rate& r : rates) acc.push_back(r.accepted), lat.push_back(r.latency);
  const Knee k = find_knee(acc, lat);
  s.knee = k.accepted, s.knee_reached = k.reached;
  return s;
}

// ---- Output files ---------------------------------------------------------------------------------

std::string points_csv_header() {
  return "network,pattern,topology,traffic,rate,offered,accepted,delivered,latency_mean,latency_p50,latency_p99,"
         "hops_mean,cycles,cycles_run,seed,routing,faults\n";
}

std::string points_csv_row(const SweepPoint& p, const std::string& pattern) {
  return report::csv_row({p.network, pattern, p.topology, p.traffic, fmt::format("{:.6g}", p.rate),
                          fmt::format("{:.6g}", p.offered), fmt::format("{:.6g}", p.accepted), std::to_string(p.delivered),
                          fmt::format("{:.4f}", p.latency_mean), fmt::format("{:.1f}", p.latency_p50),
                          fmt::format("{:.1f}", p.latency_p99), fmt::format("{:.4f}", p.hops_mean),
                          std::to_string(p.cycles), std::to_string(p.cycles_run), std::to_string(p.seed), p.routing,
                          p.faults});
}

std::string table_csv(const std::vector<Summary>& rows) {
  std::string out =
      "network,topology,pattern,seeds,zero_load_latency,zero_load_routed,saturation,saturation_min,saturation_max,"
      "offered_at_saturation,delivered_at_saturation,knee,knee_reached,bound,saturation_over_bound,max_link_load,"
      "bound_method\n";
  for (const Summary& s : rows)
    out += report::csv_row(
        {s.network, s.topology, s.pattern, std::to_string(s.seeds), fmt::format("{:.2f}", s.zero_load),
         fmt::format("{:.2f}", s.zero_load_routed), fmt::format("{:.5f}", s.saturation),
         fmt::format("{:.5f}", s.saturation_min), fmt::format("{:.5f}", s.saturation_max),
         fmt::format("{:.5f}", s.offered_at_saturation), std::to_string(s.delivered_at_saturation),
         fmt::format("{:.5f}", s.knee), s.knee_reached ? "1" : "0", fmt::format("{:.5f}", s.bound),
         fmt::format("{:.3f}", s.saturation / s.bound), fmt::format("{:.4f}", s.max_load), s.bound_method});
  return out;
}

nlohmann::json table_json(const std::vector<Summary>& rows) {
  nlohmann::json j = nlohmann::json::array();
  for (const Summary& s : rows)
    j.push_back({{"network", s.network},
                 {"topology", s.topology},
                 {"pattern", s.pattern},
                 {"seeds", s.seeds},
                 {"zero_load_latency", s.zero_load},
                 {"zero_load_routed", s.zero_load_routed},
                 {"saturation", s.saturation},
                 {"saturation_min", s.saturation_min},
                 {"saturation_max", s.saturation_max},
                 {"offered_at_saturation", s.offered_at_saturation},
                 {"delivered_at_saturation", s.delivered_at_saturation},
                 {"knee", s.knee},
                 {"knee_reached", s.knee_reached},
                 {"bound", s.bound},
                 {"saturation_over_bound", s.saturation / s.bound},
                 {"max_link_load", s.max_load},
                 {"bound_method", s.bound_method}});
  return j;
}

std::string table_markdown(const Setup& setup, const std::vector<Summary>& rows) {
  std::string out = fmt::format("# {} — {}\n\nSource: {}. Generated by `rica experiment {}`.\n\n", setup.name,
                                setup.title, setup.source, setup.name);
  out +=
      "Throughputs in packets per PE per cycle; latencies in cycles (generation to delivery). Zero-load: measured at "
      "the lowest rate / the cut-through timing model over the routes. Saturation: the largest accepted throughput of the sweep (delivered "
      "in the window at that point beside it). Knee: accepted throughput where the mean latency reaches 3x zero-load. "
      "Bound: channel-load bound of the pattern.\n";
  std::string pattern;
  for (const Summary& s : rows) {
    if (s.pattern != pattern) {
      pattern = s.pattern;
      out += fmt::format("\n## {}\n\n", pattern);
      out += "| network | topology | zero-load | saturation | delivered | knee | bound | sat/bound |\n";
      out += "|---|---|---|---|---|---|---|---|\n";
    }
    const std::string sat = s.seeds > 1 ? fmt::format("{:.4f} ({:.4f}-{:.4f}, {} seeds)", s.saturation,
                                                      s.saturation_min, s.saturation_max, s.seeds)
                                        : fmt::format("{:.4f}", s.saturation);
    out += fmt::format("| {} | `{}` | {:.1f} / {:.1f} | {} | {} | {}{:.4f} | {:.4f} | {:.2f} |\n", s.network,
                       s.topology, s.zero_load, s.zero_load_routed, sat, s.delivered_at_saturation,
                       s.knee_reached ? "" : ">= ", s.knee, s.bound, s.saturation / s.bound);
  }
  if (!setup.notes.empty()) {
    out += "\nNotes:\n";
    for (const auto& n : setup.notes) out += "- " + n + "\n";
  }
  return out;
}

nlohmann::json config_json(const Setup& s, const EngineConfig& cfg, bool quick,
                           const std::map<std::string, std::vector<double>>& grids) {
  nlohmann::json nets = nlohmann::json::array();
  for (const auto& n : s.networks) nets.push_back({{"label", n.label}, {"spec", n.spec}, {"routing", to_string(n.routing)}});
  nlohmann::json x = nlohmann::json::object();
  for (const auto& p : s.patterns) x[p] = s.x_axis.count(p) ? s.x_axis.at(p) : "delivered";
  return {{"experiment", s.name},
          {"title", s.title},
          {"source", s.source},
          {"quick", quick},
          {"networks", nets},
          {"patterns", s.patterns},
          {"x_axis", x},
          {"figures", s.figures},
          {"engine", "cycle"},
          {"timing", to_string(cfg.timing)},
          {"arbitration", to_string(cfg.arbitration)},
          {"cycles", cfg.cycles},
          {"warmup", cfg.warmup},
          {"link_cycles", link_cycles_text(cfg)},
          {"link_model", link_model_text(cfg)},
          {"buffer_words", cfg.buffer_words},
          {"packet_words", cfg.packet_words},
          {"packet_spread", cfg.packet_spread},
          {"hotspot_seeds", s.hotspot_seeds},
          {"seed", cfg.seed},
          {"rates", grids},
          {"notes", s.notes}};
}

}  // namespace rica::experiments
