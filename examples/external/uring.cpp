#include "uring.hpp"

#include <string>
#include <utility>

namespace user {

namespace {

// The routing function. rica calls it concurrently from several threads, once per hop: it is
// pure (reads only n), allocates nothing and never throws.
struct UringRouting {
  rica::node_t n;
  rica::Hop operator()(rica::node_t cur, rica::node_t dst, rica::class_t cls) const noexcept {
    if (cur == dst) return rica::Hop::deliver();
    const rica::node_t ahead = (dst + n - cur) % n;  // hops the + way
    // The dateline is the wrap link: n-1 -> 0 for packets going +, 0 -> n-1 going -. A packet
    // takes class 1 on it and keeps it, so no cycle of channel dependencies closes round the ring.
    if (ahead <= n - ahead) return rica::Hop::forward(0, cls == 1 || cur == n - 1 ? 1 : 0);
    return rica::Hop::forward(1, cls == 1 || cur == 0 ? 1 : 0);
  }
};

rica::Topology make_from_spec(const rica::SpecArgs& a) { return make_uring(a.uint("n")); }

}  // namespace

rica::UserTopology make_uring(unsigned n) {
  if (n < 3 || n > 4096) throw rica::usage_error("topology 'uring': n must be in 3..4096");
  rica::UserTopologyDesc d;
  d.spec = "uring:n=" + std::to_string(n);  // canonical: parses back to the same ring
  d.nodes = d.pes = n;
  d.ports = 2;
  d.buffer_classes = 2;
  d.links = [n](rica::node_t v, rica::port_t p) {  // called once per (v, p), into a table
    return p == 0 ? rica::Link{(v + 1) % n, 0} : rica::Link{(v + n - 1) % n, 1};
  };
  d.routing = UringRouting{n};
  return rica::UserTopology(std::move(d));  // checks links and routing; usage_error if wrong
}

rica::TopologyEntry uring_entry() {
  return {"uring", "bidirectional ring of n PEs, the user's routing with dateline classes (examples/external)",
          "uring:16", {{"n", "3..4096", "", "PEs"}}, "n", make_from_spec};
}

}  // namespace user
