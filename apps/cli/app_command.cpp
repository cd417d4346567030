// `rica app sort|stencil|run`: one application kernel (apps/sort, apps/stencil) on several
// topologies, one run each, and a comparison table: messages, hops, latency, completion time,
// link load, verification. JSON (--json) and CSV (--csv) as for `rica run`. docs/apps.md.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <memory>
#include <thread>

#include "app_registry.hpp"
#include "commands.hpp"
#include "rica/defaults.hpp"
#include "rica/engine.hpp"
#include "rica/registry.hpp"
#include "rica/routing.hpp"
#include "options.hpp"
#include "rica/faults.hpp"
#include "rica/io.hpp"
#include "rica/report.hpp"
#include "sort.hpp"
#include "stencil.hpp"

namespace rica::cli {
namespace {

struct AppOptions {
  CLI::App* cmd = nullptr;  ///< the subcommand (sort or stencil), for its configuration
  std::vector<std::string> topologies;
  EngineOptions engine;  ///< the machine, the map and the kernel's parameters (the option table)
  std::string json, csv;
  bool quiet = false;
  std::string spec;  ///< app run: any registered application
};

/// One kernel, resolved from the options: its description, its configuration JSON, and a
/// factory that validates it for a topology (usage_error) and builds the App.
struct Kernel {
  std::string name, description;
  nlohmann::json config;
  std::function<std::unique_ptr<App>(const Topology&)> make;
};

Kernel sort_kernel(const AppOptions& ao) {
  const CommandValues& o = ao.engine.values;
  kernels::SortConfig c;
  c.algorithm = kernels::parse_sort_algorithm(o.algorithm, "--algorithm");
  c.keys = o.keys;
  c.distribution = kernels::parse_distribution(o.distribution, "--distribution");
  if (!o.keys_file.empty()) {
    c.file = o.keys_file;
    c.file_keys = std::make_shared<const std::vector<std::uint32_t>>(kernels::read_keys(o.keys_file, "--keys-file"));
  }
  c.keys_per_packet = o.keys_per_packet;
  c.samples = o.samples;
  c.map = kernels::parse_map(o.map, "--map");
  if (!o.pgrid.empty()) c.pgrid = kernels::parse_grid(o.pgrid, "--pgrid");
  const std::string input = c.file.empty() ? fmt::format("{} {} keys", c.keys, kernels::distribution_name(c.distribution))
                                           : fmt::format("{} keys from {}", c.total(), c.file);
  return {"sort",
          fmt::format("{} sort, {}, {} key{}/packet, map {}", o.algorithm, input, c.keys_per_packet,
                      c.keys_per_packet == 1 ? "" : "s", o.map),
          c.json(), [c](const Topology& t) -> std::unique_ptr<App> { return kernels::make_sort(c, t); }};
}

Kernel stencil_kernel(const AppOptions& ao) {
  const CommandValues& o = ao.engine.values;
  kernels::StencilConfig c;
  const kernels::ProcessGrid g = kernels::parse_grid(o.grid, "--grid");
  c.gx = g.px;
  c.gy = g.py;
  c.points = o.points;
  c.iterations = o.iterations;
  c.values_per_packet = o.values_per_packet;
  c.boundary = kernels::parse_boundary(o.boundary, "--boundary");
  c.map = kernels::parse_map(o.map, "--map");
  if (!o.pgrid.empty()) c.pgrid = kernels::parse_grid(o.pgrid, "--pgrid");
  return {"stencil",
          fmt::format("{}-point Jacobi stencil, {}x{} grid, {} iterations, {} value{}/packet, {} boundary, map {}",
                      c.points, c.gx, c.gy, c.iterations, c.values_per_packet, c.values_per_packet == 1 ? "" : "s",
                      o.boundary, o.map),
          c.json(), [c](const Topology& t) -> std::unique_ptr<App> {
            c.validate(t.pes());
            return std::make_unique<kernels::Stencil>(c);
          }};
}

/// Any registered application by its spec ("reduce:rounds=5", a user's): AppRegistry::make.
Kernel named_kernel(const AppOptions& o) {
  const AppEntry& e = AppRegistry::by_name(o.spec.substr(0, o.spec.find(':')));  // unknown: usage_error
  return {e.name, fmt::format("{}: {}", o.spec, e.summary), nlohmann::json{{"app", o.spec}},
          [spec = o.spec](const Topology& t) { return AppRegistry::make(spec, t); }};
}

struct Row {
  Topology topology;
  RunStats st;
  nlohmann::json app;  ///< the kernel's summary()
};

std::string short_map(const std::string& resolved) { return resolved.substr(0, resolved.find(" (")); }

double per_pe_mean(const Row& r) { return static_cast<double>(r.st.injected) / r.topology.pes(); }
std::uint64_t per_pe_max(const Row& r) {
  return r.st.pe_injected.empty() ? 0 : *std::max_element(r.st.pe_injected.begin(), r.st.pe_injected.end());
}
/// Completion time: the cycle at which the run ended (cycle engine), else the wall time.
double completion(const Row& r, bool cycles) {
  return cycles ? static_cast<double>(r.st.cycles_run) : r.st.wall_s;
}

/// Columns padded to their widest cell; text columns (`left`) left-aligned, numbers right-aligned.
void print_table(const std::vector<std::vector<std::string>>& rows, const std::vector<std::size_t>& left) {
  std::vector<std::size_t> width;
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], r[i].size());
    }
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i)
      line += std::find(left.begin(), left.end(), i) != left.end()
                  ? fmt::format("{}{:<{}}", i ? "  " : "", r[i], width[i])
                  : fmt::format("{}{:>{}}", i ? "  " : "", r[i], width[i]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    fmt::print("{}\n", line);
  }
}

