#include "app_registry.hpp"

#include <fmt/format.h>

#include "broadcast.hpp"
#include "collective_app.hpp"
#include "mpi_replay.hpp"
#include "reduce.hpp"
#include "rica/defaults.hpp"
#include "sort.hpp"
#include "stencil.hpp"
#include "traffic.hpp"

namespace rica {

// The built-in groups of cmake/apps.cmake (apps/hpc): each defines builtin_apps_<id>().
#define RICA_APP_GROUP(id) std::vector<AppEntry> builtin_apps_##id();
#include "rica_builtin_apps.inc"
#undef RICA_APP_GROUP

namespace {

std::unique_ptr<App> make_reduce(const SpecArgs& a, const Topology&) {
  const unsigned rounds = a.uint("rounds");
  detail::check_range("app 'reduce'", "rounds", rounds, 1, 1u << 20);
  return std::make_unique<examples::TreeReduce>(rounds);
}

std::unique_ptr<App> make_broadcast(const SpecArgs& a, const Topology& t) {
  const unsigned source = a.uint("source");
  detail::check_range("app 'broadcast'", "source", source, 0, std::int64_t{t.pes()} - 1);
  const auto rule = a.choice("rule", {"flood", "tree"}) == 1 ? examples::BroadcastRule::tree
                                                             : examples::BroadcastRule::flood;
  return std::make_unique<examples::Broadcast>(t, source, rule);
}

// The application kernels (apps/sort, apps/stencil; docs/apps.md). `rica app` compares them
// across topologies; here they run on one, e.g. `rica run torus:32x32 --app stencil:grid=64x64`.
std::unique_ptr<App> make_sort_app(const SpecArgs& a, const Topology& t) {
  kernels::SortConfig c;
  c.algorithm = kernels::parse_sort_algorithm(a.text("algorithm"), a.what());
  c.keys = a.uint("keys");
  c.distribution = kernels::parse_distribution(a.text("dist"), a.what());
  if (a.has("file")) {
    c.file = a.text("file");
    c.file_keys = std::make_shared<const std::vector<std::uint32_t>>(kernels::read_keys(c.file));
  }
  c.keys_per_packet = a.uint("kpp");
  c.samples = a.uint("samples");
  c.map = kernels::parse_map(a.text("map"), a.what());
  if (a.has("pgrid")) c.pgrid = kernels::parse_grid(a.text("pgrid"), a.what());
  return kernels::make_sort(c, t);
}

std::unique_ptr<App> make_stencil_app(const SpecArgs& a, const Topology& t) {
  kernels::StencilConfig c;
  const kernels::ProcessGrid g = kernels::parse_grid(a.text("grid"), a.what());
  c.gx = g.px;
  c.gy = g.py;
  c.points = a.uint("points");
  c.iterations = a.uint("iterations");
  c.values_per_packet = a.uint("vpp");
  c.boundary = kernels::parse_boundary(a.text("boundary"), a.what());
  c.map = kernels::parse_map(a.text("map"), a.what());
  if (a.has("pgrid")) c.pgrid = kernels::parse_grid(a.text("pgrid"), a.what());
  c.validate(t.pes());
  return std::make_unique<kernels::Stencil>(c);
}

// The closed-loop replay of a recorded MPI program (apps/replay; docs/replay.md).
std::unique_ptr<App> make_replay(const SpecArgs& a, const Topology& t) {
  replay::ReplayConfig c;
  c.trace = a.text("trace");
  c.eager_bytes = parse_uint(a.text("eager_bytes"), a.what() + ": eager_bytes", 0, std::uint64_t{1} << 40);
  c.packet_bytes = parse_uint(a.text("packet_bytes"), a.what() + ": packet_bytes", 1, std::uint64_t{1} << 30);
  c.compute_scale = parse_real(a.text("compute_scale"), a.what() + ": compute_scale", 0, 1e15);
  c.map = a.text("map");
  if (a.has("collectives")) c.collectives = a.text("collectives");
  return std::make_unique<replay::MpiReplay>(c, t.pes());
}

std::vector<AppEntry> build() {
  return {
      {"reduce", "binomial-tree sum of one value per PE, broadcast back (docs/programming.md)", "reduce:rounds=5",
       {{"rounds", "1..2^20", "1", "reductions, one after the other"}}, "rounds", make_reduce},
      {"broadcast", "one PE's message to all: flooding over the PE graph (or its BFS tree); time, depth, duplicates",
       "broadcast:source=0,rule=flood",
       {{"source", "0..N-1", "0", "the broadcasting PE"},
        {"rule", "flood|tree", "flood",
         "flood: forward once to every neighbour (duplicates counted); tree: BFS spanning tree, N-1 messages"}},
       "source", make_broadcast},
      {"sort", "sort keys spread over the PEs: bitonic, shear or sample sort (docs/apps.md)",
       "sort:algorithm=sample,keys=100000,kpp=3",
       {{"algorithm", "bitonic|shear|sample", defaults::apps::sort_algorithm, "the sorting algorithm"},
        {"keys", "1..2^32-1", std::to_string(defaults::apps::sort_keys), "keys in all, generated from the run seed"},
        {"dist", "uniform|few|sorted|reversed", "uniform", "generated keys (few: 16 distinct values)"},
        {"file", "a readable file", "", "read the keys instead (whitespace-separated unsigned 32-bit)"},
        {"kpp", "1..3", std::to_string(defaults::apps::keys_per_packet), "keys per packet"},
        {"samples", "1..65536", std::to_string(defaults::apps::sort_samples), "sample sort: samples per PE"},
        {"map", "identity|embed|random", defaults::apps::map, "ranks to PEs"},
        {"pgrid", "PXxPY", "", "shear sort: the process grid (default: the most square)"}},
       "algorithm", make_sort_app},
      {"stencil", "2D Jacobi heat diffusion, halos exchanged by packets (docs/apps.md)",
       "stencil:grid=64x64,points=9,iterations=20",
       {{"grid", "GXxGY", defaults::apps::stencil_grid, "cells, block-decomposed over the process grid"},
        {"points", "5|9", std::to_string(defaults::apps::stencil_points), "4 or 8 neighbours"},
        {"iterations", "1..2^24", std::to_string(defaults::apps::stencil_iterations), "Jacobi iterations"},
        {"vpp", "1..2", std::to_string(defaults::apps::values_per_packet), "halo doubles per packet"},
        {"boundary", "periodic|fixed", "periodic", "the grid wraps, or is 0 outside"},
        {"map", "identity|embed|random", defaults::apps::map, "ranks to PEs"},
        {"pgrid", "PXxPY", "", "the process grid (default: the most square)"}},
       "grid", make_stencil_app},
      {"replay", "closed-loop replay of a recorded MPI program, an OTF2 archive (rica record; docs/replay.md)",
       "replay:trace=rica-trace,map=random",
       {{"trace", "an OTF2 archive", "", "its anchor file (NAME.otf2) or the directory holding it"},
        {"eager_bytes", "0..2^40", "4096", "standard sends above it wait for a clear-to-send (rendezvous)"},
        {"packet_bytes", "1..2^30", "16", "message bytes per packet (a message is at least one packet)"},
        {"compute_scale", "0..1e15", "1e9", "cycles per recorded second of compute between calls (0: none)"},
        {"map", replay::map_names, "identity", "ranks to PEs: identity, random (run seed), embed (greedy), a file"},
        {"collectives", "(KIND=ALG,...)", "", "collective algorithms, e.g. (allreduce=ring,bcast=binomial)"}},
       "trace", make_replay},
  };
}

/// build()'s entries, then every built-in group's, in the order of its CMake line.
std::vector<AppEntry> build_all() {
  std::vector<AppEntry> e = build();
#define RICA_APP_GROUP(id)                                  \
  for (AppEntry& entry : builtin_apps_##id()) {             \
    if (entry.example.empty()) entry.example = entry.name;  \
    e.push_back(std::move(entry));                          \
  }
#include "rica_builtin_apps.inc"
#undef RICA_APP_GROUP
  return e;
}

std::vector<AppEntry>& entries() {
  collectives::collectives_linked();  // the collectives register themselves (apps/collectives)
  static std::vector<AppEntry> e = build_all();
  return e;
}

}  // namespace

const std::vector<AppEntry>& AppRegistry::available() { return entries(); }

void register_app(AppEntry entry) {
  check_registered_name(entry.name, "application");
  if (!entry.make) throw usage_error(fmt::format("application '{}': no factory", entry.name));
  for (const auto& e : entries())
    if (e.name == entry.name) throw usage_error(fmt::format("application '{}' is already registered", entry.name));
  for (const auto& e : TrafficRegistry::available())
    if (e.name == entry.name)
      throw usage_error(fmt::format("application '{}': the name is a traffic pattern's (os --job takes both)",
                                    entry.name));
  if (entry.example.empty()) entry.example = entry.name;
  entries().push_back(std::move(entry));
}

void register_app(std::string name, std::function<std::unique_ptr<App>(const SpecArgs&, const Topology&)> make,
                  std::string summary, std::vector<ParamDoc> params, std::string example) {
  AppEntry e;
  e.positional = params.empty() ? "" : params.front().name;
  e.name = std::move(name);
  e.summary = std::move(summary);
  e.example = std::move(example);
  e.params = std::move(params);
  e.make = std::move(make);
  register_app(std::move(e));
}

const AppEntry& AppRegistry::by_name(std::string_view name) { return find_entry(available(), name, "application"); }

std::unique_ptr<App> AppRegistry::make(const std::string& spec, const Topology& topo) {
  const auto colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  const AppEntry& e = by_name(name);
  SpecArgs args(fmt::format("app '{}'", name), colon == std::string::npos ? "" : spec.substr(colon + 1));
  args.docs = &e.params;
  if (colon != std::string::npos && args.raw().empty())
    throw usage_error(fmt::format("app '{}': nothing after ':' (see 'rica list')", name));
  // A bare name takes every default (parsing "" would ask for a positional value).
  if (!args.raw().empty()) args.parse(args.raw(), e.positional);
  return e.make(args, topo);
}

std::string AppRegistry::help_text() {
  std::string out = "Applications (rica run <topology> --app name[:args]):\n";
  for (const auto& e : available()) {
    out += fmt::format("\n  {:<10} {}\n             e.g. {}\n", e.name, e.summary, e.example);
    out += param_help(e.params, e.positional);
  }
  return out;
}

}  // namespace rica
