// `rica experiment faults` (docs/faults.md): throughput and latency of the papers' 1,024-PE
// networks against the number of failed links (0, 1, 2, 4, 8, 16; rerouted by the generic
// tables), and the de Bruijn network's spare per necklace against failed PEs. A kind of
// request::Experiment (rica/request/experiment.hpp): its checks, its runs and its files.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <memory>

#include "experiment.hpp"
#include "experiment_plan.hpp"
#include "rica/channel_load.hpp"
#include "rica/faults.hpp"
#include "rica/registry.hpp"
#include "rica/report.hpp"
#include "sweep.hpp"

namespace rica::experiments::faults {
namespace {

/// One network state: a base network with K failed links or PEs.
struct Case {
  std::string network, spec, series;  // series: "links" or "nodes"
  unsigned failed = 0;                // K asked for
  bool tables = false;                // K = 0 routed by the rerouting tables instead of the base's routing
  std::uint64_t fault_seed = 0;       // the seed whose draw left the network connected
  std::string faults;                 // resolved faults text
  unsigned classes = 0, replaced = 0, still_failed = 0;
  double low_rate = 0;
  std::size_t job_low = 0, job_high = 0;
  std::vector<std::size_t> job_grid;  // the saturation sweep: grid_factors x the intact network's bound
};

/// Saturation is measured as the other experiments measure it (apps/experiments/experiment.hpp): the
/// largest accepted throughput over a rate grid around the channel-load bound. Offered load 1 is
/// run as well and reported on its own: beyond saturation the tori lose throughput.
const double grid_factors[] = {0.7, 0.85, 1.0, 1.15, 1.3};

const std::vector<std::pair<std::string, std::string>>& networks() {
  static const std::vector<std::pair<std::string, std::string>> n = {
      {"2DT", "torus:32x32"}, {"CCCB (MDCE)", "cccb:n=4"}, {"CB (DCE)", "cbanyan:n=7,S=8"},
      {"UB (de Bruijn)", "ubruijn:10"}, {"M_{x+x}", "mxx:32"}};
  return n;
}
const unsigned counts[] = {0, 1, 2, 4, 8, 16};

/// `base` with `spec` applied, drawn from seed, seed+1, ... until the network stays connected.
Topology connected(const Topology& base, const std::string& spec, std::uint64_t seed, Case& c) {
  for (std::uint64_t s = seed; s < seed + 100; ++s) {
    try {
      c.fault_seed = s;
      return with_faults(base, spec, s);
    } catch (const usage_error& e) {
      if (std::string(e.what()).find("cannot reach") == std::string::npos) throw;
    }
  }
  throw usage_error(fmt::format("experiment faults: '{}' disconnects {} for 100 seeds", spec, base.spec()));
}

/// The runs of every network state (cases), in case order.
struct Runs {
  std::vector<Case> cases;
  std::vector<SweepJob> jobs;
};

Runs plan_runs(const EngineConfig& cfg) {
  Runs r;
  auto add = [&](Case c, const Topology& t, double bound) {
    c.classes = t.buffer_classes();
    if (const auto* f = std::get_if<FaultyTopology>(&t.variant())) {
      c.faults = f->faults_text();
      c.still_failed = static_cast<unsigned>(f->failed_nodes().size());
    }
    // Latency at a quarter of the intact network's channel-load bound; saturation throughput as
    // the accepted rate when every PE offers a packet every cycle (sources throttled by their queue).
    c.low_rate = std::round(0.25 * bound * 1e4) / 1e4;
    c.job_low = r.jobs.size();
    r.jobs.push_back({c.network, t, "uniform", c.low_rate, cfg.seed, false, defaults::traffic::backlog, Routing::deterministic, ""});
    c.job_high = r.jobs.size();
    r.jobs.push_back({c.network, t, "uniform", 1.0, cfg.seed, false, defaults::traffic::backlog, Routing::deterministic, ""});
    for (double f : grid_factors) {
      c.job_grid.push_back(r.jobs.size());
      r.jobs.push_back({c.network, t, "uniform", std::round(f * bound * 1e4) / 1e4, cfg.seed, false,
                        defaults::traffic::backlog, Routing::deterministic, ""});
    }
    r.cases.push_back(std::move(c));
  };
  for (const auto& [label, spec] : networks()) {
    const Topology base = TopologyRegistry::parse(spec);
    const double bound = channel_load(base, traffic_matrix("uniform", base, cfg.seed), cfg).bound;
    for (unsigned k : counts) {
      Case c;
      c.network = label, c.spec = spec, c.series = "links", c.failed = k;
      if (k == 0) {
        add(c, base, bound);
        c.tables = true;  // the same intact network routed by the rerouting tables
        add(c, Topology(FaultyTopology(base, FaultSet{})), bound);
        continue;
      }
      const Topology t = connected(base, fmt::format("links={}", k), cfg.seed, c);
      add(c, t, bound);
    }
  }
  // The de Bruijn paper's spares: failed PEs with and without one spare per necklace.
  for (const char* spec : {"ubruijn:10", "ubruijn:10,spares=necklace"}) {
    const Topology base = TopologyRegistry::parse(spec);
    const double bound = channel_load(base, traffic_matrix("uniform", base, cfg.seed), cfg).bound;
    for (unsigned k : counts) {
      if (k == 0) continue;  // the links series has it
      Case c;
      c.network = std::string("UB ") + (std::string(spec).find("spares") != std::string::npos ? "+ spares" : "no spares");
      c.spec = spec, c.series = "nodes", c.failed = k;
      const Topology t = connected(base, fmt::format("nodes={}", k), cfg.seed, c);
      c.replaced = k - (std::holds_alternative<FaultyTopology>(t.variant())
                            ? static_cast<unsigned>(std::get<FaultyTopology>(t.variant()).failed_nodes().size())
                            : 0u);
      add(c, t, bound);
    }
  }
  return r;
}

const char* const points_header =
    "network,spec,series,failed,routing,fault_seed,buffer_classes,spares_used,failed_pes,low_rate,latency_mean,"
    "latency_p99,hops_mean,saturation_throughput,saturation_rate,accepted_at_rate_1,faults\n";

/// points.csv, table.md and table.json: per case, latency at low load and saturation throughput,
/// relative to the intact network.
Made make_files(const Runs& runs, const std::vector<SweepPoint>& points, const EngineConfig& cfg, unsigned parallel,
                double wall) {
  Made m;
  m.points = points_header;
  std::string md = fmt::format(
      "# Faults on the papers' 1,024-PE networks\n\n"
      "`rica experiment faults` (docs/faults.md): uniform traffic on the cycle engine, the MDCE paper's model (link "
      "time = in + out degree, 32-word buffers, packets of 3 +- 1 words, round-robin arbitration), {} cycles "
      "(warm-up {}), seed {}. Failed links drawn at random (`--faults links=K`; the first seed from {} whose draw "
      "leaves the network connected), rerouted by the generic tables (shortest surviving paths, up*/down* phase "
      "classes). Latency in cycles at a quarter of the intact network's channel-load bound. Saturation throughput = the "
      "largest accepted throughput (packets per PE per cycle) over offered loads {} x the intact network's "
      "channel-load bound and 1, as in the other experiments; \"at offered 1\" = the accepted throughput when every "
      "PE offers a packet every cycle, past saturation (the tori lose throughput there). \"0 (tables)\": the intact "
      "network routed by the rerouting tables.\n\n",
      cfg.cycles, cfg.warmup, cfg.seed, cfg.seed, fmt::join(grid_factors, ", "));
  std::string last;
  double thr0 = 0;
  for (const Case& c : runs.cases) {
    const SweepPoint& lo = points[c.job_low];
    const SweepPoint& at1 = points[c.job_high];
    const SweepPoint* best = &at1;
    for (std::size_t j : c.job_grid)
      if (points[j].accepted > best->accepted) best = &points[j];
    const SweepPoint& hi = *best;
    const std::string routing = c.tables ? "tables" : c.failed == 0 ? "base" : "tables";
    m.points += report::csv_row({c.network, c.spec, c.series, std::to_string(c.failed), routing,
                                 std::to_string(c.fault_seed), std::to_string(c.classes), std::to_string(c.replaced),
                                 std::to_string(c.still_failed), fmt::format("{}", c.low_rate),
                                 fmt::format("{:.3f}", lo.latency_mean), fmt::format("{:.1f}", lo.latency_p99),
                                 fmt::format("{:.4f}", lo.hops_mean), fmt::format("{:.5f}", hi.accepted),
                                 fmt::format("{}", hi.rate), fmt::format("{:.5f}", at1.accepted),
                                 c.faults.empty() ? "none" : c.faults});
    const std::string head = c.network + c.series;
    if (head != last) {
      last = head;
      thr0 = hi.accepted;
      md += fmt::format("\n## {} ({}), failed {}\n\n", c.network, c.spec, c.series == "links" ? "links" : "PEs");
      md += c.series == "links"
                ? "| failed links | buffer classes | latency (cycles) | hops | saturation throughput | vs intact | at offered 1 |\n"
                  "|---:|---:|---:|---:|---:|---:|---:|\n"
                : "| failed PEs | replaced by spares | still failed | buffer classes | latency (cycles) | hops | "
                  "saturation throughput | vs first row | at offered 1 |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    }
    const std::string k = c.tables ? "0 (tables)" : std::to_string(c.failed);
    const std::string rel = thr0 > 0 ? fmt::format("{:+.1f}%", 100.0 * (hi.accepted / thr0 - 1)) : "";
    if (c.series == "links")
      md += fmt::format("| {} | {} | {:.1f} | {:.3f} | {:.4f} | {} | {:.4f} |\n", k, c.classes, lo.latency_mean,
                        lo.hops_mean, hi.accepted, rel, at1.accepted);
    else
      md += fmt::format("| {} | {} | {} | {} | {:.1f} | {:.3f} | {:.4f} | {} | {:.4f} |\n", k, c.replaced,
                        c.still_failed, c.classes, lo.latency_mean, lo.hops_mean, hi.accepted, rel, at1.accepted);
    m.table.push_back({{"network", c.network},       {"spec", c.spec},           {"series", c.series},
                       {"failed", c.failed},         {"routing", routing},       {"fault_seed", c.fault_seed},
                       {"buffer_classes", c.classes}, {"spares_used", c.replaced}, {"failed_pes", c.still_failed},
                       {"low_rate", c.low_rate},     {"latency_mean", lo.latency_mean},
                       {"latency_p99", lo.latency_p99}, {"hops_mean", lo.hops_mean},
                       {"saturation_throughput", hi.accepted}, {"saturation_rate", hi.rate},
                       {"accepted_at_rate_1", at1.accepted}, {"faults", c.faults}});
  }
  if (m.table.is_null()) m.table = nlohmann::json::array();
  md += fmt::format("\n{} runs in {:.0f} s ({} at a time). Figures: faults.png (links), spares.png (de Bruijn "
                    "spares).\n",
                    runs.jobs.size(), wall, parallel);
  m.files = {{"table.md", md}, {"table.json", m.table.dump(2) + "\n"}};
  m.text = md;
  return m;
}

}  // namespace

std::string list_entry() {
  return fmt::format("{:<11} {}\n            source: {}\n", name,
                     "throughput and latency against failed links (0..16) on 1,024-PE networks; de Bruijn spares",
                     "docs/faults.md (M_{x+x} §4 table rerouting, de Bruijn §3 spare per necklace)");
}

std::vector<std::string> files() { return {"points.csv", "table.md", "table.json", "config.json"}; }

Plan prepare(const request::Experiment& r, bool planned) {
  // Its own shape: failed links on the x axis, its own networks and fault draws.
  if (!r.networks.empty() || !r.patterns.empty() || r.seeds || !r.routings.empty())
    throw usage_error("experiment faults: --networks, --patterns, --seeds and --routing do not apply");
  if (!r.faults.empty())
    throw usage_error("experiment faults: --faults does not apply (the experiment fails 0, 1, 2, 4 ... links itself)");
  Plan p;
  p.cfg = engine_config(setup_by_name("mdce-1024"));  // the papers' 1,024-PE model
  resolve_run(p.cfg, r, r.quick ? 1000 : 2000);
  p.cfg.warmup = p.cfg.cycles / 5;
  validate(p.cfg);
  p.parallel = runs_at_once(r, p.cfg);
  if (!planned) return p;
  auto runs = std::make_shared<const Runs>(plan_runs(p.cfg));
  p.jobs = runs->jobs;
  p.scope = fmt::format("{} network states", runs->cases.size());
  p.points_header = points_header;
  const EngineConfig cfg = p.cfg;
  const unsigned parallel = p.parallel;
  p.make = [runs, cfg, parallel](const std::vector<SweepPoint>& points, double wall, const std::string& out,
                                 const nlohmann::json& provenance) {
    Made m = make_files(*runs, points, cfg, parallel, wall);
    m.config = provenance;
    m.config["model"] = {{"link_cycles", "degree"}, {"link_model", link_model_text(cfg)}, {"buffer_words", cfg.buffer_words},
                         {"packet_words", cfg.packet_words}, {"packet_spread", cfg.packet_spread},
                         {"arbitration", to_string(cfg.arbitration)}, {"cycles", cfg.cycles}, {"warmup", cfg.warmup}};
    m.config["runs"] = runs->jobs.size();
    m.config["wall_s"] = wall;
    m.files.emplace_back("config.json", m.config.dump(2) + "\n");
    m.report = m.config;
    m.report["table"] = m.table;
    m.text += fmt::format("\nexperiment written to {}\n", out);
    m.plot_script = "plot_faults.py";
    m.plot_args = {out + "/points.csv", "--out", out};
    return m;
  };
  return p;
}

}  // namespace rica::experiments::faults