std::string sanitized(const std::string& spec) {
  std::string s = spec;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

/// The topologies of the comparison, each checked before the first run: memory, faults (failed
/// links only: a kernel needs every PE), routing, and the kernel's own fit.
std::vector<Topology> topologies_of(const AppOptions& o, const Kernel& k, const EngineConfig& cfg) {
  std::vector<Topology> topos;
  for (const auto& s : o.topologies) check_run_memory("app " + k.name, s, cfg, 0);
  for (const auto& s : o.topologies) topos.push_back(faulty_topology(TopologyRegistry::parse(s), o.engine, cfg));
  for (const auto& t : topos) {
    check_routing(t, cfg.routing);
    if (!failed_nodes(t).empty())
      throw usage_error("--faults: nodes= / node lines need traffic (rica run); an application kernel needs every PE "
                        "(give failed links only)");
  }
  for (const auto& t : topos) (void)k.make(t);  // refuse bad input before the first run
  return topos;
}

/// One run per topology, in order; a deadlock is reported (stderr) and the comparison goes on.
std::vector<Row> run_rows(const AppOptions& o, const Kernel& k, const std::vector<Topology>& topos,
                          const EngineConfig& cfg) {
  std::vector<Row> rows;
  for (std::size_t i = 0; i < topos.size(); ++i) {
    const Topology& t = topos[i];
    if (!o.quiet) fmt::print(stderr, "  [{}/{}] {} ({} PEs)\n", i + 1, topos.size(), t.spec(), t.pes());
    auto app = k.make(t);
    RunStats st = rica::run(t, *app, cfg);
    if (st.deadlock) std::fprintf(stderr, "rica: %s: %s", t.spec().c_str(), st.deadlock_report.c_str());
    rows.push_back({t, std::move(st), app->summary()});
  }
  return rows;
}

/// Each run as the JSON's "runs" lists it.
nlohmann::json runs_json(const Kernel& k, const std::vector<Row>& rows, const EngineConfig& cfg) {
  const bool cycles = engine_traits(cfg.engine).virtual_clock;
  nlohmann::json runs = nlohmann::json::array();
  for (const Row& r : rows) {
    nlohmann::json j = report::run_summary(r.topology, cfg, r.st);
    j["engine"] = to_string(cfg.engine);
    j["kernel"] = k.name;
    j["map"] = r.app.value("map_resolved", "");
    j["messages"] = r.st.injected;
    j["messages_per_pe_mean"] = per_pe_mean(r);
    j["messages_per_pe_max"] = per_pe_max(r);
    j["completion"] = completion(r, cycles);
    j["completion_unit"] = cycles ? "cycles" : "s";
    j["finish"] = r.app.value("finish", std::uint64_t{0});  // the last rank's ctx.now() at its end
    j["finish_unit"] = cycles ? "cycles" : "ns";
    if (cycles) j["cycles_run"] = r.st.cycles_run;
    j["app"] = r.app;
    if (r.st.ranks > 1) j["distributed"] = distributed_json(r.st, cfg);
    runs.push_back(std::move(j));
  }
  return runs;
}

/// The per-PE CSV --csv PATH writes beside it for a run on `t` ("r.csv" -> "r.<spec>.csv"; its
/// links table report::link_csv_path of that).
std::string per_pe_csv(const std::string& path, const Topology& t) {
  const std::string stem = path.ends_with(".csv") ? path.substr(0, path.size() - 4) : path;
  return fmt::format("{}.{}.csv", stem, sanitized(t.spec()));
}

/// --csv FILE: one row per topology; each run's per-PE and per-link CSVs beside it.
void write_csv(const std::string& path, const Kernel& k, const std::vector<Row>& rows, const nlohmann::json& runs,
               const EngineConfig& cfg) {
  const bool cycles = engine_traits(cfg.engine).virtual_clock;
  const std::string engine = to_string(cfg.engine), unit = cycles ? "cycles" : "ns";
  std::string f =
      "topology,pes,nodes,kernel,engine,threads,seed,map,messages,messages_per_pe_mean,messages_per_pe_max,"
      "packet_hops,hops_mean,hops_max,latency_unit,latency_mean,latency_p50,latency_p99,latency_max,completion,"
      "completion_unit,finish,wall_s,packets_per_s,packet_hops_per_s,link_load_max,link_load_mean,"
      "conservation_ok,verified,hop_histogram\n";
  std::vector<std::pair<std::string, const Row*>> per_pe;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const auto& j = runs[i];
    f += report::csv_row(
        {r.topology.spec(), std::to_string(r.topology.pes()), std::to_string(r.topology.nodes()), k.name, engine,
         std::to_string(cfg.threads), std::to_string(cfg.seed), j["map"].get<std::string>(),
         std::to_string(r.st.injected), fmt::format("{:.3f}", per_pe_mean(r)), std::to_string(per_pe_max(r)),
         std::to_string(r.st.hops), fmt::format("{:.4f}", r.st.hops_mean), std::to_string(r.st.hops_max), unit,
         fmt::format("{:.2f}", r.st.latency_mean), fmt::format("{:.0f}", r.st.latency_p50),
         fmt::format("{:.0f}", r.st.latency_p99), fmt::format("{:.0f}", r.st.latency_max),
         fmt::format("{:.6g}", completion(r, cycles)), cycles ? "cycles" : "s",
         std::to_string(j["finish"].get<std::uint64_t>()), fmt::format("{:.6f}", r.st.wall_s),
         fmt::format("{:.6g}", r.st.packets_per_s), fmt::format("{:.6g}", r.st.packet_hops_per_s),
         std::to_string(r.st.link_load_max), fmt::format("{:.2f}", r.st.link_load_mean),
         r.st.conservation_ok ? "true" : "false", r.st.app_ok ? "true" : "false",
         fmt::format("{}", fmt::join(r.st.hop_histogram, ";"))});
    per_pe.emplace_back(per_pe_csv(path, r.topology), &r);
  }
  write_text_file(path, f, "--csv");
  for (const auto& [file, r] : per_pe) report::write_run_csv(file, r->topology, r->st);
}

