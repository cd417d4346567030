// The topology registry: every topology, its documentation, and the spec parser.
#include "rica/registry.hpp"
#include "rica/user_topology.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cdg.hpp"

namespace rica {
namespace {

// ---- Spec text helpers ------------------------------------------------------------------------

/// Splits at every `sep` outside parentheses. Throws on unbalanced parentheses.
std::vector<std::string> split_top(std::string_view s, char sep, const std::string& what) {
  std::vector<std::string> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && --depth < 0) throw usage_error(fmt::format("{}: unbalanced ')' in '{}'", what, s));
    if (s[i] == sep && depth == 0) {
      out.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0) throw usage_error(fmt::format("{}: unbalanced '(' in '{}'", what, s));
  out.emplace_back(s.substr(start));
  return out;
}

std::string strip_parens(std::string s) {
  while (s.size() >= 2 && s.front() == '(' && s.back() == ')') {
    // Only strip when the outer pair matches itself.
    int depth = 0;
    bool outer = true;
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
      if (s[i] == '(') ++depth;
      if (s[i] == ')') --depth;
      if (depth == 0) { outer = false; break; }
    }
    if (!outer) break;
    s = s.substr(1, s.size() - 2);
  }
  return s;
}

// ---- Factories ----------------------------------------------------------------------------------

