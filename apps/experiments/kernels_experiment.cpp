// `rica experiment kernels` (docs/apps.md, "Kernels and collectives across networks"): every
// kernel (fft, cg, matmul, bfs) and collective on the papers' and today's networks of about 1,024
// PEs, one cycle-engine run each: completion cycles, logical messages, packets, mean hops, mean
// latency and the busiest link's packets. A kind of request::Experiment
// (rica/request/experiment.hpp): its checks, its runs and its files.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>

#include "app_registry.hpp"
#include "experiment.hpp"
#include "experiment_plan.hpp"
#include "rica/registry.hpp"
#include "rica/report.hpp"
#include "rica/suggest.hpp"
#include "sweep.hpp"

namespace rica::experiments::kernels {
namespace {

struct Net {
  std::string label, spec;
};

const std::vector<Net>& networks() {
  static const std::vector<Net> n = {
      {"CCCB", "cccb:n=4"},        {"(CB)^2", "cb2:n=4"},     {"2DT", "torus:32x32"},
      {"8N", "torus8:32"},         {"HC", "hypercube:10"},    {"dB", "debruijn:10"},
      {"FT", "fattree:10"},        {"DF", "dragonfly:4"},     {"SF", "slimfly:q=9"}};
  return n;
}

/// One program of the experiment: its label in the tables and its application spec (full, quick).
struct Program {
  std::string label, spec, quick;
};

/// The kernels, then every collective registered (apps of the collective library: their names).
std::vector<Program> programs() {
  std::vector<Program> p = {
      {"fft", "fft:dims=64x64x64", "fft:dims=16x16x16"},
      {"cg", "cg:m=256,iterations=20", "cg:m=64,iterations=3"},
      {"matmul", "matmul:block=8", "matmul:block=2"},
      {"bfs", "bfs:scale=14", "bfs:scale=10"},
  };
  // The collectives, where their applications are registered (apps/coll): one run per algorithm
  // at a message size in the bandwidth-bound range and one in the latency-bound range.
  // Each is taken when an application of that name is registered (the collectives' apps take
  // `algorithm` and `bytes`; barrier no bytes), so the kernels run alone without them.
  static const std::vector<std::pair<std::string, std::vector<std::string>>> coll = {
      {"allreduce", {"ring", "recursive-doubling", "rabenseifner", "binomial"}},
      {"bcast", {"binomial", "scatter-allgather", "pipeline"}},
      {"reduce", {"binomial"}}, {"gather", {"binomial"}}, {"scatter", {"binomial"}},
      {"allgather", {"ring", "recursive-doubling", "bruck"}},
      {"alltoall", {"pairwise", "bruck", "linear"}},
      {"reduce-scatter", {"ring", "recursive-halving"}},
      {"barrier", {"dissemination", "tree"}}};
  for (const auto& [name, algos] : coll) {
    bool known = false;
    for (const auto& e : AppRegistry::available()) known = known || e.name == name;
    if (!known) continue;
    for (const auto& a : algos)
      p.push_back({fmt::format("{} {}", name, a),
                   name == "barrier" ? fmt::format("{}:algorithm={}", name, a) : fmt::format("{}:algorithm={},bytes=4096", name, a),
                   name == "barrier" ? fmt::format("{}:algorithm={}", name, a) : fmt::format("{}:algorithm={},bytes=64", name, a)});
  }
  return p;
}

struct Runs {
  std::vector<Net> nets;
  std::vector<Program> progs;
  std::vector<SweepJob> jobs;  ///< network-major: jobs[n * progs + k]
  bool quick = false;
};

const char* const points_header =
    "network,spec,pes,program,app,completion_cycles,messages,packets,hops_mean,latency_mean,latency_p99,"
    "busiest_link_packets,link_load_mean,figure,figure_value\n";

/// The program's own figure for the tables: bfs its TEPS per cycle, cg its final residual, else none.
std::pair<std::string, std::string> figure(const nlohmann::json& s) {
  if (s.contains("teps_per_cycle")) return {"edges_per_cycle", fmt::format("{:.4g}", s["teps_per_cycle"].get<double>())};
  if (s.contains("residual_final"))
    return {"residual_final", fmt::format("{:.6g}", s["residual_final"].get<double>())};
  return {"", ""};
}

Made make_files(const Runs& runs, const std::vector<SweepPoint>& points, const EngineConfig& cfg, unsigned parallel,
                double wall) {
  Made m;
  m.points = points_header;
  m.table = nlohmann::json::array();
  const std::size_t K = runs.progs.size();
  for (std::size_t n = 0; n < runs.nets.size(); ++n)
    for (std::size_t k = 0; k < K; ++k) {
      const SweepPoint& pt = points[n * K + k];
      const Topology& t = runs.jobs[n * K + k].topology;
      const std::uint64_t messages = pt.app_summary.value("messages", std::uint64_t{0});
      const auto [fname, fvalue] = figure(pt.app_summary);
      m.points += report::csv_row({runs.nets[n].label, runs.nets[n].spec, std::to_string(t.pes()), runs.progs[k].label,
                                   pt.app, std::to_string(pt.cycles_run), std::to_string(messages),
                                   std::to_string(pt.injected), fmt::format("{:.4f}", pt.hops_mean),
                                   fmt::format("{:.3f}", pt.latency_mean), fmt::format("{:.1f}", pt.latency_p99),
                                   std::to_string(pt.link_load_max), fmt::format("{:.2f}", pt.link_load_mean), fname,
                                   fvalue});
      m.table.push_back({{"network", runs.nets[n].label}, {"spec", runs.nets[n].spec}, {"pes", t.pes()},
                         {"program", runs.progs[k].label}, {"app", pt.app}, {"completion_cycles", pt.cycles_run},
                         {"messages", messages}, {"packets", pt.injected}, {"hops_mean", pt.hops_mean},
                         {"latency_mean", pt.latency_mean}, {"latency_p99", pt.latency_p99},
                         {"busiest_link_packets", pt.link_load_max}, {"link_load_mean", pt.link_load_mean},
                         {"summary", pt.app_summary}});
    }
  std::string md = fmt::format(
      "# Kernels and collectives on 1,024-PE networks{}\n\n"
      "`rica experiment kernels{}` (docs/apps.md): each program once per network on the cycle engine, the MDCE "
      "paper's model (link time = in + out degree, {}-word buffers, packets of {} +- {} words, round-robin "
      "arbitration), seed {}. Every run verified its result against a serial reference. Completion = the cycle the "
      "last packet was delivered; messages = the program's logical messages; packets = packets injected (two "
      "64-bit words of data each); hops and latency (generation to delivery, cycles) are means over packets; "
      "busiest link = the packets over the most loaded link. Rank r runs on PE r.\n",
      runs.quick ? " (quick sizes)" : "", runs.quick ? " --quick" : "", cfg.buffer_words, cfg.packet_words,
      cfg.packet_spread, cfg.seed);
  for (std::size_t k = 0; k < K; ++k) {
    const SweepPoint& first = points[k];
    md += fmt::format("\n## {} (`{}`)\n\n", runs.progs[k].label, first.app);
    const auto [fname, fv] = figure(first.app_summary);
    md += fmt::format("| network | PEs | completion (cycles) | vs best | messages | packets | hops | latency | busiest "
                      "link |{}\n|---|---:|---:|---:|---:|---:|---:|---:|---:|{}\n",
                      fname.empty() ? "" : " " + fname + " |", fname.empty() ? "" : "---:|");
    std::uint64_t best = ~std::uint64_t{0};
    for (std::size_t n = 0; n < runs.nets.size(); ++n) best = std::min(best, points[n * K + k].cycles_run);
    for (std::size_t n = 0; n < runs.nets.size(); ++n) {
      const SweepPoint& pt = points[n * K + k];
      const auto [fn, fval] = figure(pt.app_summary);
      md += fmt::format("| {} | {} | {} | {:.2f} | {} | {} | {:.2f} | {:.1f} | {} |{}\n", runs.nets[n].label,
                        runs.jobs[n * K + k].topology.pes(), pt.cycles_run,
                        best ? static_cast<double>(pt.cycles_run) / static_cast<double>(best) : 0.0,
                        pt.app_summary.value("messages", std::uint64_t{0}), pt.injected, pt.hops_mean, pt.latency_mean,
                        pt.link_load_max, fn.empty() ? "" : " " + fval + " |");
    }
  }
  md += fmt::format("\n{} runs in {:.0f} s ({} at a time).\n", runs.jobs.size(), wall, parallel);
  m.files = {{"table.md", md}, {"table.json", m.table.dump(2) + "\n"}};
  m.text = md;
  return m;
}

std::vector<Net> pick(const std::vector<std::string>& filter) {
  if (filter.empty()) return networks();
  std::vector<Net> out;
  for (const auto& want : filter) {
    const auto& all = networks();
    auto it = std::find_if(all.begin(), all.end(), [&](const Net& n) { return n.label == want || n.spec == want; });
    if (it == all.end()) {
      std::string valid;
      std::vector<std::string> names;
      for (const auto& n : all) {
        valid += (valid.empty() ? "" : ", ") + n.label;
        names.push_back(n.label), names.push_back(n.spec);
      }
      throw usage_error(fmt::format("--networks: unknown network '{}' of experiment 'kernels'{}", want,
                                    valid_names_tail(want, names, valid)));
    }
    out.push_back(*it);
  }
  return out;
}

std::vector<Program> pick_programs(const std::vector<std::string>& filter) {
  const auto all = programs();
  if (filter.empty()) return all;
  std::vector<Program> out;
  for (const auto& want : filter) {
    std::vector<Program> hit;
    for (const auto& p : all)  // a program by its label, or every one of an application ("allreduce")
      if (p.label == want || p.label.substr(0, p.label.find(' ')) == want) hit.push_back(p);
    if (hit.empty()) {
      std::string valid;
      std::vector<std::string> names;
      for (const auto& p : all) valid += (valid.empty() ? "" : ", ") + p.label, names.push_back(p.label);
      throw usage_error(fmt::format("--patterns: unknown program '{}' of experiment 'kernels'{}", want,
                                    valid_names_tail(want, names, valid)));
    }
    out.insert(out.end(), hit.begin(), hit.end());
  }
  return out;
}

}  // namespace

std::string list_entry() {
  std::string progs;
  for (const auto& p : programs()) progs += " " + p.label;
  std::string nets;
  for (const auto& n : networks()) nets += fmt::format(" {}={}", n.label, n.spec);
  return fmt::format("{:<11} {}\n            source: {}\n            networks:{}\n            programs (--patterns):{}\n",
                     name, "kernels (fft, cg, matmul, bfs) and collectives on ~1,024-PE networks: completion, "
                     "messages, hops, latency, busiest link", "docs/apps.md (issue 42)", nets, progs);
}

std::vector<std::string> files() { return {"points.csv", "table.md", "table.json", "config.json"}; }

Plan prepare(const request::Experiment& r, bool planned) {
  if (r.seeds) throw usage_error("experiment kernels: --seeds does not apply (each program is deterministic)");
  if (!r.faults.empty()) throw usage_error("experiment kernels: --faults does not apply (a kernel needs every PE)");
  if (r.cycles) throw usage_error("experiment kernels: --cycles does not apply (each program runs until it is done)");
  Plan p;
  p.cfg = engine_config(setup_by_name("mdce-1024"));  // the papers' 1,024-PE model
  resolve_run(p.cfg, r, 1);  // programs send from start() and handlers: the run ends when they do
  p.cfg.warmup = 0;
  validate(p.cfg);
  p.parallel = runs_at_once(r, p.cfg);
  auto runs = std::make_shared<Runs>();
  runs->nets = pick(r.networks);
  runs->progs = pick_programs(r.patterns);
  runs->quick = r.quick;
  for (const auto& n : runs->nets) {
    const Topology t = TopologyRegistry::parse(n.spec);
    for (const auto& prog : runs->progs) (void)AppRegistry::make(r.quick ? prog.quick : prog.spec, t);  // fits: usage_error
    if (!planned) continue;
    for (const auto& prog : runs->progs) {
      SweepJob j{.network = n.label, .topology = t, .traffic = "", .rate = 0, .seed = p.cfg.seed, .faults = ""};
      j.app = r.quick ? prog.quick : prog.spec;
      runs->jobs.push_back(std::move(j));
    }
  }
  if (!planned) return p;
  p.jobs = runs->jobs;
  p.scope = fmt::format("{} networks x {} programs", runs->nets.size(), runs->progs.size());
  p.points_header = points_header;
  const EngineConfig cfg = p.cfg;
  const unsigned parallel = p.parallel;
  p.make = [runs, cfg, parallel](const std::vector<SweepPoint>& points, double wall, const std::string& out,
                                 const nlohmann::json& provenance) {
    Made m = make_files(*runs, points, cfg, parallel, wall);
    m.config = provenance;
    m.config["model"] = {{"link_cycles", "degree"}, {"buffer_words", cfg.buffer_words},
                         {"packet_words", cfg.packet_words}, {"packet_spread", cfg.packet_spread},
                         {"arbitration", to_string(cfg.arbitration)}};
    m.config["quick"] = runs->quick;
    m.config["networks"] = nlohmann::json::array();
    for (const auto& n : runs->nets) m.config["networks"].push_back({{"label", n.label}, {"spec", n.spec}});
    m.config["programs"] = nlohmann::json::array();
    for (const auto& j : runs->progs) m.config["programs"].push_back({{"label", j.label}, {"app", runs->quick ? j.quick : j.spec}});
    m.config["runs"] = runs->jobs.size();
    m.config["wall_s"] = wall;
    m.files.emplace_back("config.json", m.config.dump(2) + "\n");
    m.report = m.config;
    m.report["table"] = m.table;
    m.text += fmt::format("\nexperiment written to {}\n", out);
    return m;
  };
  return p;
}

}  // namespace rica::experiments::kernels