/// The comparison table: one line per topology.
void print_comparison(const std::vector<Row>& rows, bool cycles) {
  std::vector<std::vector<std::string>> table = {
      {"topology", "PEs", "map", "messages", "msg/PE", "max/PE", "hops", "max",
       fmt::format("latency ({})", cycles ? "cycles" : "ns"), "p99", cycles ? "completion (cycles)" : "completion (s)",
       "link max", "result"}};
  for (const Row& r : rows)
    table.push_back({r.topology.spec(), std::to_string(r.topology.pes()), short_map(r.app.value("map_resolved", "")),
                     std::to_string(r.st.injected), fmt::format("{:.1f}", per_pe_mean(r)),
                     std::to_string(per_pe_max(r)), fmt::format("{:.2f}", r.st.hops_mean),
                     std::to_string(r.st.hops_max), fmt::format("{:.1f}", r.st.latency_mean),
                     fmt::format("{:.0f}", r.st.latency_p99),
                     cycles ? std::to_string(r.st.cycles_run) : fmt::format("{:.3f}", r.st.wall_s),
                     std::to_string(r.st.link_load_max),
                     r.st.deadlock          ? "DEADLOCK"
                     : !r.st.conservation_ok ? "LOST PACKETS"
                     : r.st.app_ok           ? "verified"
                                             : "WRONG"});
  print_table(table, {0, 2, 12});
}