DceWiring wiring(const SpecArgs& a) {
  return a.choice("wiring", {"flip", "parallel"}) == 0 ? DceWiring::flip_mod : DceWiring::parallel;
}
Topology make_dce(const SpecArgs& a) {
  const unsigned n = a.uint("n");
  return DceTopology(n, a.uint("delta"), a.has("S") ? a.uint("S") : n, wiring(a), "dce");
}
Topology make_cbanyan(const SpecArgs& a) {
  const unsigned n = a.uint("n");
  return DceTopology(n, 1, a.has("S") ? a.uint("S") : n, wiring(a), "cbanyan");
}
Topology make_ccc(const SpecArgs& a) {
  const unsigned n = a.uint("n");
  return DceTopology(n, 0, a.has("S") ? a.uint("S") : n, DceWiring::flip_mod, "ccc");
}
Topology make_comega(const SpecArgs& a) {
  const unsigned n = a.uint("n");
  return CircularOmegaTopology(n, a.has("S") ? a.uint("S") : n);
}
/// MDCE with the RWC-1 §3.5 variants: ring length S, cluster bits X, freed cluster links.
Topology make_mdce_family(const SpecArgs& a, unsigned b, unsigned c, unsigned p, const char* name) {
  const unsigned n = a.uint("n");
  const unsigned S = a.has("S") ? a.uint("S") : n, X = a.has("X") ? a.uint("X") : n;
  detail::check_range(name, "S", S, n, MdceTopology::max_ring);
  detail::check_range(name, "X", X, 1, n);
  const auto freed =
      a.has("freed") && a.choice("freed", {"none", "parallel"}) == 1 ? MdceFreed::parallel : MdceFreed::none;
  return MdceTopology(b, c, p, n, name, S, X, freed);
}
Topology make_mdce(const SpecArgs& a) { return make_mdce_family(a, a.uint("B"), a.uint("C"), a.uint("P"), "mdce"); }
Topology make_cb2(const SpecArgs& a) { return make_mdce_family(a, 2, 0, 1, "cb2"); }
Topology make_cccb(const SpecArgs& a) { return make_mdce_family(a, 1, 1, 1, "cccb"); }
Topology make_mxx(const SpecArgs& a) {
  return PeriodicTopology::mxx(a.uint("N"), a.choice("route", {"minimal", "paper"}) == 1 ? MxxRoute::paper
                                                                                       : MxxRoute::minimal);
}
Topology make_mesh8(const SpecArgs& a) { return Neighbor8Topology(a.uint("n"), false); }
Topology make_torus8(const SpecArgs& a) {
  const bool distance = a.has("classes") && a.choice("classes", {"wrap", "distance"}) == 1;
  return Neighbor8Topology(a.uint("n"), true, distance ? Neighbor8Classes::distance : Neighbor8Classes::wrap);
}
Topology make_mesh(const SpecArgs& a) { return CubeTopology(a.shape("shape"), false); }
Topology make_torus(const SpecArgs& a) { return CubeTopology(a.shape("shape"), true); }
Topology make_kary(const SpecArgs& a) {
  const unsigned k = a.uint("k"), n = a.uint("n");
  detail::check_range("kary", "n", n, 1, CubeTopology::max_dims);
  return CubeTopology(Shape(n, k), true);
}
Topology make_hypercube(const SpecArgs& a) { return HypercubeTopology(a.uint("n")); }
Topology make_debruijn(const SpecArgs& a) {
  const auto r = a.choice("route", {"overlap", "shift"});
  const DeBruijnTopology t(a.uint("n"), true, r == 0 ? DeBruijnRouting::overlap : DeBruijnRouting::shift);
  return a.choice("spares", {"none", "necklace"}) == 1 ? t.with_necklace_spares() : t;
}
Topology make_ubruijn(const SpecArgs& a) {
  const auto r = a.choice("route", {"table", "minshift", "simple"});
  const auto improved = a.choice("improved", {"0", "1"});
  constexpr DeBruijnRouting routes[] = {DeBruijnRouting::table, DeBruijnRouting::minshift, DeBruijnRouting::simple};
  const DeBruijnTopology t(a.uint("n"), false, routes[r], improved == 1);
  return a.choice("spares", {"none", "necklace"}) == 1 ? t.with_necklace_spares() : t;
}
Topology make_shuffle(const SpecArgs& a) { return make_shuffle_exchange(a.uint("n")); }
Topology make_msn(const SpecArgs& a) {
  const Shape s = a.shape("shape");
  if (s.size() != 2) throw usage_error(fmt::format("msn: parameter 'shape' = '{}' must be RxC", a.text("shape")));
  return PeriodicTopology::msn(s[0], s[1]);
}
Topology make_omega(const SpecArgs& a) { return OmegaTopology(a.uint("n")); }
Topology make_fattree(const SpecArgs& a) { return FatTreeTopology(a.uint("n")); }
/// `classes=K` given: the channel dependency check runs on the built network (when pes x nodes
/// <= 2^24) and refuses a K whose dependency graph has a cycle, naming the cycle.
/// An explicit `classes=K` (0 is refused here: the constructors take 0 for the derived count).
unsigned explicit_classes(const SpecArgs& a, const char* name) {
  if (!a.has("classes")) return 0;
  const unsigned k = a.uint("classes");
  detail::check_range(name, "classes", k, 1, 2);
  return k;
}
template <class T>
Topology certified(const T& t, const SpecArgs& a, const char* name) {
  if (!a.has("classes")) return t;
  if (std::uint64_t{t.pes()} * t.nodes() <= UserTopology::check_auto_limit) {
    detail::certify_routing(t, fmt::format("{}: classes={}", name, t.buffer_classes()));
  } else if (t.buffer_classes() < t.derived_classes()) {
    throw usage_error(fmt::format("{}: parameter 'classes' = {} is below the {} minimal routing needs (the channel "
                                  "dependency check runs up to pes x nodes = 2^24; this network is larger)",
                                  name, t.buffer_classes(), t.derived_classes()));
  }
  return t;
}
Topology make_dragonfly(const SpecArgs& a) {
  const unsigned h = a.uint("h");
  const unsigned p = a.has("p") ? a.uint("p") : h, ra = a.has("a") ? a.uint("a") : 2 * h;
  const auto arr = a.choice("arrangement", {"absolute", "relative"}) == 1 ? DragonflyArrangement::relative
                                                                           : DragonflyArrangement::absolute;
  return certified(DragonflyTopology(ra, p, h, arr, explicit_classes(a, "dragonfly")), a, "dragonfly");
}
Topology make_hyperx(const SpecArgs& a) {
  const Shape s = a.shape("shape");
  return HyperXTopology(s, a.has("T") ? a.uint("T") : (s.empty() ? 1 : s[0]));
}
Topology make_slimfly(const SpecArgs& a) {
  const unsigned q = a.uint("q");
  const int d = q % 4 == 1 ? 1 : q % 4 == 3 ? -1 : 0;
  const unsigned k = static_cast<unsigned>((3 * static_cast<long>(q) - d) / 2);  // router degree; the type checks q
  return certified(SlimFlyTopology(q, a.has("p") ? a.uint("p") : (k + 1) / 2, explicit_classes(a, "slimfly")), a,
                   "slimfly");
}
Topology make_product(const SpecArgs& a) {
  const auto parts = split_top(a.raw(), '*', "product");
  if (parts.size() != 2 || parts[0].empty() || parts[1].empty())
    throw usage_error(fmt::format("product: expected 'product:<a>*<b>' with two topology specs (got '{}')", a.raw()));
  return ProductTopology(TopologyRegistry::parse(strip_parens(parts[0])),
                         TopologyRegistry::parse(strip_parens(parts[1])));
}
Topology make_hier(const SpecArgs& a) {
  const auto parts = split_top(a.raw(), '/', "hier");
  if (parts.size() < 2 || parts.size() > 3 || parts[0].empty() || parts[1].empty())
    throw usage_error(
        fmt::format("hier: expected 'hier:<cluster>/<global>[/iface=K]' (got '{}')", a.raw()));
  node_t iface = 0;
  if (parts.size() == 3) {
    if (parts[2].rfind("iface=", 0) != 0)
      throw usage_error(fmt::format("hier: third part '{}' must be iface=K", parts[2]));
    SpecArgs ia("hier", "");
    ia.values.emplace_back("iface", parts[2].substr(6));
    iface = ia.uint("iface");
  }
  return HierTopology(TopologyRegistry::parse(strip_parens(parts[0])),
                      TopologyRegistry::parse(strip_parens(parts[1])), iface);
}
Topology make_file(const SpecArgs& a) {
  if (a.raw().empty()) throw usage_error("file: expected 'file:<path>' naming an edge-list file");
  return load_edge_list_file(a.raw());
}

