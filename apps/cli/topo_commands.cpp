// `rica list`, `rica topo`, `rica route`.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <nlohmann/json.hpp>

#include "api.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "rica/bisection.hpp"
#include "rica/io.hpp"
#include "rica/defaults.hpp"
#include "rica/metrics.hpp"
#include "rica/os.hpp"
#include "rica/os_stream.hpp"
#include "rica/registry.hpp"
#include "rica/routing.hpp"
#include "app_registry.hpp"
#include "traffic.hpp"

namespace rica::cli {
namespace {

struct TopoOptions {
  CLI::App* cmd = nullptr;
  std::string spec = defaults::topology;
  std::string json;
  bool quiet = false;
  unsigned threads = defaults::engine::threads;
  std::string dot;
  unsigned samples = defaults::metrics::sample_sources;
  std::uint64_t seed = defaults::metrics::seed;
  bool all_pairs = false;
};

void write_dot(const Topology& t, std::ostream& out) {
  out << "digraph \"" << t.spec() << "\" {\n  node [shape=circle, fontsize=9];\n";
  for (node_t v = 0; v < t.nodes(); ++v)
    out << "  n" << v << " [label=\"" << t.label(v) << "\"" << (v < t.pes() ? "" : ", shape=box") << "];\n";
  for (node_t v = 0; v < t.nodes(); ++v)
    for (port_t p = 0; p < t.ports(); ++p) {
      const Link l = t.out_link(v, p);
      if (l.present()) out << "  n" << v << " -> n" << l.peer << " [taillabel=\"" << p << "\"];\n";
    }
  out << "}\n";
}

void print_metrics(const TopologyMetrics& m, const Bisection& b) {
  const bool sampled = m.method == "sampled";
  fmt::print("topology        {}\n", m.spec);
  fmt::print("PEs / nodes     {} / {}{}\n", m.pes, m.nodes, m.direct ? "" : " (indirect: distances in switches traversed)");
  if (m.method_detail.empty())
    fmt::print("method          {} ({} source{}){}\n", m.method, m.sources, m.sources == 1 ? "" : "s",
               sampled ? fmt::format(", seed {}", m.seed) : "");
  else
    fmt::print("method          {}: {}\n", m.method, m.method_detail);
  fmt::print("G  degree       {:.4f}   (mean; nominal {}, max in {} + out {})\n", m.degree, m.degree_max, m.degree_in,
             m.degree_out);
  fmt::print("L  links        {}\n", m.links);
  fmt::print("D  diameter     {}{}\n", m.diameter, sampled ? " (lower bound)" : "");
  fmt::print("d  mean dist    {:.4f}{}   (incl. self pairs: {:.4f})\n", m.mean_distance,
             sampled ? fmt::format(" +- {:.4f}", m.mean_distance_error) : "", m.mean_distance_incl_self);
  fmt::print("s  normalised   {:.4f}\n", m.normalized_distance);
  fmt::print("t  traffic dens {:.4f}\n", m.traffic_density);
  fmt::print("r  avg relay    {:.4f}\n", m.avg_relay);
  fmt::print("R  max relay    {:.4f}\n", m.max_relay);
  fmt::print("F  fault tol.   {}   ({})\n", m.fault_tolerance, m.fault_tolerance_method);
  fmt::print("C  cost         {:.4f}   (D x nominal degree; D x mean degree G: {:.4f})\n", m.cost, m.cost_mean_degree);
  if (b.width == 0)
    fmt::print("B  bisection    -   ({})\n", b.method);
  else
    fmt::print("B  bisection    {}{}   ({})\n", b.exact ? "" : "<= ", b.width, b.method);
  fmt::print("routed diameter {}\n", m.routed_diameter);
  fmt::print("routed mean     {:.4f}{}   (incl. self pairs: {:.4f})\n", m.routed_mean_distance,
             sampled ? fmt::format(" +- {:.4f}", m.routed_mean_distance_error) : "", m.routed_mean_distance_incl_self);
  fmt::print("buffer classes  {}   (used by the examined routes: {})\n", m.buffer_classes, m.classes_used);
  fmt::print("time            {:.3f} s\n", m.seconds);
}

TopologyMetrics metrics_of(const Topology& t, const TopoOptions& o) {
  MetricsOptions mo;
  mo.sample_sources = o.samples;
  mo.seed = o.seed;
  mo.force_all_pairs = o.all_pairs;
  return compute_metrics(t, mo);
}

void run_topo(const TopoOptions& o) {
  check_distinct_outputs({{"--json", o.json}, {"--dot", o.dot}});
  (void)check_memory_for("topo", o.spec, topo_footprint);
  const Topology t = TopologyRegistry::parse(o.spec);
  if (!o.dot.empty()) {
    if (t.nodes() > 100000) throw usage_error(fmt::format("--dot: {} nodes is too many to draw (at most 100000)", t.nodes()));
    std::ostringstream dot;
    write_dot(t, dot);
    if (o.dot == "-")
      std::cout << dot.str();
    else
      write_text_file(o.dot, dot.str(), "--dot");
    if (o.dot == "-") return;
  }
  const ThreadLimit limit(o.threads);
  const TopologyMetrics m = metrics_of(t, o);
  const Bisection b = bisection_width(t, o.seed);
  if (!o.json.empty()) {
    nlohmann::json config = option_config(o.cmd);
    config["threads"] = limit.threads;
    nlohmann::json j = provenance(config, o.seed, limit.threads);
    j.update(to_json(m));
    j["bisection"] = b.width == 0 ? nlohmann::json(nullptr) : nlohmann::json(b.width);
    j["bisection_exact"] = b.exact;
    j["bisection_method"] = b.method;
    write_json(o.json, j);
  }
  if (show_text(o.quiet, o.json)) print_metrics(m, b);
}

struct RouteOptions {
  CLI::App* cmd = nullptr;
  std::string spec, src, dst;
  std::string json;
  bool quiet = false;
  Routing routing = Routing::deterministic;
};

/// The path of a route: the JSON `rica route --json` writes (without provenance), and the text lines.
nlohmann::json route_of(const RouteOptions& o, std::string& text) {
  const Topology t = TopologyRegistry::parse(o.spec);
  const node_t s = t.parse_node(o.src), d = t.parse_node(o.dst);
  if (s >= t.pes() || d >= t.pes())
    throw usage_error(fmt::format("route: source and destination must be PEs (nodes 0..{})", t.pes() - 1));
  check_routing(t, o.routing);
  const bool adaptive = o.routing != Routing::deterministic;
  nlohmann::json hops = nlohmann::json::array();
  node_t cur = s;
  class_t cls = 0;
  for (std::uint64_t n = 0;; ++n) {
    if (n > t.nodes() * std::uint64_t{routing_classes(t, o.routing)}) throw std::logic_error("routing loop");
    // Adaptive: the path shown follows the escape hop (the route with every buffer full); the
    // candidates at each hop are listed beside it.
    // Valiant, UGAL-L/G, PAR: the packet (s, seq 0) under seed 0; UGAL's and PAR's escape is the minimal hop.
    Packet pk;
    pk.src = s, pk.dst = d;
    const CandidateSet cs = route_candidates(t, o.routing, cur, d, cls, &pk);
    const Hop h = cs.escape;
    if (h.delivers()) break;
    const Link l = t.out_link(cur, h.port());
    if (!l.present()) throw std::logic_error(fmt::format("route uses absent port {} at {}", h.port(), t.label(cur)));
    nlohmann::json hop = {{"from", t.label(cur)}, {"port", h.port()}, {"class", h.next_class()}, {"to", t.label(l.peer)},
                          {"in_port", l.in_port}};
    text += fmt::format("  {:>3}  {} --port {} [class {}]--> {}", n + 1, t.label(cur), h.port(), h.next_class(),
                        t.label(l.peer));
    if (adaptive) {
      nlohmann::json cand = nlohmann::json::array();
      std::string ctext;
      for (unsigned k = 0; k < cs.size(); ++k) {
        const Link cl = t.out_link(cur, cs[k].port());
        cand.push_back({{"port", cs[k].port()}, {"class", cs[k].next_class()}, {"to", t.label(cl.peer)}});
        ctext += fmt::format("{}port {} [class {}] -> {}", k ? ", " : "", cs[k].port(), cs[k].next_class(),
                             t.label(cl.peer));
      }
      hop["candidates"] = cand;
      text += fmt::format("   (escape; candidates: {})", ctext.empty() ? "none" : ctext);
    }
    text += "\n";
    hops.push_back(hop);
    cur = l.peer;
    cls = h.next_class();
  }
  return nlohmann::json{{"topology", t.spec()}, {"routing", to_string(o.routing)}, {"src", t.label(s)},
                        {"dst", t.label(d)}, {"hops", hops.size()}, {"path", hops}};
}

void run_route(const RouteOptions& o) {
  std::string text;
  const nlohmann::json path = route_of(o, text);
  if (!o.json.empty()) {
    nlohmann::json j = provenance(option_config(o.cmd), 0, 1);
    j.update(path);
    write_json(o.json, j);
  }
  if (show_text(o.quiet, o.json)) {
    const std::size_t n = path["hops"].get<std::size_t>();
    fmt::print("route {}: {} -> {}, {} hop{}{}\n{}", path["topology"].get<std::string>(), path["src"].get<std::string>(),
               path["dst"].get<std::string>(), n, n == 1 ? "" : "s",
               o.routing == Routing::deterministic ? ""
               : o.routing == Routing::valiant ? " (valiant: packet 0 of the source, seed 0)"
               : o.routing == Routing::adaptive
                   ? " (adaptive: the escape path, with the candidates)"
                   : fmt::format(" ({}: the minimal escape path, with the valiant candidate)", to_string(o.routing)),
               text);
  }
}

struct ListOptions {
  CLI::App* cmd = nullptr;
  std::string json;
  bool quiet = false;
};

template <class Entries>
nlohmann::json entries_json(const Entries& entries) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& e : entries) {
    nlohmann::json params = nlohmann::json::array();
    for (const auto& p : e.params)
      params.push_back({{"name", p.name}, {"accepts", p.accepts}, {"default", p.default_value}, {"help", p.help}});
    a.push_back({{"name", e.name}, {"summary", e.summary}, {"example", e.example}, {"params", params}});
  }
  return a;
}