/// The hop histograms, the kernels' own failures, and the host's figures.
void print_details(const std::vector<Row>& rows) {
  fmt::print("\nhop histogram (% of packets by hop count):\n");
  std::size_t w = 0;
  for (const Row& r : rows) w = std::max(w, r.topology.spec().size());
  for (const Row& r : rows) {
    std::string line;
    const double total = static_cast<double>(std::max<std::uint64_t>(1, r.st.delivered));
    for (std::size_t h = 0; h < r.st.hop_histogram.size(); ++h)
      if (r.st.hop_histogram[h])
        line += fmt::format(" {}:{:.1f}", h, 100.0 * static_cast<double>(r.st.hop_histogram[h]) / total);
    fmt::print("  {:<{}}{}\n", r.topology.spec(), w, line);
  }
  for (const Row& r : rows)
    if (!r.st.app_ok && !r.st.app_message.empty()) fmt::print("{}: {}\n", r.topology.spec(), r.st.app_message);
  fmt::print("\nhost:\n");
  std::vector<std::vector<std::string>> host = {
      {"topology", "wall (s)", "packets", "packet-hops", "M packets/s", "M packet-hops/s", "peak RSS (MB)"}};
  for (const Row& r : rows)
    host.push_back({r.topology.spec(), fmt::format("{:.3f}", r.st.wall_s), std::to_string(r.st.delivered),
                    std::to_string(r.st.hops), fmt::format("{:.3f}", r.st.packets_per_s / 1e6),
                    fmt::format("{:.3f}", r.st.packet_hops_per_s / 1e6),
                    fmt::format("{:.1f}", static_cast<double>(r.st.peak_rss_kb) / 1024)});
  print_table(host, {0});
}