TopologySize size_of(const Topology& t) {
  return {static_cast<double>(t.nodes()), static_cast<double>(t.pes()), t.ports(), t.buffer_classes()};
}

TopologySize size_mxx(const SpecArgs& a) {
  const unsigned n = a.uint("N");
  detail::check_range("mxx", "N", n, 8, 4096);  // PeriodicTopology::mxx's bounds, refused first
  const double nodes = static_cast<double>(n) * n;
  return {nodes, nodes, 8, 1};  // 8 ports: 4 torus links, 4 bypass links; classes: the table's diameter
}
TopologySize size_msn(const SpecArgs& a) {
  const Shape s = a.shape("shape");
  if (s.size() != 2) return size_of(make_msn(a));  // make_msn says why
  detail::check_range("msn", "rows", s[0], 4, 4096);  // PeriodicTopology::msn's bounds, refused first
  detail::check_range("msn", "cols", s[1], 4, 4096);
  const double n = static_cast<double>(s[0]) * s[1];
  return {n, n, 2, 1};
}
const ParamDoc p_n_dce{"n", "1..24", "", "address bits: 2^n rows"};
const ParamDoc p_ring{"S", "n..64", "n", "ring length (columns); S > n adds stages (e.g. 8x128 = n=7,S=8)"};
const ParamDoc p_wiring{"wiring", "flip|parallel", "flip",
                        "columns x >= n: cross link flips bit x mod n (flip), or is a 2nd parallel link"};
const ParamDoc p_n_mdce{"n", "1..24", "", "address bits: every dimension but the ring has 2^n values"};
const ParamDoc p_ring_mdce{"S", "n..64", "n", "ring length (columns x0); S = 2n joins two c-Banyans end to end (RWC-1 §3.5)"};
const ParamDoc p_x_mdce{"X", "1..n", "n", "cluster-address bits (dimension 1); X = n-1 halves the clusters"};
const ParamDoc p_freed{"freed", "none|parallel", "none",
                       "X < n: the freed cluster links stay unused, or become parallel links (C = 0 only)"};

