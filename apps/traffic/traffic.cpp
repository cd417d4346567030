// The traffic registry: every pattern, its documentation, and the spec parser (traffic.hpp).
#include "traffic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>

namespace rica {
namespace {

using traffic::PeSpace;
using traffic::Pattern;

double real_param(const SpecArgs& a, const std::string& name) {
  const std::string t = a.text(name);
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || p != t.data() + t.size())
    throw usage_error(fmt::format("{}: parameter '{}' = '{}' is not a number", a.what(), name, t));
  return v;
}

template <class T>
Pattern plain(const SpecArgs&, const PeSpace& s, std::uint64_t) {
  return T(s);
}
Pattern make_hotspot(const SpecArgs& a, const PeSpace& s, std::uint64_t) {
  return traffic::Hotspot(s, real_param(a, "fraction"), a.uint("hot"));
}
Pattern make_partitioned(const SpecArgs& a, const PeSpace& s, std::uint64_t) {
  return traffic::Partitioned(s, static_cast<std::uint32_t>(a.uint("parts")));
}
Pattern make_randperm(const SpecArgs&, const PeSpace& s, std::uint64_t seed) { return traffic::RandPerm(s, seed); }

/// Parameters whose value is a real number (canonical() reformats them as such).
bool is_real(const std::string& name) { return name == "fraction"; }

std::vector<TrafficEntry> build_entries() {
  const std::string pow2 = "N a power of two";
  return {
      {"uniform", "uniform random: each packet to one of the other N-1 PEs", "uniform", "", {}, "", false,
       plain<traffic::Uniform>},
      {"quarter", "1/4 partition: four partitions by address (PE / (N/4)), uniform inside the source's",
       "quarter", "N divisible by 4, N >= 8", {}, "", false, plain<traffic::Quarter>},
      {"partition", "partition-local uniform: the topology's K partitions (rica partition --parts K), uniform "
       "inside the source's", "partition:parts=64", "a topology its partition rule cuts into K parts of >= 2 PEs",
       {{"parts", "2..N/2", "4", "number of partitions K"}}, "parts", false, make_partitioned},
      {"hotspot", "hot spot: `fraction` of the packets to one PE, the rest uniform",
       "hotspot:fraction=0.05,hot=0", "",
       {{"fraction", "0..1 (real)", fmt::format("{}", defaults::traffic::hotspot_fraction),
         "share of packets sent to the hot PE"},
        {"hot", "0..N-1", "0", "the hot PE"}},
       "fraction", false, make_hotspot},
      {"mesh", "mesh emulation (closed loop): send to each logical neighbour, wait for each; packets/4 rounds",
       "mesh:wrap=0", "N = side^2, side >= 2 (a side x side mesh laid on the PEs by address)",
       {{"wrap", "0|1", "1",
         "1: wrapping, 4 neighbours each; 0: not, border PEs have 2 or 3 (4 side (side-1) packets a round)"}},
       "wrap", true, nullptr, PacedSchedule{4, PacedMeshEmulation::make}},
      {"localized", "per coordinate of range k: +-round(Exp(mean (k-1)/2)) mod k (no coordinates: address)",
       "localized", "", {}, "", false, plain<traffic::Localized>},
      {"transpose", "transpose: (x,y) -> (y,x) on a square 2D shape, else swap the address bit halves",
       "transpose", "shape AxA, or N = 2^(2k)", {}, "", false, plain<traffic::Transpose>},
      {"bitcomp", "bit complement: every address bit flipped", "bitcomp", pow2, {}, "", false,
       plain<traffic::BitComplement>},
      {"bitrev", "bit reversal of the address", "bitrev", pow2, {}, "", false, plain<traffic::BitReverse>},
      {"shuffle", "perfect shuffle: the address rotated left by one bit", "shuffle", pow2, {}, "", false,
       plain<traffic::Shuffle>},
      {"tornado", "tornado: per coordinate x -> x + ceil(k/2) - 1 mod k", "tornado", "a coordinate of range >= 3",
       {}, "", false, plain<traffic::Tornado>},
      {"neighbor", "nearest neighbour: first coordinate + 1 mod its range", "neighbor",
       "first coordinate range >= 2", {}, "", false, plain<traffic::Neighbor>},
      {"randperm", "random permutation of the PEs, drawn from the run seed; fixed points send nothing",
       "randperm", "", {}, "", false, make_randperm},
  };
}

struct Parsed {
  const TrafficEntry* entry;
  SpecArgs args;
};

std::string param_names(const TrafficEntry& e) {
  if (e.params.empty()) return "none";
  std::vector<std::string> k;
  for (const auto& p : e.params) k.push_back(p.name);
  return fmt::format("{}", fmt::join(k, ", "));
}

Parsed parse_spec(const std::string& spec) {
  if (spec.empty()) throw usage_error("empty traffic spec; see 'rica list'");
  const auto colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  const std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  const TrafficEntry& e = TrafficRegistry::by_name(name);
  Parsed out{&e, SpecArgs(fmt::format("traffic '{}'", name), rest)};
  SpecArgs& args = out.args;
  args.docs = &e.params;
  if (colon != std::string::npos && rest.empty())
    throw usage_error(fmt::format("traffic '{}': nothing after ':' (parameters: {})", name, param_names(e)));
  if (!rest.empty()) args.parse(rest, e.positional);
  return out;
}

std::string canonical_of(const Parsed& p) {
  const TrafficEntry& e = *p.entry;
  if (e.params.empty()) return e.name;
  std::vector<std::string> kv;
  if (e.user) {  // a user's parameters: their text as given (the default when absent)
    for (const auto& d : e.params)
      if (p.args.has(d.name) || !d.default_value.empty()) kv.push_back(fmt::format("{}={}", d.name, p.args.text(d.name)));
    return kv.empty() ? e.name : fmt::format("{}:{}", e.name, fmt::join(kv, ","));
  }
  for (const auto& d : e.params) {
    const std::string v = is_real(d.name)       ? fmt::format("{}", real_param(p.args, d.name))
                          : d.accepts == "0|1" ? fmt::format("{}", p.args.choice(d.name, {"0", "1"}))
                                               : fmt::format("{}", p.args.uint(d.name));
    kv.push_back(fmt::format("{}={}", d.name, v));
  }
  return fmt::format("{}:{}", e.name, fmt::join(kv, ","));
}

/// The FILE of "matrix:FILE" / "trace:FILE" (kind = "matrix" / "trace"), nothing for other specs.
std::optional<std::string> file_traffic(const std::string& spec, const std::string& kind) {
  if (!spec.starts_with(kind + ":")) return std::nullopt;
  std::string file = spec.substr(kind.size() + 1);
  if (file.empty()) throw usage_error(fmt::format("traffic '{}:': give a file, e.g. {}:examples/{}.csv", kind, kind, kind));
  return file;
}

Pattern pattern_of(const Parsed& p, const PeSpace& space, std::uint64_t seed) {
  if (p.entry->closed_loop)
    throw usage_error(fmt::format("traffic '{}' is closed loop: it has no destination function", p.entry->name));
  return p.entry->pattern(p.args, space, seed);
}

std::vector<TrafficEntry>& entries() {
  static std::vector<TrafficEntry> e = build_entries();
  return e;
}

}  // namespace