void run_list(const ListOptions& o) {
  if (!o.json.empty()) {
    nlohmann::json j = provenance(option_config(o.cmd), 0, 1);
    j["topologies"] = entries_json(TopologyRegistry::available());
    j["traffic"] = entries_json(TrafficRegistry::available());
    j["traffic_files"] = {"matrix:FILE", "trace:FILE"};
    j["apps"] = entries_json(AppRegistry::available());
    nlohmann::json pol = nlohmann::json::array();
    for (const auto& [name, doc] : switch_policies()) pol.push_back({{"name", name}, {"summary", doc}});
    j["switch_policies"] = pol;
    nlohmann::json al = nlohmann::json::array(), sc = nlohmann::json::array();
    for (const auto& [name, doc] : allocators()) al.push_back({{"name", name}, {"summary", doc}});
    for (const auto& [name, doc] : schedulers()) sc.push_back({{"name", name}, {"summary", doc}});
    j["allocators"] = al;
    j["schedulers"] = sc;
    nlohmann::json routings = nlohmann::json::array();
    routings.push_back({{"name", "deterministic"}, {"topologies", "all"}, {"summary", "the topology's route()"}});
    for (const RoutingDoc& r : adaptive_routing_docs())
      routings.push_back({{"name", r.name}, {"topologies", r.topologies}, {"summary", r.summary},
                          {"extra_classes", r.classes_extra}});
    j["routings"] = routings;
    nlohmann::json eng = nlohmann::json::array();
    for (const EngineInfo& e : engines()) eng.push_back({{"name", e.name}, {"summary", e.doc}});
    j["engines"] = eng;
    write_json(o.json, j);
  }
  if (show_text(o.quiet, o.json)) {
    std::cout << TopologyRegistry::help_text() << "\n" << TrafficRegistry::help_text() << "\n"
              << AppRegistry::help_text() << "\nSwitch policies (rica os --policy a,b,...):\n\n";
    for (const auto& [name, doc] : switch_policies()) std::cout << fmt::format("  {:<10} {}\n", name, doc);
    std::cout << "\nAllocators (rica os-stream --alloc a,b,...):\n\n";
    for (const auto& [name, doc] : allocators()) std::cout << fmt::format("  {:<10} {}\n", name, doc);
    std::cout << "\nSchedulers (rica os-stream --sched a,b,...):\n\n";
    for (const auto& [name, doc] : schedulers()) std::cout << fmt::format("  {:<10} {}\n", name, doc);
    std::cout << "\nRoutings (--routing NAME, on every command that runs a machine):\n\n"
              << "  deterministic  every topology: its own route() (default)\n";
    for (const RoutingDoc& r : adaptive_routing_docs())
      std::cout << fmt::format("  {:<14} {}: {}\n", r.name, r.topologies, r.summary);
    std::cout << "\nEngines (--engine NAME):\n\n";
    for (const EngineInfo& e : engines()) std::cout << fmt::format("  {:<10} {}\n", e.name, e.doc);
  }
}

