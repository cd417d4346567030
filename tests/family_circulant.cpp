// A test-only topology family, registered from outside rica's tree the way a user's would be
// (rica/user_topology.hpp), with every trait a built-in family can declare
// (rica/topology/family.hpp): orbits, port-keeping symmetry, its own partition rule (its
// embedding for `embed --map auto` is the identity: the ring 0..n-1 is its +1 links). Linked into tests/circulant_main.cpp (the CLI `rica_circulant`, driven by
// tests/family_tests.sh) and tests/test_family_traits.cpp. No rica file names it.
//
// circulant:n=N,s=S: the circulant graph C_N(1, S), nodes 0..N-1 all PEs, node v linked to
// v +- 1 and v +- S (mod N). Ports 0: +1, 1: -1, 2: +S, 3: -S; a link arrives on the in-port of
// its out-port's number. Routing: by the offset d = dst - cur (mod N), the port that lowers the
// distance to go most (a table of N distances, by BFS over offsets; ties: lowest port). Classes:
// the downstream class is the packet's class + 1, so channel dependencies climb and cannot close
// a cycle (diameter + 1 classes). Rotation v -> v + c maps links to links with the same port and
// routes to routes with the same classes: one orbit, ports kept.
#include <rica/partition_layout.hpp>
#include <rica/user_topology.hpp>

#include <algorithm>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace {

struct CirculantRouting {
  std::shared_ptr<const std::vector<std::uint8_t>> port_of;  // per offset 1..n-1: the port to take
  rica::node_t n;
  rica::Hop operator()(rica::node_t cur, rica::node_t dst, rica::class_t cls) const noexcept {
    if (cur == dst) return rica::Hop::deliver();
    return rica::Hop::forward((*port_of)[(dst + n - cur) % n], static_cast<rica::class_t>(cls + 1));
  }
};

/// Contiguous arcs of PEs: K near-equal blocks of consecutive ids.
rica::PartitionLayout arcs(const rica::Topology& self, const rica::PartitionRequest& r) {
  using namespace rica::partition_rules;
  refuse_cuts(self, r, "arcs of consecutive PEs");
  if (!r.dims.empty()) refuse(self, "--dims: a circulant has one dimension; give --parts K");
  if (r.parts == 0) refuse(self, "give --parts K");
  const rica::node_t n = self.pes();
  return box_layout(rica::Shape{n}, {even_bounds(n, r.parts)}, "circulant-arcs");
}

rica::Topology make_circulant(const rica::SpecArgs& a) {
  const unsigned n = a.uint("n"), s = a.uint("s");
  if (n < 5 || n > 4096) throw rica::usage_error("topology 'circulant': n must be in 5..4096");
  if (s < 2 || 2 * s > n) throw rica::usage_error("topology 'circulant': s must be in 2..n/2");
  const long step[4] = {1, -1, static_cast<long>(s), -static_cast<long>(s)};
  // Distances by offset (BFS from offset 0), then each offset's first port towards 0.
  std::vector<unsigned> dist(n, ~0u);
  std::deque<rica::node_t> queue{0};
  dist[0] = 0;
  while (!queue.empty()) {
    const rica::node_t d = queue.front();
    queue.pop_front();
    for (long st : step) {
      const auto e = static_cast<rica::node_t>(((static_cast<long>(d) + st) % n + n) % n);
      if (dist[e] == ~0u) dist[e] = dist[d] + 1, queue.push_back(e);
    }
  }
  auto port_of = std::make_shared<std::vector<std::uint8_t>>(n, 0);
  for (rica::node_t d = 1; d < n; ++d)
    for (std::uint8_t p = 0; p < 4; ++p) {
      const auto rest = static_cast<rica::node_t>(((static_cast<long>(d) - step[p]) % n + n) % n);
      if (dist[rest] + 1 == dist[d]) {
        (*port_of)[d] = p;
        break;
      }
    }
  rica::UserTopologyDesc desc;
  desc.spec = "circulant:n=" + std::to_string(n) + ",s=" + std::to_string(s);
  desc.nodes = desc.pes = n;
  desc.ports = 4;
  desc.buffer_classes = static_cast<rica::class_t>(*std::max_element(dist.begin(), dist.end()) + 1);
  desc.links = [n, step](rica::node_t v, rica::port_t p) {
    return rica::Link{static_cast<rica::node_t>(((static_cast<long>(v) + step[p]) % n + n) % n), p};
  };
  desc.routing = CirculantRouting{port_of, n};
  desc.orbits.assign(n, 0);  // rotations: one orbit ...
  desc.symmetry_keeps_ports = true;  // ... mapping port p to port p
  desc.partition = arcs;
  return rica::UserTopology(std::move(desc));
}

const rica::TopologyRegistration circulant{
    {"circulant", "circulant C_n(1, s) (test-only family, tests/family_circulant.cpp)", "circulant:n=16,s=3",
     {{"n", "5..4096", "", "nodes"}, {"s", "2..n/2", "2", "chord length"}}, "n", make_circulant}};

}  // namespace
