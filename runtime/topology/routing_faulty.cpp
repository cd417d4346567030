// Surviving-graph distances of the adaptive routing around static faults
// (rica/routing/faulty.hpp; docs/faults.md).
#include <memory>
#include <vector>

#include "rica/routing.hpp"

namespace rica {

std::shared_ptr<const std::vector<std::uint16_t>> surviving_distances(const FaultyTopology& t) {
  const node_t N = t.nodes(), P = t.pes();
  // Reverse adjacency of the surviving arcs (failed ones are absent from out_link()).
  std::vector<std::uint32_t> rfirst(std::size_t{N} + 1, 0);
  for (node_t v = 0; v < N; ++v)
    for (port_t p = 0; p < t.ports(); ++p)
      if (const Link l = t.out_link(v, p); l.present()) ++rfirst[l.peer + 1];
  for (node_t v = 0; v < N; ++v) rfirst[v + 1] += rfirst[v];
  std::vector<node_t> rsrc(rfirst[N]);
  {
    std::vector<std::uint32_t> fill(rfirst.begin(), rfirst.end() - 1);
    for (node_t v = 0; v < N; ++v)
      for (port_t p = 0; p < t.ports(); ++p)
        if (const Link l = t.out_link(v, p); l.present()) rsrc[fill[l.peer]++] = v;
  }
  auto dist = std::make_shared<std::vector<std::uint16_t>>(std::size_t{N} * P, std::uint16_t{0xFFFF});
  std::vector<node_t> queue;
  queue.reserve(N);
  for (node_t dst = 0; dst < P; ++dst) {
    if (t.failed(dst)) continue;
    auto at = [&](node_t v) -> std::uint16_t& { return (*dist)[std::size_t{v} * P + dst]; };
    at(dst) = 0;
    queue.assign(1, dst);
    for (std::size_t h = 0; h < queue.size(); ++h) {
      const node_t w = queue[h];
      for (auto i = rfirst[w]; i < rfirst[w + 1]; ++i)
        if (at(rsrc[i]) == 0xFFFF) at(rsrc[i]) = static_cast<std::uint16_t>(at(w) + 1), queue.push_back(rsrc[i]);
    }
  }
  return dist;
}

}  // namespace rica