int run_kernel(const AppOptions& o, const Kernel& k) {
  EngineConfig cfg = engine_config(o.engine);
  check_distinct_outputs({{"--json", o.json}, {"--csv", o.csv}, {"--trace", cfg.trace}});
  const std::vector<Topology> topos = topologies_of(o, k, cfg);
  if (!o.csv.empty()) {  // every file --csv writes, each run's tables beside it included
    std::vector<Output> outputs = {{"--json", o.json}, {"--csv", o.csv}, {"--trace", cfg.trace}};
    for (const Topology& t : topos) {
      const std::string pe = per_pe_csv(o.csv, t), links = report::link_csv_path(pe);
      outputs.push_back({fmt::format("--csv ({})", pe), pe});
      outputs.push_back({fmt::format("--csv ({})", links), links});
    }
    check_distinct_outputs(outputs);
  }
  cfg.progress = !o.quiet;
  cfg.cycles = 1;  // kernels send from start() and handlers only: the run ends when the kernel does
  const std::string header = fmt::format("rica app {}: {}; {} engine, {} thread{}, seed {}", k.name, k.description,
                                         to_string(cfg.engine), cfg.threads, cfg.threads == 1 ? "" : "s", cfg.seed);
  if (!o.quiet) {
    fmt::print(stderr, "{}\n", header);
    fmt::print(stderr, "model: {}\n", model_line(cfg, nullptr, false));
  }
  const std::vector<Row> rows = run_rows(o, k, topos, cfg);
  bool all_ok = true, deadlock = false;
  for (const Row& r : rows) {
    all_ok = all_ok && r.st.app_ok && r.st.conservation_ok;
    deadlock = deadlock || r.st.deadlock;
  }
  const nlohmann::json runs = runs_json(k, rows, cfg);
  if (!o.json.empty()) {
    nlohmann::json config = option_config(o.cmd);
    config["threads"] = cfg.threads;
    nlohmann::json j = provenance(config, cfg.seed, cfg.threads);
    j.update({{"kernel", k.name}, {"kernel_config", k.config}, {"engine", to_string(cfg.engine)}, {"verified", all_ok},
              {"runs", runs}});
    write_json(o.json, j);
  }
  if (!o.csv.empty()) write_csv(o.csv, k, rows, runs, cfg);
  if (show_text(o.quiet, o.json)) {
    fmt::print("{}\n\n", header);
    for (const Row& r : rows)  // under mpirun: ranks, threads per rank, the cut (docs/distributed.md)
      if (r.st.ranks > 1) {
        fmt::print("{}: ", r.topology.spec());
        print_distributed(r.st, cfg);
      }
    print_comparison(rows, engine_traits(cfg.engine).virtual_clock);
    print_details(rows);
    fmt::print("\nresult: {}\n", all_ok ? "every run verified" : "NOT every run verified");
  }
  return deadlock ? 3 : all_ok ? 0 : 1;
}

void add_common_options(CLI::App* c, AppOptions& o) {
  o.cmd = c;
  add_text(c, "--topology,-t", o.topologies, "Topology spec; repeat to compare several (see 'rica list')",
           "a topology spec (see 'rica list')")
      ->required();
  add_engine_options(c, o.engine, OptionGroup::workload);  // --map (sort, stencil)
  add_engine_options(c, o.engine, OptionGroup::machine);
  add_json(c, o.json, "Write the comparison as JSON to FILE (top-level 'verified', 'runs', configuration, provenance)");
  add_output_file(c, "--csv", o.csv, "Write one row per topology to FILE, and per-PE/per-link CSVs beside it");
  add_quiet(c, o.quiet);
  add_engine_options(c, o.engine, OptionGroup::kernel);  // the kernel's parameters
}

}  // namespace

void add_app_command(CLI::App& app, int& status) {
  auto* a = app.add_subcommand("app", "Run an application (sort, stencil, or any registered one with 'run') on several "
                                      "topologies and compare");
  a->require_subcommand(1);

  auto so = std::make_shared<AppOptions>();
  auto* s = a->add_subcommand("sort", "Sort keys spread over the PEs: bitonic, shear or sample sort (docs/apps.md)");
  add_common_options(s, *so);
  s->callback([so, &status] { status = run_kernel(*so, sort_kernel(*so)); });

  auto to = std::make_shared<AppOptions>();
  auto* t = a->add_subcommand("stencil", "2D Jacobi heat diffusion with halo exchange by packets (docs/apps.md)");
  add_common_options(t, *to);
  t->callback([to, &status] { status = run_kernel(*to, stencil_kernel(*to)); });

  auto ro = std::make_shared<AppOptions>();
  auto* r = a->add_subcommand("run", "Any registered application by name (see 'rica list'), e.g. reduce:rounds=5");
  add_text(r, "app", ro->spec, "Application spec name[:args]", "an application spec such as reduce:rounds=5")
      ->required();
  add_common_options(r, *ro);
  r->callback([ro, &status] { status = run_kernel(*ro, named_kernel(*ro)); });
}

}  // namespace rica::cli