std::vector<TopologyEntry> build_entries() {
  return {
      {"cbanyan", "circular Banyan = DCE(n, 1, flip); 3 spiral buffer classes", "cbanyan:n=7,S=8",
       {p_n_dce, p_ring, p_wiring}, "n", make_cbanyan},
      {"ccc", "cube-connected cycles, unidirectional rings = DCE(n, 0, flip)", "ccc:n=3", {p_n_dce, p_ring}, "n",
       make_ccc},
      {"comega", "circular Omega (EM-4): Omega stages wrapped into rings; tag routing, 3 spiral classes",
       "comega:n=7,S=8",
       {{"n", "2..24", "", "address bits: 2^n switch rows"},
        {"S", "n..64", "n", "stages (columns); the shuffle wiring repeats, so S > n needs no choice"}},
       "n", make_comega},
      {"dce", "Directed Cycles Ensemble DCE(n, delta, flip)", "dce:n=4,delta=2",
       {p_n_dce, {"delta", "0..S-1", "1", "column step of the cross link"}, p_ring, p_wiring}, "n", make_dce},
      {"mdce", "(B,C,P)-MDCE: product of DCEs sharing their rings", "mdce:B=1,C=1,P=1,n=4",
       {{"B", "0..8", "", "c-Banyan-type dimensions (delta 1)"},
        {"C", "0..8", "", "CCC-type dimensions (delta 0)"},
        {"P", "1..8", "1", "parallel (ring) link multiplicity"},
        p_n_mdce, p_ring_mdce, p_x_mdce, p_freed},
       "", make_mdce},
      {"cccb", "cube-connected circular Banyans = (1,1,1)-MDCE (RWC-1)", "cccb:n=4",
       {p_n_mdce, p_ring_mdce, p_x_mdce}, "n", make_cccb},
      {"cb2", "(CB)^2 = (2,0,1)-MDCE (RWC-1)", "cb2:n=4", {p_n_mdce, p_ring_mdce, p_x_mdce, p_freed}, "n", make_cb2},
      {"mxx", "M_{x+x}: N x N torus with recursive bypass tori; table routing", "mxx:32",
       {{"N", "multiple of 4, 8..4096", "", "side of the torus"},
        {"route", "minimal|paper", "minimal",
         "minimal = shortest paths; paper = the paper's own rule (its 2.2, generalised; N <= 1024)"}},
       "N", make_mxx, size_mxx},
      {"mesh8", "eight-neighbour mesh, n x n; diagonal-then-straight routing", "mesh8:32",
       {{"n", "2..8192", "", "side"}}, "n", make_mesh8},
      {"torus8", "eight-neighbour torus, n x n; diagonal-then-straight routing", "torus8:32",
       {{"n", "3..8192", "", "side"},
        {"classes", "wrap|distance", "wrap",
         "wrap = wrap-arounds crossed so far (3 classes); distance = D - remaining distance (n/2 classes)"}},
       "n", make_torus8},
      {"mesh", "mesh of any shape; dimension-order routing", "mesh:32x32",
       {{"shape", "AxB[xC...], each >= 2", "", "side per dimension, first fastest"}}, "shape", make_mesh},
      {"torus", "torus / k-ary n-cube of any shape; dimension order, dateline classes", "torus:8x8x16",
       {{"shape", "AxB[xC...], each >= 2", "", "side per dimension, first fastest"}}, "shape", make_torus},
      {"kary", "k-ary n-cube (= torus:kxkx...)", "kary:k=4,n=3",
       {{"k", "2..2^24", "", "ring size"}, {"n", "1..8", "", "dimensions"}}, "", make_kary},
      {"hypercube", "binary hypercube; dimension order (lowest bit first)", "hypercube:10",
       {{"n", "1..26", "", "dimension: 2^n nodes"}}, "n", make_hypercube},
      {"debruijn", "directed de Bruijn B(2,n)", "debruijn:10",
       {{"n", "2..24", "", "address bits: 2^n nodes"},
        {"route", "overlap|shift", "overlap", "overlap = shortest; shift = plain n-hop tag routing"},
        {"spares", "none|necklace", "none", "necklace = one spare PE per necklace replaces a failed PE (--faults)"}},
       "n", make_debruijn},
      {"ubruijn", "undirected de Bruijn UB(2,n)", "ubruijn:10",
       {{"n", "2..13 (table), 2..24", "", "address bits: 2^n nodes"},
        {"route", "table|minshift|simple", "table",
         "table = shortest; minshift = min(left, right) overlap routing; simple = the shorter of the "
         "plain n-step left and right shift routes (paper §6)"},
        {"improved", "0|1", "0", "add the paper's 3 links so every node has degree 4"},
        {"spares", "none|necklace", "none", "necklace = one spare PE per necklace replaces a failed PE (--faults)"}},
       "n", make_ubruijn},
      {"shuffle", "shuffle-exchange; table routing", "shuffle:10", {{"n", "2..13", "", "address bits: 2^n nodes"}},
       "n", make_shuffle},
      {"msn", "Manhattan street network (unidirectional, alternating)", "msn:32x32",
       {{"shape", "RxC, both even, >= 4", "", "rows x columns"}}, "shape", make_msn, size_msn},
      {"omega", "Omega multistage network (router-only switches)", "omega:10",
       {{"n", "1..22", "", "stages: 2^n PEs"}}, "n", make_omega},
      {"fattree", "binary fat tree (2-ary n-tree, router-only switches)", "fattree:10",
       {{"n", "1..22", "", "levels: 2^n PEs"}}, "n", make_fattree},
      {"dragonfly", "dragonfly (Kim et al. 2008): a*h+1 groups of a routers, p terminals (PEs) and h global links "
                    "per router; minimal local-global-local routing, 2 classes",
       "dragonfly:h=4",
       {{"h", "1..1024", "", "global links per router"},
        {"p", "1..1024", "h", "terminals (PEs) per router"},
        {"a", "1..1024", "2h", "routers per group (g = a*h + 1 groups, one global link between every two)"},
        {"arrangement", "absolute|relative", "absolute",
         "global links: absolute = consecutive (group G's link l to group l, or l+1 from G on); relative = "
         "palmtree (to group G+l+1 mod g)"},
        {"classes", "1..2", "2 (1 if a = 1)",
         "buffer classes; given, the channel dependency check runs (pes x nodes <= 2^24) and refuses too few"}},
       "h", make_dragonfly},
      {"hyperx", "HyperX / flattened butterfly: S1 x ... x SL routers, fully connected in each dimension (K = 1), "
                 "T terminals (PEs) each; dimension order, 1 class",
       "hyperx:8x8,T=8",
       {{"shape", "S1xS2[x...], each 2..4096", "", "routers per dimension, first fastest"},
        {"T", "1..4096", "S1", "terminals (PEs) per router (T = S1: a flattened butterfly)"}},
       "shape", make_hyperx},
      {"slimfly", "Slim Fly: MMS diameter-2 graph of 2q^2 routers, p terminals (PEs) each; minimal routing, 2 classes",
       "slimfly:q=5",
       {{"q", "prime power 3..31", "", "field size: 2q^2 routers of degree (3q - d)/2, q = 4w + d, d in {-1,0,1}"},
        {"p", "1..1024", "ceil(k'/2)", "terminals (PEs) per router; default half the router degree k'"},
        {"classes", "1..2", "2",
         "buffer classes; given, the channel dependency check runs (pes x nodes <= 2^24) and refuses too few"}},
       "q", make_slimfly},
      {"product", "Cartesian product of two direct topologies", "product:torus:4x4*debruijn:4",
       {{"<a>*<b>", "two topology specs", "", "parenthesise a spec that contains '*'"}}, "*", make_product},
      {"hier", "two-level hierarchy: cluster network + inter-cluster network", "hier:mesh:4x4/debruijn:4",
       {{"<cluster>/<global>[/iface=K]", "two topology specs", "", "iface = the cluster's interface node (0)"}},
       "*", make_hier},
      {"file", "custom topology from an edge-list file (docs/topologies.md)", "file:examples/ring8.txt",
       {{"<path>", "a readable file", "", "edge list; table-driven shortest-path routing"}}, "*", make_file},
  };
}