/// The options `rica topo` and topo_json() share (the files, --quiet and --threads are the CLI's).
void declare_topo_measures(CLI::App* topo, TopoOptions& o) {
  add_text(topo, "spec", o.spec, "Topology spec (see 'rica list')", "a topology spec (see 'rica list')");
  add_uint(topo, "--samples", o.samples, 1, 1u << 20, "Sources sampled when the network is too large for exact analysis");
  add_seed(topo, o.seed, "Seed of the sample");
  topo->add_flag("--all-pairs", o.all_pairs, "Ignore the topology's symmetry and product structure: every PE is a source");
}

void declare_route(CLI::App* route, RouteOptions& o) {
  add_text(route, "spec", o.spec, "Topology spec", "a topology spec (see 'rica list')")->required();
  add_text(route, "src", o.src, "Source PE: number or label, e.g. 0 or \"(0,0,0)\"", "a PE number or label")->required();
  add_text(route, "dst", o.dst, "Destination PE", "a PE number or label")->required();
  add_routing(route, o.routing);
}

}  // namespace

void add_topology_commands(CLI::App& app) {
  auto list_opt = std::make_shared<ListOptions>();
  auto* list = app.add_subcommand("list", "List every topology with its parameters (generated from the registry)");
  list_opt->cmd = list;
  add_json(list, list_opt->json, "Write every topology, traffic pattern and application with its parameters as JSON to FILE");
  add_quiet(list, list_opt->quiet);
  list->callback([list_opt] { run_list(*list_opt); });

  auto topo_opt = std::make_shared<TopoOptions>();
  auto* topo = app.add_subcommand("topo", "Static measures of a topology: the papers' ten measures, routed figures");
  topo_opt->cmd = topo;
  declare_topo_measures(topo, *topo_opt);
  add_json(topo, topo_opt->json, "Write the measures (with configuration and provenance) as JSON to FILE");
  add_quiet(topo, topo_opt->quiet);
  add_threads(topo, topo_opt->threads);
  add_output_file(topo, "--dot", topo_opt->dot, "Write Graphviz DOT to FILE (standard output: no measures)", true);
  topo->callback([topo_opt] { run_topo(*topo_opt); });

  auto route_opt = std::make_shared<RouteOptions>();
  auto* route = app.add_subcommand("route", "Print the self-routed path between two PEs");
  route_opt->cmd = route;
  declare_route(route, *route_opt);
  add_json(route, route_opt->json, "Write the path as JSON to FILE");
  add_quiet(route, route_opt->quiet);
  route->callback([route_opt] { run_route(*route_opt); });
}

nlohmann::json topo_json(const std::vector<std::string>& args) {
  TopoOptions o;
  parse_subcommand("topo", args, [&](CLI::App* c) { declare_topo_measures(c, o); });
  (void)check_memory_for("topo", o.spec, topo_footprint);
  return to_json(metrics_of(TopologyRegistry::parse(o.spec), o));
}

nlohmann::json route_json(const std::vector<std::string>& args) {
  RouteOptions o;
  parse_subcommand("route", args, [&](CLI::App* c) { declare_route(c, o); });
  std::string text;
  return route_of(o, text);
}

}  // namespace rica::cli
