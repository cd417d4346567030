// Telemetry over time (rica/telemetry.hpp): per window, the differences of the machine's
// cumulative figures and the state at the window's end, read through the MachineView.
#include "rica/telemetry.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <limits>

#include "rica/io.hpp"
#include "rica/packet.hpp"
#include "rica/report.hpp"
#include "rica/topology.hpp"

namespace rica {

namespace {

TelemetryTable make_table(std::initializer_list<std::pair<const char*, bool>> cols) {
  TelemetryTable t;
  for (const auto& [name, real] : cols) t.columns.push_back({name, real, {}, {}});
  return t;
}

/// Appends one row: `values` in column order (integers as such, reals for real columns).
struct Row {
  TelemetryTable& t;
  std::size_t i = 0;
  Row& operator<<(std::uint64_t x) {
    t.columns[i++].ints.push_back(x);
    return *this;
  }
  Row& operator<<(double x) {
    t.columns[i++].reals.push_back(x);
    return *this;
  }
};

double ratio(std::uint64_t a, std::uint64_t b) {
  return b ? static_cast<double>(a) / static_cast<double>(b) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

std::size_t TelemetryTable::rows() const noexcept {
  if (columns.empty()) return 0;
  return columns.front().real ? columns.front().reals.size() : columns.front().ints.size();
}

std::string TelemetryTable::csv(const std::vector<std::pair<std::string, std::string>>& leading, bool header) const {
  std::vector<std::string> fields;
  for (const auto& [name, value] : leading) fields.push_back(name);
  for (const Column& c : columns) fields.push_back(c.name);
  std::string out = header ? report::csv_row(fields) : std::string();
  for (std::size_t k = 0; k < leading.size(); ++k) fields[k] = leading[k].second;
  const std::size_t n = rows(), l = leading.size();
  out.reserve(out.size() + n * fields.size() * 6);
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t k = 0; k < columns.size(); ++k) {
      const Column& c = columns[k];
      if (!c.real)
        fields[l + k] = std::to_string(c.ints[r]);
      else
        fields[l + k] = std::isfinite(c.reals[r]) ? fmt::format("{:.6g}", c.reals[r]) : std::string();
    }
    out += report::csv_row(fields);
  }
  return out;
}

Telemetry::Telemetry(std::uint64_t window, Options options)
    : Observer(window),
      opt_(options),
      windows_(make_table({{"window", false},
                           {"begin", false},
                           {"end", false},
                           {"injected", false},
                           {"delivered", false},
                           {"measured", false},
                           {"latency_sum", false},
                           {"net_latency_sum", false},
                           {"latency_mean", true},
                           {"net_latency_mean", true},
                           {"throughput", true},
                           {"packet_hops", false},
                           {"dropped", false},
                           {"occupancy_words", false},
                           {"occupancy_packets", false},
                           {"source_queue", false},
                           {"blocked", false},
                           {"halted", false}})),
      links_(make_table({{"window", false},
                         {"end", false},
                         {"node", false},
                         {"port", false},
                         {"peer", false},
                         {"packets", false},
                         {"words", false}})),
      classes_(make_table({{"window", false}, {"end", false}, {"class", false}, {"words", false}, {"packets", false}})),
      jobs_(make_table({{"window", false},
                        {"end", false},
                        {"job", false},
                        {"pes", false},
                        {"delivered", false},
                        {"injected", false},
                        {"halted", false}})),
      halts_(make_table({{"cycle", false}, {"node", false}, {"halted", false}, {"job", false}})) {}

namespace {
std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

void Telemetry::on_start(const MachineView& v) {
  // A Telemetry may watch one run after another: each run starts its tables afresh.
  for (TelemetryTable* t : {&windows_, &links_, &classes_, &jobs_, &halts_})
    for (auto& c : t->columns) c.ints.clear(), c.reals.clear();
  index_ = 0;
  truncated_ = false;
  stops_ = stopped_ns_ = 0;
  started_ns_ = steady_ns(), ended_ns_ = 0;
  pes_ = v.pes();
  cycles_ = v.cycle_mode();
  last_ = v.totals();
  link_node_.clear(), link_port_.clear(), link_peer_.clear(), link_in_.clear();
  if (opt_.links) {  // the present out-links, once per run
    const Topology& topo = v.topology();
    for (node_t n = 0; n < v.nodes(); ++n)
      for (port_t p = 0; p < v.ports(); ++p) {
        const Link l = topo.out_link(n, p);
        if (!l.present()) continue;
        link_node_.push_back(n), link_port_.push_back(p), link_peer_.push_back(l.peer), link_in_.push_back(l.in_port);
      }
  }
  last_link_.resize(link_node_.size());
  for (std::size_t i = 0; i < link_node_.size(); ++i) last_link_[i] = v.link_packets(link_node_[i], link_port_[i]);
  last_inj_.assign(pes_, 0), last_del_.assign(pes_, 0);
  for (node_t n = 0; n < pes_; ++n) last_inj_[n] = v.injected(n), last_del_[n] = v.delivered(n);
  last_blocked_.assign(v.nodes(), 0);
  last_halted_.assign(v.nodes(), 0);
  for (node_t n = 0; n < v.nodes(); ++n) last_blocked_[n] = v.blocked(n), last_halted_[n] = v.halted(n);
  class_words_.assign(v.classes(), 0), class_packets_.assign(v.classes(), 0);
  if (opt_.jobs)  // job ids are bytes (no_job = 255)
    for (auto* j : {&job_pes_, &job_del_, &job_inj_, &job_halted_}) j->assign(256, 0);
  // The windows and classes tables grow by one row (classes rows) per window: room for 64 windows.
  for (auto& c : windows_.columns) c.real ? c.reals.reserve(64) : c.ints.reserve(64);
  for (auto& c : classes_.columns) c.ints.reserve(64u * v.classes());
}

void Telemetry::on_window(const MachineView& v, std::uint64_t begin, std::uint64_t end) {
  const node_t nodes = v.nodes();
  const class_t classes = v.classes();
  // Per node: the state at the end and what moved in the window.
  std::uint64_t injected = 0, blocked = 0, queued = 0, halted = 0;
  for (node_t n = 0; n < nodes; ++n) {
    const std::uint64_t b = v.blocked(n);
    blocked += b - last_blocked_[n];
    last_blocked_[n] = b;
    const bool h = v.halted(n);
    halted += h;
    if (opt_.jobs && h != (last_halted_[n] != 0)) {
      Row r{halts_};
      r << end << std::uint64_t{n} << std::uint64_t{h} << std::uint64_t{v.job_at(n)};
    }
    last_halted_[n] = h;
    if (n >= pes_) continue;
    queued += v.source_queue(n);
    const std::uint64_t i = v.injected(n), d = v.delivered(n);
    injected += i - last_inj_[n];
    if (opt_.jobs) {  // no_job (255): the PE runs no job at the window's end
      const std::uint8_t job = v.job_at(n);
      ++job_pes_[job];
      job_del_[job] += d - last_del_[n];
      job_inj_[job] += i - last_inj_[n];
      job_halted_[job] += h;
    }
    last_inj_[n] = i, last_del_[n] = d;  // (delivered per PE: the ledger's total is the exact one)
  }
  // Per buffer class: what is held at the end.
  v.held_per_class(class_words_, class_packets_);
  std::uint64_t words = 0, packets = 0;
  for (class_t c = 0; c < classes; ++c) {
    words += class_words_[c], packets += class_packets_[c];
    Row r{classes_};
    r << index_ << end << std::uint64_t{c} << class_words_[c] << class_packets_[c];
  }
  // Per link (Options::links): packets moved in the window, words held downstream at the end.
  if (!link_node_.empty()) {
    const bool room = links_.rows() + link_node_.size() <= opt_.max_link_rows;
    if (!room) truncated_ = true;
    for (std::size_t i = 0; i < link_node_.size(); ++i) {
      const std::uint64_t now = v.link_packets(link_node_[i], link_port_[i]);
      if (room) {
        std::uint64_t held = 0;
        for (class_t c = 0; c < classes; ++c) held += v.buffer_words(link_peer_[i], link_in_[i], c);
        Row r{links_};
        r << index_ << end << std::uint64_t{link_node_[i]} << std::uint64_t{link_port_[i]}
          << std::uint64_t{link_peer_[i]} << now - last_link_[i] << held;
      }
      last_link_[i] = now;
    }
  }
  // The ledger's totals.
  const MachineView::Totals t = v.totals();
  const std::uint64_t del = t.delivered - last_.delivered, meas = t.measured - last_.measured;
  const std::uint64_t lat = t.latency_sum - last_.latency_sum, net = t.net_latency_sum - last_.net_latency_sum;
  Row r{windows_};
  r << index_ << begin << end << injected << del << meas << lat << net << ratio(lat, meas) << ratio(net, meas)
    << (cycles_ ? ratio(del, std::uint64_t{pes_} * (end - begin))
                : ratio(del * 1000, std::uint64_t{pes_} * (end - begin)))  // async: per microsecond
    << t.hops - last_.hops << t.dropped - last_.dropped << words
    << packets << queued << blocked << halted;
  last_ = t;
  if (opt_.jobs)
    for (std::size_t j = 0; j < job_pes_.size(); ++j) {
      if (!job_pes_[j] && !job_del_[j] && !job_inj_[j]) continue;
      Row jr{jobs_};
      jr << index_ << end << std::uint64_t{j} << job_pes_[j] << job_del_[j] << job_inj_[j] << job_halted_[j];
      job_pes_[j] = job_del_[j] = job_inj_[j] = job_halted_[j] = 0;
    }
  ++index_;
}

void Telemetry::on_end(const MachineView&) { ended_ns_ = steady_ns(); }

void Telemetry::on_stopped(std::uint64_t ns) { ++stops_, stopped_ns_ += ns; }

nlohmann::json Telemetry::summary(const std::vector<std::string>& files) const {
  nlohmann::json j;
  j["window"] = window();
  j["time_unit"] = cycles_ ? "cycles" : "ns";  // of the tables' times; the window is in cycles or us
  j["windows"] = windows_.rows();
  const auto& end = windows_.columns[2].ints;
  const auto& del = windows_.columns[4].ints;
  const auto& occ = windows_.columns[13].ints;
  std::size_t pd = 0, po = 0;
  for (std::size_t i = 0; i < del.size(); ++i) {
    if (del[i] > del[pd]) pd = i;
    if (occ[i] > occ[po]) po = i;
  }
  if (!del.empty()) {
    j["peak_delivered"] = {{"packets", del[pd]}, {"window_end", end[pd]}};
    j["peak_occupancy_words"] = {{"words", occ[po]}, {"window_end", end[po]}};
  }
  j["rows"] = {{"windows", windows_.rows()}, {"classes", classes_.rows()}};
  if (opt_.links) j["rows"]["links"] = links_.rows();
  if (opt_.jobs) j["rows"].update({{"jobs", jobs_.rows()}, {"halts", halts_.rows()}});
  j["links"] = opt_.links;
  j["links_truncated"] = truncated_;
  // The cost of watching, measured: how long the world stood still for the windows.
  j["stops"] = stops_;
  j["stopped_s"] = static_cast<double>(stopped_ns_) * 1e-9;
  if (ended_ns_ > started_ns_)
    j["stopped_share"] = static_cast<double>(stopped_ns_) / static_cast<double>(ended_ns_ - started_ns_);
  if (!files.empty()) j["files"] = files;
  return j;
}

std::vector<std::pair<std::string, const TelemetryTable*>> Telemetry::tables() const {
  std::vector<std::pair<std::string, const TelemetryTable*>> t = {{"windows", &windows_}};
  if (opt_.links) t.emplace_back("links", &links_);
  t.emplace_back("classes", &classes_);
  if (opt_.jobs) t.insert(t.end(), {{"jobs", &jobs_}, {"halts", &halts_}});
  return t;
}

std::vector<std::string> Telemetry::csv_paths(const std::string& prefix) const {
  std::vector<std::string> p;
  for (const auto& [name, table] : tables()) p.push_back(prefix + name + ".csv");
  return p;
}

std::vector<std::string> Telemetry::write_csv(const std::string& prefix, const std::string& what) const {
  std::vector<std::string> paths;
  for (const auto& [name, table] : tables()) {
    paths.push_back(prefix + name + ".csv");
    write_text_file(paths.back(), table->csv(), what);
  }
  return paths;
}

}  // namespace rica
