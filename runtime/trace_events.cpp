// Trace-viewer export (rica/trace_events.hpp): follows a bounded sample of packets through the
// observer seam's buffer heads, and writes Chrome trace-event JSON.
#include "rica/trace_events.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "rica/assert.hpp"
#include "rica/io.hpp"
#include "rica/topology.hpp"

namespace rica {
namespace {

constexpr std::uint64_t not_halted = std::numeric_limits<std::uint64_t>::max();

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

}  // namespace

TraceEvents::TraceEvents(Options options) : Observer(1), opt_(options) {
  if (opt_.max_packets < 1 || opt_.max_packets > defaults::trace_events::max_packets)
    throw usage_error(fmt::format("--trace-events-packets: {} is out of range [1, {}]", opt_.max_packets,
                                  defaults::trace_events::max_packets));
}

void TraceEvents::on_start(const MachineView& v) {
  nodes_ = v.nodes();
  ports_ = v.ports();
  classes_ = v.classes();
  labels_.resize(nodes_);
  for (node_t n = 0; n < nodes_; ++n) labels_[n] = v.topology().label(n);
  halted_since_.assign(nodes_, not_halted);
}

void TraceEvents::on_window(const MachineView& v, std::uint64_t /*begin*/, std::uint64_t end) {
  const std::uint64_t now = end;
  if (opt_.halts)
    for (node_t n = 0; n < nodes_; ++n) {
      const bool h = v.halted(n);
      if (h && halted_since_[n] == not_halted) {
        halted_since_[n] = now;
      } else if (!h && halted_since_[n] != not_halted) {
        slices_.push_back({n, halted_since_[n], now - halted_since_[n], "halted", "os", ""});
        halted_since_[n] = not_halted;
        ++halts_;
      }
    }
  const bool taking = packets_.size() < opt_.max_packets && now >= opt_.from;
  if (!taking && active_.empty()) return;  // nothing to follow: a window costs nothing more
  for (node_t n = 0; n < nodes_; ++n)
    for (port_t q = 0; q < ports_; ++q)
      for (class_t c = 0; c < classes_; ++c) {
        const Packet* p = v.buffer_head(n, q, c);
        if (p == nullptr) continue;
        const std::uint64_t key = std::uint64_t{p->src} << 32 | p->seq;
        auto it = index_.find(key);
        if (it == index_.end()) {
          // A packet is followed from its first buffer (hops == 1: it crossed one link) only, if it
          // entered the network at or after `from`.
          if (!taking || p->hops != 1 || packets_.size() >= opt_.max_packets ||
              p->inject_ns + p->queued < opt_.from)
            continue;
          it = index_.emplace(key, static_cast<std::uint32_t>(packets_.size())).first;
          packets_.push_back({p->src, p->dst, p->seq, p->inject_ns, p->inject_ns + p->queued, {}, false});
          active_.push_back(it->second);
        }
        Followed& f = packets_[it->second];
        if (f.delivered) continue;  // (src, seq) seen again: a later run's packet cannot be; ignore
        if (p->hops == f.stages.size()) {
          f.stages.back().last = now;  // still the head of the buffer it was seen in
        } else {
          if (p->hops != f.stages.size() + 1) gaps_ += p->hops - f.stages.size() - 1;
          f.stages.push_back({n, q, c, p->ready, now});
        }
      }
  // A followed packet last seen at its destination and not seen now was delivered in the cycle
  // after it was last seen (the head of a buffer leaves only by moving on or being delivered).
  std::erase_if(active_, [&](std::uint32_t i) {
    Followed& f = packets_[i];
    const Stage& s = f.stages.back();
    if (s.last == now || s.node != f.dst) return false;
    f.delivered = true;
    return true;
  });
}

void TraceEvents::on_end(const MachineView& v) {
  const std::uint64_t now = v.now();
  if (opt_.halts)
    for (node_t n = 0; n < nodes_; ++n)
      if (halted_since_[n] != not_halted) {
        slices_.push_back({n, halted_since_[n], now - halted_since_[n], "halted", "os", "{\"until_end\":true}"});
        halted_since_[n] = not_halted;
        ++halts_;
      }
  // A packet still at its destination's head when the run ended was delivered in the last cycle.
  std::erase_if(active_, [&](std::uint32_t i) {
    Followed& f = packets_[i];
    if (f.stages.back().node != f.dst || v.buffer_head(f.stages.back().node, f.stages.back().port,
                                                       f.stages.back().cls) != nullptr)
      return false;
    f.delivered = true;
    return true;
  });
}

void TraceEvents::add_switches(const std::vector<SwitchRecord>& switches) {
  const std::uint32_t tid = nodes_;  // the thread after the nodes: "OS switches"
  for (const SwitchRecord& r : switches) {
    const std::string args = fmt::format(
        "{{\"from_slot\":{},\"to_slot\":{},\"cycles\":{},\"freeze\":{},\"detect\":{},\"waves\":{},\"packets_saved\":{},"
        "\"words_saved\":{},\"packets_restored\":{},\"bound\":{}}}",
        r.from_slot, r.to_slot, r.cycles, r.freeze_cycles, r.detect_cycles, r.waves, r.packets_saved, r.words_saved,
        r.packets_restored, r.bound_cycles);
    slices_.push_back({tid, r.at, r.cycles, fmt::format("switch slot {} -> {}", r.from_slot, r.to_slot), "os", args});
    std::uint64_t phase = 0;
    if (r.freeze_cycles) {
      phase = std::min(r.freeze_cycles, r.cycles);
      slices_.push_back({tid, r.at, phase, "drain: until every port froze", "os", ""});
    } else if (r.detect_cycles) {
      phase = std::min(r.detect_cycles, r.cycles);
      slices_.push_back({tid, r.at, phase, "flush: until emptiness detected", "os", ""});
    }
    if (r.cycles > phase)
      slices_.push_back({tid, r.at + phase, r.cycles - phase, "save, restore, resume", "os", ""});
    ++switches_;
  }
}

std::string TraceEvents::events(unsigned pid, const std::string& name) const {
  std::string out;
  auto add = [&](const std::string& e) {
    if (!out.empty()) out += ",\n";
    out += e;
  };
  add(fmt::format("{{\"ph\":\"M\",\"pid\":{},\"name\":\"process_name\",\"args\":{{\"name\":{}}}}}", pid, quoted(name)));
  add(fmt::format("{{\"ph\":\"M\",\"pid\":{},\"name\":\"process_sort_index\",\"args\":{{\"sort_index\":{}}}}}", pid, pid));
  // Thread names for the nodes that have events (and the OS thread), in node order.
  std::vector<bool> used(nodes_ + 1, false);
  for (const Followed& f : packets_) {
    used[f.src] = true;
    for (const Stage& s : f.stages) used[s.node] = true;
  }
  for (const Slice& s : slices_) used[s.tid] = true;
  for (node_t n = 0; n <= nodes_; ++n)
    if (used[n]) {
      add(fmt::format("{{\"ph\":\"M\",\"pid\":{},\"tid\":{},\"name\":\"thread_name\",\"args\":{{\"name\":{}}}}}", pid, n,
                      quoted(n == nodes_ ? std::string("OS switches") : fmt::format("node {} {}", n, labels_[n]))));
      add(fmt::format("{{\"ph\":\"M\",\"pid\":{},\"tid\":{},\"name\":\"thread_sort_index\",\"args\":{{\"sort_index\":{}}}}}",
                      pid, n, n));
    }
  for (std::size_t i = 0; i < packets_.size(); ++i) {
    const Followed& f = packets_[i];
    const std::string id = fmt::format("\"{}.{}\"", pid, i);
    const std::string pkt = fmt::format("{}>{}#{}", f.src, f.dst, f.seq);
    add(fmt::format("{{\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{},\"name\":\"queued\",\"cat\":\"packet\","
                    "\"args\":{{\"packet\":\"{}\"}}}}",
                    pid, f.src, f.generated, f.entered - f.generated, pkt));
    add(fmt::format("{{\"ph\":\"s\",\"pid\":{},\"tid\":{},\"ts\":{},\"id\":{},\"name\":\"packet\",\"cat\":\"packet\"}}", pid,
                    f.src, f.generated, id));
    for (std::size_t h = 0; h < f.stages.size(); ++h) {
      const Stage& s = f.stages[h];
      const bool last = h + 1 == f.stages.size();
      const std::uint64_t dur = s.last >= s.arrive ? s.last - s.arrive : 0;
      add(fmt::format("{{\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{},\"name\":\"{}\",\"cat\":\"packet\","
                      "\"args\":{{\"packet\":\"{}\",\"hop\":{},\"in_port\":{},\"class\":{}{}}}}}",
                      pid, s.node, s.arrive, dur, pkt, pkt, h + 1, s.port, s.cls,
                      last ? (f.delivered ? fmt::format(",\"delivered\":{}", s.last) : std::string(",\"delivered\":false"))
                           : std::string()));
      add(fmt::format("{{\"ph\":\"{}\",\"pid\":{},\"tid\":{},\"ts\":{},\"id\":{},\"name\":\"packet\",\"cat\":\"packet\"{}}}",
                      last ? "f" : "t", pid, s.node, s.arrive, id, last ? ",\"bp\":\"e\"" : ""));
    }
  }
  for (const Slice& s : slices_)
    add(fmt::format("{{\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{},\"name\":{},\"cat\":\"{}\"{}}}", pid, s.tid,
                    s.ts, s.dur, quoted(s.name), s.cat, s.args.empty() ? std::string() : ",\"args\":" + s.args));
  return out;
}

nlohmann::json TraceEvents::summary() const {
  std::uint64_t delivered = 0, hops = 0;
  for (const Followed& f : packets_) {
    delivered += f.delivered;
    hops += f.stages.size();
  }
  return {{"packets", packets_.size()},     {"delivered", delivered},
          {"hops", hops},                   {"gaps", gaps_},
          {"unfinished", packets_.size() - delivered},
          {"halts", halts_},                {"switches", switches_},
          {"max_packets", opt_.max_packets}, {"from", opt_.from}};
}

void TraceEvents::write(const std::string& path, const std::vector<std::pair<std::string, const TraceEvents*>>& runs,
                        const std::string& what) {
  std::string text = "{\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"writer\":\"rica --trace-events\",\"time_unit\":"
                     "\"1 cycle is shown as 1 us\"},\n\"traceEvents\":[\n";
  bool first = true;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    RICA_ASSERT(runs[k].second != nullptr, "TraceEvents::write of a null run");
    const std::string e = runs[k].second->events(static_cast<unsigned>(k + 1), runs[k].first);
    if (e.empty()) continue;
    if (!first) text += ",\n";
    text += e;
    first = false;
  }
  text += "\n]}\n";
  write_text_file(path, text, what);
}

}  // namespace rica