const std::vector<TrafficEntry>& TrafficRegistry::available() { return entries(); }

void register_traffic(std::string name, DestinationFactory make, bool random, std::string summary,
                      std::vector<ParamDoc> params, std::string requirement, std::string example) {
  check_registered_name(name, "traffic pattern");
  if (!make) throw usage_error(fmt::format("traffic pattern '{}': no factory", name));
  for (const auto& e : entries())
    if (e.name == name) throw usage_error(fmt::format("traffic pattern '{}' is already registered", name));
  TrafficEntry e;
  e.positional = params.empty() ? "" : params.front().name;
  e.example = example.empty() ? name : std::move(example);
  e.summary = std::move(summary);
  e.requirement = std::move(requirement);
  e.params = std::move(params);
  e.user = true;
  e.pattern = [label = name, make = std::move(make), random](const SpecArgs& a, const PeSpace& space,
                                                             std::uint64_t seed) -> Pattern {
    traffic::Custom c{label, random, space.pes, make(a, space, seed)};
    if (!c.fn) throw usage_error(fmt::format("traffic '{}': the factory returned no destination function", label));
    return c;
  };
  e.name = std::move(name);
  entries().push_back(std::move(e));
}

const TrafficEntry& TrafficRegistry::by_name(std::string_view name) { return find_entry(available(), name, "traffic pattern"); }

