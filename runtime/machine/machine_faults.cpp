// Faults in the machine (runtime/machine/machine.hpp, docs/faults.md): failed nodes at set-up, the
// failure of links and nodes during a cycle-engine run, and the accounting of the packets the
// faults drop (conservation: injected = delivered + in the network + dropped by faults).
#include "machine.hpp"

namespace rica::detail {

void Machine::drop(const Packet& p, std::uint64_t& count, std::uint64_t& ids, std::uint64_t& dups) {
  ++count;
  ids += packet_id(p);
  std::uint64_t beyond = 0;  // an id beyond the record: checked by checksums only
  if (ledger_.mark(p, beyond)) ++dups;
}

void Machine::setup_faults() {
  faulty_ = std::get_if<FaultyTopology>(&topo_.variant());
  if (!faulty_) return;
  if (faulty_->dynamic()) {
    fault_at_ = faulty_->fail_at();
    return;
  }
  dead_.assign(nodes_, 0);
  for (node_t v : faulty_->failed_nodes()) {
    dead_[v] = 1;
    os_.set_job(v, no_job, false);  // a failed PE runs nothing: it neither sends nor receives
    if (v < pes_) pe_[v].generating = false;
  }
}

void Machine::apply_faults() {
  RICA_ASSERT(faulty_ && fault_at_, "apply_faults without a dynamic fault set");
  const FaultyTopology& f = *faulty_;
  faults_applied_ = cycle_;
  fault_at_ = 0;
  dead_.assign(nodes_, 0);
  Ledger::MainDrops& lost = ledger_.main_drops();
  auto lose = [&](const Packet& p) { drop(p, lost.count, lost.ids, lost.dups); };
  // Empties v's input i: each packet leaves the network there, dropped; its credit goes back.
  auto empty_input = [&](node_t v, std::uint32_t i) {
    LinkBuffer& b = pe_[v].inputs[i];
    while (!b.empty()) {
      const Packet p = b.front();
      b.pop_and_check(main_slots_);
      credits_[up_credit(v, i)].popped_seen += p.words;
      ledger_.left(p.job, v);
      lose(p);
    }
    work(v)[i >> 6] &= ~(std::uint64_t{1} << (i & 63));
  };
  for (node_t v : f.failed_nodes()) {
    dead_[v] = 1;
    PeState& s = pe_[v];
    for (std::uint32_t i = 0, n = inputs(v); i < n; ++i) empty_input(v, i);
    for (std::size_t k = s.injq_head; k < s.injq.size(); ++k) lose(s.injq[k]);  // never entered the network
    s.injq.clear();
    s.injq_head = 0;
    s.generating = false;
    os_.set_job(v, no_job);
  }
  // Packets on a failed link: those in the buffers it feeds (a packet crossing a link sits in the
  // downstream buffer from the cycle it left; docs/runtime.md).
  for (node_t v = 0; v < nodes_; ++v)
    for (port_t p = 0; p < ports_; ++p) {
      if (!f.failed_link(v, p)) continue;
      const Link l = f.out_link(v, p);
      if (!l.present() || dead_[l.peer]) continue;
      for (class_t c = 0; c < classes_; ++c) empty_input(l.peer, static_cast<std::uint32_t>(l.in_port) * classes_ + c);
      os_.touch(l.peer);
    }
  // Nodes holding packets for a failed PE drop them when they reach the head (arrive()); wake
  // every node that holds anything so it looks again under the new routing.
  for (node_t v = 0; v < nodes_; ++v)
    if (!dead_[v]) os_.touch(v);
}

void Machine::collect_faults(RunStats& st, const ThreadStats& all, std::uint64_t& dropped_ids) const {
  const Ledger::MainDrops& lost = ledger_.main_drops();
  st.dropped_by_faults = lost.count + all.dropped;
  dropped_ids = lost.ids + all.dropped_ids;
  st.duplicates += lost.dups;
  st.fault_cycle = faults_applied_;
}

}  // namespace rica::detail
