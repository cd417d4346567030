#include "rica/topology/debruijn.hpp"
#include "rica/registry.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rica {

std::string_view to_string(DeBruijnRouting r) noexcept {
  switch (r) {
    case DeBruijnRouting::overlap: return "overlap";
    case DeBruijnRouting::shift: return "shift";
    case DeBruijnRouting::minshift: return "minshift";
    case DeBruijnRouting::table: return "table";
    case DeBruijnRouting::simple: return "simple";
  }
  return "?";
}

DeBruijnTopology::DeBruijnTopology(unsigned n, bool directed, DeBruijnRouting routing, bool improved)
    : n_(n), directed_(directed), improved_(improved), routing_(routing) {
  const char* what = directed ? "debruijn" : "ubruijn";
  if (directed) {
    if (routing != DeBruijnRouting::overlap && routing != DeBruijnRouting::shift)
      throw usage_error(fmt::format("debruijn: parameter 'route' = '{}' is not accepted; accepted values: overlap, shift",
                                    to_string(routing)));
    if (improved)
      throw usage_error("debruijn: parameter 'improved' applies to the undirected network only (ubruijn)");
    detail::check_range(what, "n", n, 2, max_n);
    return;
  }
  if (routing != DeBruijnRouting::table && routing != DeBruijnRouting::minshift && routing != DeBruijnRouting::simple)
    throw usage_error(fmt::format("ubruijn: parameter 'route' = '{}' is not accepted; accepted values: table, minshift, simple",
                                  to_string(routing)));
  detail::check_range(routing == DeBruijnRouting::table ? "ubruijn (route=table)" : what, "n", n,
                      improved ? 3 : 2, routing == DeBruijnRouting::table ? max_table_n : max_n);

  if (improved) {
    // The special nodes, their free out-ports (absent in the plain UB) and free in-ports.
    const node_t mask = nodes() - 1;
    node_t a01 = 0;  // 0101.. (MSB first)
    for (unsigned i = 0; i < n; ++i)
      if ((n - 1 - i) % 2 == 1) a01 |= node_t{1} << i;
    const node_t a10 = ~a01 & mask, zero = 0, one = mask;
    auto free_out = [&](node_t v) {
      std::vector<port_t> f;
      for (port_t p = 0; p < 4; ++p)
        if (uport_peer(v, p) == no_node) f.push_back(p);
      return f;
    };
    auto free_in = [&](node_t w) {
      // In-port q of w is the end of the link from the nominal peer c[q] of port q of w through
      // port q ^ 2 (the reverse direction), when that port is present.
      const node_t l = detail::rotl(w, n), r = detail::rotr(w, n);
      const node_t c[4] = {l, l ^ 1u, r, detail::rotr(w ^ 1u, n)};
      std::vector<port_t> f;
      for (port_t q = 0; q < 4; ++q)
        if (uport_peer(c[q], q ^ 2u) != w) f.push_back(q);
      return f;
    };
    const auto fo_zero = free_out(zero), fo_one = free_out(one), fo_a01 = free_out(a01), fo_a10 = free_out(a10);
    const auto fi_zero = free_in(zero), fi_one = free_in(one), fi_a01 = free_in(a01), fi_a10 = free_in(a10);
    if (fo_zero.size() != 2 || fo_one.size() != 2 || fo_a01.size() != 1 || fo_a10.size() != 1 ||
        fi_zero.size() != 2 || fi_one.size() != 2 || fi_a01.size() != 1 || fi_a10.size() != 1)
      throw std::logic_error("ubruijn improved: unexpected free ports");
    // Complement-symmetric assignment: v -> ~v maps zero <-> one and a01 <-> a10, port for port.
    extra_[0] = {zero, fo_zero[0], Link{one, fi_one[0]}};
    extra_[1] = {one, fo_one[0], Link{zero, fi_zero[0]}};
    extra_[2] = {zero, fo_zero[1], Link{a01, fi_a01[0]}};
    extra_[3] = {one, fo_one[1], Link{a10, fi_a10[0]}};
    extra_[4] = {a01, fo_a01[0], Link{zero, fi_zero[1]}};
    extra_[5] = {a10, fo_a10[0], Link{one, fi_one[1]}};
  }

  if (routing == DeBruijnRouting::table) {
    EdgeList g;
    g.nodes = g.pes = nodes();
    g.labels.reserve(g.nodes);
    for (node_t v = 0; v < g.nodes; ++v) {
      for (port_t p = 0; p < 4; ++p)
        if (const Link l = out_link(v, p); l.present()) g.arcs.emplace_back(v, l.peer);
      g.labels.push_back(label(v));
    }
    graph_ = std::make_shared<const GraphTopology>(g, spec());
  }
}

std::string DeBruijnTopology::label(node_t v) const {
  std::string s(n_, '0');
  for (unsigned i = 0; i < n_; ++i)
    if (detail::bit(v, i)) s[n_ - 1 - i] = '1';
  return s;
}

std::string DeBruijnTopology::spec() const {
  std::string s = fmt::format("{}:n={}", directed_ ? "debruijn" : "ubruijn", n_);
  const auto def = directed_ ? DeBruijnRouting::overlap : DeBruijnRouting::table;
  if (routing_ != def) s += fmt::format(",route={}", to_string(routing_));
  if (improved_) s += ",improved=1";
  if (spares_) s += ",spares=necklace";
  return s;
}

std::uint64_t necklace_count(unsigned n) {
  detail::check_range("necklace_count", "n", n, 1, 63);
  auto phi = [](unsigned m) {
    unsigned r = m;
    for (unsigned p = 2; p * p <= m; ++p)
      if (m % p == 0) {
        while (m % p == 0) m /= p;
        r -= r / p;
      }
    if (m > 1) r -= r / m;
    return r;
  };
  std::uint64_t sum = 0;
  for (unsigned d = 1; d <= n; ++d)
    if (n % d == 0) sum += std::uint64_t{phi(d)} << (n / d);
  return sum / n;
}


// De Bruijn with one spare per necklace (the paper's §3): the first failed PE of a necklace (in
// the order they were listed / drawn; here by id) is replaced by the necklace's spare, which
// takes its address and, through the redundant S links, its links: the network is intact again.
// A second failure in the same necklace finds the spare used: that PE stays failed.
void DeBruijnTopology::replace_failed_pes(std::vector<node_t>& failed, std::vector<node_t>& replaced) const {
  if (!necklace_spares()) return;
  const unsigned n = this->n();
  std::vector<node_t> used, left;
  for (node_t v : failed) {
    node_t rep = v, w = v;  // the necklace's representative: its least rotation
    for (unsigned k = 0; k < n; ++k) rep = std::min(rep, w = detail::rotl(w, n));
    if (std::find(used.begin(), used.end(), rep) == used.end()) {
      used.push_back(rep);
      replaced.push_back(v);
    } else {
      left.push_back(v);
    }
  }
  failed = left;
}

// ---- Registry entries (rica/registry.hpp): spec names, docs, factories ---------------------------

namespace {

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

}  // namespace

std::vector<TopologyEntry> DeBruijnTopology::registry_entries() {
  return {
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
  };
}

}  // namespace rica