std::unique_ptr<App> TrafficRegistry::make(const std::string& spec, const Topology& topo, const TrafficOptions& opt) {
  return make(spec, PeSpace::of(topo), opt);
}

std::unique_ptr<App> TrafficRegistry::make(const std::string& spec, const PeSpace& space, const TrafficOptions& opt) {
  if (const auto file = file_traffic(spec, "matrix"))
    return std::make_unique<MatrixTraffic>(MatrixTraffic::load(*file, space.pes, opt));
  if (const auto file = file_traffic(spec, "trace"))
    return std::make_unique<TraceReplay>(TraceReplay::load(*file, space.pes, opt));
  if (auto mesh = mesh_layout(spec, space)) return std::make_unique<MeshEmulation>(*mesh, opt);
  const Parsed p = parse_spec(spec);
  return std::make_unique<OpenLoopTraffic>(pattern_of(p, space, opt.seed), canonical_of(p), opt);
}

traffic::Pattern TrafficRegistry::pattern(const std::string& spec, const PeSpace& space, std::uint64_t seed) {
  if (file_traffic(spec, "matrix") || file_traffic(spec, "trace"))
    throw usage_error(fmt::format("traffic '{}': a file's traffic has no destination function here; give a pattern "
                                  "(see 'rica list')", spec));
  return pattern_of(parse_spec(spec), space, seed);
}

traffic::Pattern TrafficRegistry::pattern(const std::string& spec, const Topology& topo, std::uint64_t seed) {
  return pattern(spec, PeSpace::of(topo), seed);
}

std::string TrafficRegistry::canonical(const std::string& spec) {
  if (file_traffic(spec, "matrix") || file_traffic(spec, "trace")) return spec;
  return canonical_of(parse_spec(spec));
}

std::optional<traffic::MeshLayout> TrafficRegistry::mesh_layout(const std::string& spec, const PeSpace& space) {
  if (file_traffic(spec, "matrix") || file_traffic(spec, "trace")) return std::nullopt;
  const Parsed p = parse_spec(spec);
  if (!p.entry->closed_loop) return std::nullopt;
  return traffic::MeshLayout(space, p.args.choice("wrap", {"0", "1"}) == 1);
}

const PacedSchedule* TrafficRegistry::paced(const std::string& spec) {
  if (file_traffic(spec, "matrix") || file_traffic(spec, "trace")) return nullptr;
  const Parsed p = parse_spec(spec);
  return p.entry->paced ? &*p.entry->paced : nullptr;
}

std::unique_ptr<App> TrafficRegistry::make_paced(const std::string& spec, const PeSpace& space, double rate,
                                                 std::uint64_t max_rounds) {
  if (file_traffic(spec, "matrix") || file_traffic(spec, "trace")) return nullptr;
  const Parsed p = parse_spec(spec);
  return p.entry->paced ? p.entry->paced->make(p.args, space, rate, max_rounds) : nullptr;
}

std::string TrafficRegistry::help_text() {
  std::string out = fmt::format(
      "Traffic patterns (spec = name[:args]; args = positional value and/or key=value,...).\n"
      "Open-loop patterns: every PE sends `packets` packets (default {}), one per injection opportunity\n"
      "with probability `rate` (default {}) while fewer than --source-queue (default {}) of its packets\n"
      "wait to enter the network. `--burst ON:OFF` makes every source on/off (Markov-modulated). PEs a\n"
      "deterministic pattern maps to themselves send nothing.\n"
      "From files (docs/traffic.md): matrix:FILE (a PE x PE rate matrix or a src,dst,rate list, e.g.\n"
      "matrix:examples/matrix8.txt) and trace:FILE (time,src,dst,words replayed exactly, e.g.\n"
      "trace:examples/trace8.csv; rica run --trace output is accepted).\n",
      defaults::traffic::packets, defaults::traffic::rate, defaults::traffic::backlog);
  for (const auto& e : available()) {
    out += fmt::format("\n  {:<10} {}\n", e.name, e.summary);
    if (!e.requirement.empty()) out += fmt::format("             needs {}\n", e.requirement);
    if (!e.params.empty()) out += fmt::format("             e.g. {}\n", e.example);
    out += param_help(e.params, e.positional);
  }
  return out;
}

}  // namespace rica
