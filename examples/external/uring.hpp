#pragma once
// A user's own topology family with a hand-written routing rule (docs/extending.md), outside
// rica's tree: "uring:n", a bidirectional ring of n PEs. Unlike "dring" (an edge list with rica's
// shortest-path table), the routing here is the user's function: the shorter way round (+ on a
// tie) with dateline buffer classes, which rica calls once per hop (one indirect call) and checks
// at construction (delivery, classes, acyclic channel dependencies).
#include <rica/user_topology.hpp>

namespace user {

/// Ring of n PEs (3 <= n <= 4096). Out-port 0 goes to v+1 mod n (arriving on in-port 0), out-port
/// 1 to v-1 mod n (in-port 1). Buffer classes: 0 until the dateline, 1 from it on.
rica::UserTopology make_uring(unsigned n);

/// The registry entry: name "uring", its documentation and factory ("uring:12" = "uring:n=12").
/// Register it with rica::register_topology(uring_entry()) or a TopologyRegistration.
rica::TopologyEntry uring_entry();

}  // namespace user
