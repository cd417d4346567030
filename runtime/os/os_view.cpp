// OsView: what a switch policy sees of the machine (rica/os_policy.hpp), forwarded to the
// Machine's OS operations. Not on any hot path: a switch calls these per node, not per hop.
#include "../machine/machine.hpp"
#include "rica/os_policy.hpp"

namespace rica {

node_t OsView::nodes() const noexcept { return m_->nodes(); }
node_t OsView::pes() const noexcept { return m_->pes(); }
port_t OsView::ports() const noexcept { return m_->ports(); }
class_t OsView::classes() const noexcept { return m_->classes(); }
unsigned OsView::buffer_words() const noexcept { return m_->config().buffer_words; }
unsigned OsView::max_link_cycles() const noexcept { return m_->max_link_cycles(); }
std::uint64_t OsView::link_free_at(node_t v, port_t port) const noexcept { return m_->link_free_at(v, port); }
node_t OsView::upstream(node_t v, port_t q) const noexcept { return m_->upstream(v, q); }
port_t OsView::upstream_port(node_t v, port_t q) const noexcept { return m_->upstream_port(v, q); }
std::uint64_t OsView::net_in(unsigned job, node_t v) const noexcept { return m_->net_in(job, v); }
std::uint64_t OsView::net_out(unsigned job, node_t v) const noexcept { return m_->net_out(job, v); }
bool OsView::halted(node_t v) const noexcept { return m_->halted(v); }
void OsView::halt(node_t v) { m_->halt(v); }
std::uint64_t OsView::sweep(node_t v, const std::function<void(const Packet&)>& save) {
  RICA_ASSERT(m_->halted(v), "OsView::sweep of a node that is not halted");
  return m_->sweep(v, save);
}

}  // namespace rica
