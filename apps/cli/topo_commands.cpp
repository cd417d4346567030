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
#include "rica/io.hpp"
#include "rica/defaults.hpp"
#include "rica/metrics.hpp"
#include "rica/os.hpp"
#include "rica/registry.hpp"
#include "app_registry.hpp"
#include "traffic.hpp"

namespace rica::cli {
namespace {

struct TopoOptions {
  std::string spec = defaults::topology;
  bool json = false;
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

void print_metrics(const TopologyMetrics& m) {
  const bool sampled = m.method == "sampled";
  fmt::print("topology        {}\n", m.spec);
  fmt::print("PEs / nodes     {} / {}{}\n", m.pes, m.nodes, m.direct ? "" : " (indirect: distances in switches traversed)");
  if (m.method_detail.empty())
    fmt::print("method          {} ({} source{}){}\n", m.method, m.sources, m.sources == 1 ? "" : "s",
               sampled ? fmt::format(", seed {}", m.seed) : "");
  else
    fmt::print("method          {}: {}\n", m.method, m.method_detail);
  fmt::print("G  degree       {:.4f}   (max in {} + out {})\n", m.degree, m.degree_in, m.degree_out);
  fmt::print("L  links        {}\n", m.links);
  fmt::print("D  diameter     {}{}\n", m.diameter, sampled ? " (lower bound)" : "");
  fmt::print("d  mean dist    {:.4f}{}   (incl. self pairs: {:.4f})\n", m.mean_distance,
             sampled ? fmt::format(" +- {:.4f}", m.mean_distance_error) : "", m.mean_distance_incl_self);
  fmt::print("s  normalised   {:.4f}\n", m.normalized_distance);
  fmt::print("t  traffic dens {:.4f}\n", m.traffic_density);
  fmt::print("r  avg relay    {:.4f}\n", m.avg_relay);
  fmt::print("R  max relay    {:.4f}\n", m.max_relay);
  fmt::print("F  fault tol.   {}   ({})\n", m.fault_tolerance, m.fault_tolerance_method);
  fmt::print("C  cost         {:.4f}\n", m.cost);
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
  const TopologyMetrics m = metrics_of(t, o);
  if (o.json)
    std::cout << to_json(m).dump(2) << "\n";
  else
    print_metrics(m);
}

struct RouteOptions {
  std::string spec, src, dst;
  bool json = false;
};

/// The path of a route: the JSON `rica route --json` prints, and the text lines.
nlohmann::json route_of(const RouteOptions& o, std::string& text) {
  const Topology t = TopologyRegistry::parse(o.spec);
  const node_t s = t.parse_node(o.src), d = t.parse_node(o.dst);
  if (s >= t.pes() || d >= t.pes())
    throw usage_error(fmt::format("route: source and destination must be PEs (nodes 0..{})", t.pes() - 1));
  nlohmann::json hops = nlohmann::json::array();
  node_t cur = s;
  class_t cls = 0;
  for (std::uint64_t n = 0;; ++n) {
    if (n > t.nodes()) throw std::logic_error("routing loop");
    const Hop h = t.route(cur, d, cls);
    if (h.delivers()) break;
    const Link l = t.out_link(cur, h.port());
    if (!l.present()) throw std::logic_error(fmt::format("route uses absent port {} at {}", h.port(), t.label(cur)));
    hops.push_back({{"from", t.label(cur)}, {"port", h.port()}, {"class", h.next_class()}, {"to", t.label(l.peer)},
                    {"in_port", l.in_port}});
    text += fmt::format("  {:>3}  {} --port {} [class {}]--> {}\n", n + 1, t.label(cur), h.port(), h.next_class(),
                        t.label(l.peer));
    cur = l.peer;
    cls = h.next_class();
  }
  return nlohmann::json{{"topology", t.spec()}, {"src", t.label(s)}, {"dst", t.label(d)},
                        {"hops", hops.size()}, {"path", hops}};
}

void run_route(const RouteOptions& o) {
  std::string text;
  const nlohmann::json j = route_of(o, text);
  if (o.json) {
    std::cout << j.dump(2) << "\n";
  } else {
    const std::size_t n = j["hops"].get<std::size_t>();
    fmt::print("route {}: {} -> {}, {} hop{}\n{}", j["topology"].get<std::string>(), j["src"].get<std::string>(),
               j["dst"].get<std::string>(), n, n == 1 ? "" : "s", text);
  }
}

void declare_topo(CLI::App* topo, TopoOptions& o, bool files) {
  add_text(topo, "spec", o.spec, "Topology spec (see 'rica list')", "a topology spec (see 'rica list')");
  if (files) {
    topo->add_flag("--json", o.json, "Print JSON instead of text");
    add_output_file(topo, "--dot", o.dot, "Write Graphviz DOT to FILE ('-' = stdout, then no measures)");
  }
  add_uint(topo, "--samples", o.samples, 1, 1u << 20, "Sources sampled when the network is too large for exact analysis");
  add_seed(topo, o.seed, "Seed of the sample");
  topo->add_flag("--all-pairs", o.all_pairs, "Ignore the topology's symmetry and product structure: every PE is a source");
}

void declare_route(CLI::App* route, RouteOptions& o) {
  route->add_option("spec", o.spec, "Topology spec")->required();
  route->add_option("src", o.src, "Source PE: number or label, e.g. 0 or \"(0,0,0)\"")->required();
  route->add_option("dst", o.dst, "Destination PE")->required();
}

}  // namespace

void add_topology_commands(CLI::App& app) {
  auto* list = app.add_subcommand("list", "List every topology with its parameters (generated from the registry)");
  list->callback([] {
    std::cout << TopologyRegistry::help_text() << "\n" << TrafficRegistry::help_text() << "\n"
              << AppRegistry::help_text() << "\nSwitch policies (rica os --policy a,b,...):\n\n";
    for (const auto& [name, doc] : switch_policies()) std::cout << fmt::format("  {:<10} {}\n", name, doc);
  });

  auto topo_opt = std::make_shared<TopoOptions>();
  auto* topo = app.add_subcommand("topo", "Static measures of a topology: the papers' ten measures, routed figures");
  declare_topo(topo, *topo_opt, true);
  topo->callback([topo_opt] { run_topo(*topo_opt); });

  auto route_opt = std::make_shared<RouteOptions>();
  auto* route = app.add_subcommand("route", "Print the self-routed path between two PEs");
  declare_route(route, *route_opt);
  route->add_flag("--json", route_opt->json, "Print JSON");
  route->callback([route_opt] { run_route(*route_opt); });
}

nlohmann::json topo_json(const std::vector<std::string>& args) {
  TopoOptions o;
  parse_subcommand("topo", args, [&](CLI::App* c) { declare_topo(c, o, false); });
  return to_json(metrics_of(TopologyRegistry::parse(o.spec), o));
}

nlohmann::json route_json(const std::vector<std::string>& args) {
  RouteOptions o;
  parse_subcommand("route", args, [&](CLI::App* c) { declare_route(c, o); });
  std::string text;
  return route_of(o, text);
}

}  // namespace rica::cli