std::vector<TopologyEntry>& entries() {
  static std::vector<TopologyEntry> e = build_entries();
  return e;
}

}  // namespace

const std::vector<TopologyEntry>& TopologyRegistry::available() { return entries(); }

void register_topology(TopologyEntry entry) {
  check_registered_name(entry.name, "topology");
  if (entry.make == nullptr) throw usage_error(fmt::format("topology '{}': no factory", entry.name));
  for (const auto& e : entries())
    if (e.name == entry.name) throw usage_error(fmt::format("topology '{}' is already registered", entry.name));
  if (entry.example.empty()) entry.example = entry.name;
  entries().push_back(std::move(entry));
}

const TopologyEntry& TopologyRegistry::by_name(std::string_view name) { return find_entry(available(), name, "topology"); }

Topology TopologyRegistry::parse(std::string_view spec_in) {
  // Bounds the recursion of nested product/hier specs and the work of strip_parens.
  constexpr std::size_t max_spec = 4096;
  if (spec_in.size() > max_spec)
    throw usage_error(fmt::format("topology spec of {} characters; at most {} are accepted", spec_in.size(), max_spec));
  const std::string spec = strip_parens(std::string(spec_in));
  if (spec.empty()) throw usage_error("empty topology spec; see 'rica list'");
  const auto colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  const std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  const TopologyEntry& e = by_name(name);
  SpecArgs args(name, rest);
  args.docs = &e.params;
  if (e.positional != "*" && !rest.empty()) args.parse(rest, e.positional);
  return e.make(args);
}

