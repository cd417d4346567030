// MachineView (rica/observer.hpp): an observer's read-only view of the node tables and the
// ledger, forwarded to the Machine's const operations. Called per window, not per hop.
#include <algorithm>

#include "machine.hpp"
#include "rica/topology.hpp"

namespace rica {

const Topology& MachineView::topology() const noexcept { return m_->topology(); }
node_t MachineView::nodes() const noexcept { return m_->nodes(); }
node_t MachineView::pes() const noexcept { return m_->pes(); }
port_t MachineView::ports() const noexcept { return m_->ports(); }
class_t MachineView::classes() const noexcept { return m_->classes(); }
bool MachineView::cycle_mode() const noexcept { return m_->cycle_mode(); }

std::uint64_t MachineView::link_packets(node_t v, port_t port) const noexcept {
  RICA_ASSERT(v < nodes() && port < ports(), "MachineView::link_packets beyond the machine");
  return port < m_->port_width(v) ? m_->link_packets(v)[port] : 0;  // a port beyond v's rows: no link
}
std::uint32_t MachineView::buffer_words(node_t v, port_t q, class_t c) const noexcept {
  RICA_ASSERT(v < nodes() && q < ports() && c < classes(), "MachineView::buffer_words beyond the machine");
  return m_->words_held(v, static_cast<std::uint32_t>(q) * m_->classes() + c);
}
std::uint64_t MachineView::buffer_packets(node_t v, port_t q, class_t c) const noexcept {
  RICA_ASSERT(v < nodes() && q < ports() && c < classes(), "MachineView::buffer_packets beyond the machine");
  if (q >= m_->port_width(v)) return 0;
  return m_->pe(v).inputs[static_cast<std::uint32_t>(q) * m_->classes() + c].size();
}
void MachineView::held_per_class(std::span<std::uint64_t> words, std::span<std::uint64_t> packets) const noexcept {
  const class_t classes = m_->classes();
  RICA_ASSERT(words.size() >= classes && packets.size() >= classes, "MachineView::held_per_class: spans too short");
  std::fill_n(words.begin(), classes, 0), std::fill_n(packets.begin(), classes, 0);
  for (node_t v = 0; v < m_->nodes(); ++v)
    for (std::uint32_t i = 0, inputs = m_->inputs(v); i < inputs; ++i)  // [in_port * classes + class]
      if (const unsigned w = m_->words_held(v, i)) {
        words[i % classes] += w;
        packets[i % classes] += m_->pe(v).inputs[i].size();
      }
}
const Packet* MachineView::buffer_head(node_t v, port_t q, class_t c) const noexcept {
  RICA_ASSERT(v < nodes() && q < ports() && c < classes(), "MachineView::buffer_head beyond the machine");
  if (q >= m_->port_width(v)) return nullptr;
  const LinkBuffer& b = m_->pe(v).inputs[static_cast<std::uint32_t>(q) * m_->classes() + c];
  return b.empty() ? nullptr : &b.front();
}
std::uint64_t MachineView::source_queue(node_t v) const noexcept { return m_->source_queue(v); }
std::uint64_t MachineView::blocked(node_t v) const noexcept { return m_->pe(v).blocked; }
std::uint64_t MachineView::injected(node_t v) const noexcept { return m_->pe(v).injected; }
std::uint64_t MachineView::delivered(node_t v) const noexcept { return m_->pe(v).delivered; }
std::uint8_t MachineView::job_at(node_t v) const noexcept { return m_->job_at(v); }
bool MachineView::halted(node_t v) const noexcept { return m_->halted(v); }

MachineView::Totals MachineView::totals() const noexcept {
  Totals t;
  for (const detail::ThreadStats& ts : m_->thread_stats()) {
    t.delivered += ts.delivered, t.hops += ts.hops, t.measured += ts.measured;
    t.latency_sum += ts.lat_sum, t.net_latency_sum += ts.net_lat_sum, t.dropped += ts.dropped;
  }
  t.dropped += m_->dropped_between_cycles();
  return t;
}

}  // namespace rica