TopologySize TopologyRegistry::size(std::string_view spec_in) {
  constexpr std::size_t max_spec = 4096;  // as parse()
  if (spec_in.size() > max_spec) return size_of(parse(spec_in));  // parse() refuses it
  const std::string spec = strip_parens(std::string(spec_in));
  const auto colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  const std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (name == "product" || name == "hier") {
    const auto parts = split_top(rest, name == "product" ? '*' : '/', name);
    if (parts.size() >= 2 && !parts[0].empty() && !parts[1].empty()) {
      const TopologySize a = size(strip_parens(parts[0])), b = size(strip_parens(parts[1]));
      // Both parts direct (the constructors refuse others): nodes = PEs. The constructors' checks
      // of the counts, refused first as they would be.
      const double nodes = a.nodes * b.nodes;
      const std::uint64_t ports = std::uint64_t{a.ports} + b.ports;
      const std::uint64_t classes = (name == "product" ? 1 : 2) * std::uint64_t{a.classes} + b.classes;
      detail::check_node_count(name, nodes > 0x1p63 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(nodes));
      detail::check_ports_and_classes(name, ports, classes);
      return {nodes, nodes, static_cast<port_t>(ports), static_cast<class_t>(classes)};
    }
    return size_of(parse(spec));  // malformed: parse() says why
  }
  const TopologyEntry* e = nullptr;
  for (const auto& x : available())
    if (x.name == name) e = &x;
  if (e == nullptr || e->size == nullptr) return size_of(parse(spec));
  SpecArgs args(name, rest);
  args.docs = &e->params;
  if (e->positional != "*" && !rest.empty()) args.parse(rest, e->positional);
  return e->size(args);
}

std::string TopologyRegistry::help_text() {
  std::string out = "Topologies (spec = name[:args]; args = positional value and/or key=value,...):\n";
  for (const auto& e : available()) {
    out += fmt::format("\n  {:<10} {}\n             e.g. {}\n", e.name, e.summary, e.example);
    out += param_help(e.params, e.positional);
  }
  return out;
}

void check_registered_name(const std::string& name, std::string_view kind) {
  const bool ok = !name.empty() && name.size() <= 64 && name[0] >= 'a' && name[0] <= 'z' &&
                  std::all_of(name.begin(), name.end(), [](char c) {
                    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
                  });
  if (!ok)
    throw usage_error(fmt::format("{} name '{}': use 1 to 64 of a-z, 0-9, '_', '-', starting with a letter", kind,
                                  name));
}

}  // namespace rica
