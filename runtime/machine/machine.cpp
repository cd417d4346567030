// The machine's operations (runtime/machine/machine.hpp): allocation, sends, deliveries, the OS's
// operations, statistics, the exactly-once check and the analysis of a stuck machine. The
// drivers live in driver_async.cpp and driver_cycle.cpp.
#include "machine.hpp"

#include "driver_registry.hpp"
#include "rica/distributed.hpp"
#include "rica/footprint.hpp"
#include "rica/interrupt.hpp"
#include "rica/io.hpp"
#include "rica/routing_names.hpp"
#include "rica/suggest.hpp"
#include "rica/wake.hpp"

#include <fmt/ranges.h>

#include <cerrno>
#include <cstring>

namespace rica {

// ---- Context ------------------------------------------------------------------------------------
node_t Context::pes() const noexcept { return engine_.job(job_).size; }
const Topology& Context::topology() const noexcept { return engine_.topology(); }
std::uint64_t Context::now() const noexcept { return engine_.now(); }
void Context::send(node_t dst, handler_t handler, std::uint64_t w0, std::uint64_t w1) {
  const detail::JobRt& j = engine_.job(job_);
  if (dst >= j.size)
    throw std::logic_error(fmt::format("send: destination {} outside the job's {} PEs", dst, j.size));
  engine_.send(state_, gpe_, j.global(dst), handler, w0, w1, job_);
}
void Context::send_words(node_t dst, unsigned words, handler_t handler, std::uint64_t w0, std::uint64_t w1) {
  const EngineConfig& c = engine_.config();
  if (words + c.packet_spread < c.packet_words || words > c.packet_words + c.packet_spread)
    throw std::logic_error(fmt::format("send_words: {} words outside the configured {}+-{}", words, c.packet_words,
                                       c.packet_spread));
  send(dst, handler, w0, w1);
  state_.injq.back().words = static_cast<std::uint8_t>(words);  // the packet send() just queued
}
std::size_t Context::backlog() const noexcept { return state_.injq.size() - state_.injq_head; }
Rng& Context::rng() noexcept { return state_.rng; }
void Context::skip_opportunities(std::uint64_t k) noexcept {
  RICA_ASSERT(look_ahead_allowed(), "skip_opportunities without look-ahead allowed");
  state_.gen_skip += k;
}
void wake(Context& ctx) noexcept { detail::Machine::wake(ctx); }
bool Context::look_ahead_allowed() const noexcept { return !engine_.os_hooked(); }
bool Context::cycle_clock() const noexcept { return engine_.cycle_mode(); }

namespace detail {

void Machine::wake(Context& ctx) noexcept { ctx.state_.gen_skip = 0; }

Machine::Machine(const Topology& t, std::vector<JobRt> j, const EngineConfig& c)
    : topo_(t), jobs_(std::move(j)), cfg_(c) {
  cycle_mode_ = engine_traits(cfg_.engine).virtual_clock;
  allocate();
}

Machine::~Machine() = default;

void Machine::send(PeState& s, node_t src, node_t dst, handler_t h, std::uint64_t w0, std::uint64_t w1,
                   std::uint8_t job) {
  Packet p;
  p.src = src;
  p.dst = dst;
  p.job = job;
  p.seq = s.seq++;
  p.handler = h;
  p.words = static_cast<std::uint8_t>(draw_words(s.rng));
  p.inject_ns = now();
  p.payload[0] = w0;
  p.payload[1] = w1;
  s.injq.push_back(p);
  ++s.injected;
}

void Machine::app_turn_slow(PeState& s, node_t v, bool window_open) {
  const std::uint8_t jid = os_.job_at(v);
  if (jid == no_job) return;
  const JobRt& j = jobs_[jid];
  RICA_ASSERT(j.local(v) != no_node, "app_turn: a PE runs the application of a job it is not a PE of");
  Context ctx(*this, s, j.local(v), v, jid);
  if (!s.started) {
    s.started = true;
    j.app->start(ctx);
  }
  if (!s.generating) return;
  if (!window_open) {
    s.generating = false;
    return;
  }
  if (s.gen_skip) {  // an opportunity the app already drew for (Context::skip_opportunities)
    --s.gen_skip;
    return;
  }
  s.generating = j.app->generate(ctx);
}

void Machine::deliver(PeState& s, node_t v, const Packet& p, ThreadStats& ts) {
  const std::uint64_t t_now = now();
  const std::uint64_t lat = t_now - p.inject_ns;
  const std::uint64_t net = lat >= p.queued ? lat - p.queued : 0;
  const bool measured = p.inject_ns >= cfg_.warmup;  // warm-up packets count for conservation only
  if (measured) ts.measure(p, lat, net);
  if (cycle_mode_ && t_now >= cfg_.warmup && t_now < cfg_.cycles) ++ts.delivered_in_window;
  if (ledger_.tracing()) ledger_.trace(v, {p.src, p.dst, p.seq, p.hops, p.words, p.inject_ns, p.inject_ns + p.queued, t_now});
  ++ts.delivered;
  ts.sum_delivered_ids += packet_id(p);
  if (ledger_.mark(p, ts.beyond_bitmap)) ++ts.duplicates;
  const JobRt& j = jobs_[p.job];
  ThreadStats::JobFigures& jf = ts.job[p.job];
  ++jf.delivered;
  if (measured) {
    ++jf.measured;
    jf.lat_sum += lat;
    jf.lat_max = std::max(jf.lat_max, lat);
    jf.hops += p.hops;
  }
  const node_t local = j.local(v);
  if (v >= pes_ || local == no_node || os_.job_at(v) != p.job) ++jf.misdelivered;  // never: a bug if seen
  if (p.handler < j.handlers.size() && local != no_node) {
    Context ctx(*this, s, local, v, p.job);
    j.handlers[p.handler](ctx, p);
  }
  ++s.delivered;
  s.delivered_now.store(s.delivered, std::memory_order_relaxed);
}

// ---- OS operations ------------------------------------------------------------------------------

void Machine::switch_in(node_t v, std::uint8_t j, PeAppState&& st, std::uint64_t now) {
  os_.set_job(v, j);
  if (v >= pes_) return;
  PeState& s = pe_[v];
  if (jobs_[j].local(v) == no_node) {
    // A PE that is not one of j's but that j's routes cross (time sharing: a job owns the routers
    // of its closed partition, other rows' PEs among them). It runs no application of j: a
    // started PE that generates nothing; what it holds of j (requeue) only passes through.
    s.started = true;
    s.generating = false;
    s.gen_skip = 0;
  } else {
    s.started = st.started;
    s.generating = st.generating;
    s.gen_skip = st.gen_skip;
    s.rng = st.rng;
  }
  requeue(v, st.injq, now);
}

void Machine::place_job(std::size_t j, const std::vector<node_t>& pes) {
  JobRt& job = jobs_[j];
  RICA_ASSERT(job.placed_later && pes.size() == job.size, "place_job: not a job placed later, or the wrong size");
  for (node_t v = 0; v < nodes_; ++v) RICA_ASSERT(os_.job_at(v) != j, "place_job of a job that runs");
  job.global_of = pes;
  job.local_of.assign(pes_, no_node);
  for (node_t l = 0; l < job.size; ++l) {
    RICA_ASSERT(pes[l] < pes_ && job.local_of[pes[l]] == no_node, "place_job: a PE outside the machine or repeated");
    job.local_of[pes[l]] = l;
  }
}

void Machine::rebind_job(std::size_t j, JobRt rt) {
  RICA_ASSERT(j < jobs_.size() && rt.app && rt.placed_later, "rebind_job: no such id, no application, or not placed later");
#ifndef NDEBUG
  // None of j's packets is in the network: every one that entered it (at its source node) has
  // left it (at its destination, or into an OS save area): the sums over the nodes agree. Per
  // node they need not (a packet enters at one node and leaves at another). None waits in a
  // source queue to enter it, and no node runs j.
  std::uint64_t in = 0, out = 0;
  for (node_t v = 0; v < nodes_; ++v) {
    RICA_ASSERT(os_.job_at(v) != j, "rebind_job: the id still runs on a node");
    if (!holds(v)) continue;
    in += ledger_.net_in(j, v);
    out += ledger_.net_out(j, v);
    const PeState& s = pe_[v];
    for (std::size_t i = s.injq_head; i < s.injq.size(); ++i)
      RICA_ASSERT(s.injq[i].job != j, "rebind_job: a packet of the id waits in a source queue");
  }
  RICA_ASSERT(in == out, "rebind_job: the id has packets in the network (entered != left)");
#endif
  jobs_[j] = std::move(rt);
  ledger_.reset_job(j, [&](node_t v) { return holds(v); });
}

void Machine::reserve_sends(std::uint64_t per_pe) {
  if (per_pe && static_cast<double>(per_pe) * pes_ > 8e9) per_pe = 0;  // > 1 GB: checksum instead
  ledger_.record_ids(per_pe, pes_);
}

PeAppState Machine::switch_out(node_t v) {
  PeAppState st;
  os_.set_job(v, no_job);
  PeState& s = pe_[v];
  st.injq.assign(s.injq.begin() + static_cast<std::ptrdiff_t>(s.injq_head), s.injq.end());
  s.injq.clear();
  s.injq_head = 0;
  if (v < pes_) {
    st.started = s.started;
    st.generating = s.generating;
    st.gen_skip = s.gen_skip;
    st.rng = s.rng;
    s.generating = false;
    s.gen_skip = 0;
    s.started = false;
  }
  return st;
}

void Machine::requeue(node_t v, std::vector<Packet>& packets, std::uint64_t now) {
  PeState& s = pe_[v];
  os_.touch(v);
  for (Packet& p : packets) {
    p.cls = 0;  // a fresh self-route from here: the class bound still holds
    p.ready = p.tail = static_cast<std::uint32_t>(now);
    s.injq.push_back(p);
  }
  packets.clear();
}

ThreadStats::JobFigures Machine::job_figures(std::size_t j) const { return ledger_.job_figures(j); }

bool Machine::packets_left() const {
  for (node_t v = 0; v < nodes_; ++v)
    if (holds(v) && holds_packets(v)) return true;  // another rank's: Ranks::any asks every rank
  return false;
}

bool Machine::generating() const {
  for (node_t v = 0; v < pes_; ++v)
    if (holds(v) && pe_[v].generating) return true;
  return false;
}

bool Machine::routing_reads_board() const {
  return visit_routed(topo_, cfg_.routing, [](const auto& x) {
    if constexpr (requires { x.routing; }) return BoardRouting<std::decay_t<decltype(x.routing)>>;
    return false;
  });
}

void Machine::check_ranks_supported() const {
  if (!engine_traits(cfg_.engine).over_ranks)
    dist::require_one_process(fmt::format("the {} engine", to_string(cfg_.engine)));
  if (std::holds_alternative<FaultyTopology>(topo_.variant())) dist::require_one_process("--faults");
  if (routing_reads_board()) dist::require_one_process(fmt::format("--routing {}", to_string(cfg_.routing)));
  for (const JobRt& j : jobs_)
    if (!j.app->spans_ranks())
      dist::require_one_process("this application (it does not gather its results across ranks: App::spans_ranks)");
}

}  // namespace detail

namespace {
/// machine_bytes with `rows` ports in use over the held nodes (the machine's NodeRows: an indirect
/// network's PEs use fewer ports than its routers).
double machine_bytes_rows(double held, double rows, port_t ports, class_t classes, double jobs, const EngineConfig& cfg) {
  // The whole footprint, estimated before anything is allocated (issue 11): link buffers (object,
  // index ring, bitmaps, credit, and the packet slots they touch), per-node state, per-port
  // tables, the cycle engine's tables, and each job's per-PE application state as the application
  // declares nothing better: a PeState-sized allowance per PE.
  // Packet slots become resident only as packets fill the buffers (rica/link_buffer.hpp): the
  // estimate allows four packets in flight per node; a run that fills every buffer needs up to
  // capacity / shortest packet slots per buffer (sizeof(Packet) each) more.
  const unsigned min_words = cfg.packet_words - cfg.packet_spread;
  // Per-port tables have a row per port in use (runtime/machine/node_rows.hpp): `rows` of them;
  // the run's per-link result table (RunStats::link_packets) has every node's `ports`.
  const std::uint32_t buffers = std::uint32_t{ports} * classes;
  const double nodes = held, links = rows, all = rows * classes;
  double bytes = LinkBufferSet::fixed_bytes(static_cast<std::size_t>(all), cfg.buffer_words, min_words) +
                 all * (sizeof(LinkBuffer::Credit) + 4) + nodes * 4.0 * sizeof(PacketSlot);
  bytes += nodes * (2.0 * sizeof(detail::PeState) + 16.0 * ((buffers + 63) / 64) + 8 + 16.0 * jobs);
  bytes += links * (4 + 8 + engine_info(cfg.engine).link_bytes) + nodes * ports * (8.0 + (jobs > 1 ? 8.0 * jobs : 0));
  return bytes;
}

/// The ports in use summed over a topology's nodes, as the machine lays out its rows (NodeRows:
/// an indirect network's PEs, numbered first, get their links' ports; estimated from a sample of
/// them); 0 for a direct network (every node at full width).
double port_rows(const std::string& spec, const TopologySize& s) {
  if (s.pes >= s.nodes) return 0;
  const Topology t = TopologyRegistry::parse(spec);
  port_t w = 1;
  t.visit([&](const auto& x) {
    const node_t n = x.pes(), step = std::max<node_t>(1, n / 64);
    for (node_t v = 0; v < n; v += step)
      for (port_t p = 0; p < x.ports(); ++p)
        if (x.out_link(v, p).present()) w = std::max<port_t>(w, static_cast<port_t>(p + 1));
  });
  return s.pes * w + (s.nodes - s.pes) * s.ports;
}

double run_bytes_rows(const TopologySize& s, double rows, const EngineConfig& cfg, double sends_per_pe) {
  const double bits = sends_per_pe * s.pes;
  if (rows <= 0) rows = s.nodes * s.ports;
  return machine_bytes_rows(s.nodes, rows, s.ports, cfg.classes ? s.classes : class_t{1}, 1, cfg) +
         (bits <= 8e9 ? bits / 8 : 0);
}
}  // namespace

double machine_bytes(double held, port_t ports, std::uint32_t buffers, double jobs, const EngineConfig& cfg) {
  const port_t p = ports ? ports : port_t{1};
  return machine_bytes_rows(held, held * p, p, static_cast<class_t>(buffers / p), jobs, cfg);
}

double run_bytes(const TopologySize& s, const EngineConfig& cfg, double sends_per_pe) {
  return run_bytes_rows(s, 0, cfg, sends_per_pe);
}

namespace {
// The guard of rica/footprint.hpp.
void refuse_above_room(const std::string& command, const std::string& spec, const TopologySize& s, double bytes) {
  require_memory(fmt::format("rica {} {} ({:.0f} nodes x {} ports)", command, quote_input(spec, 80), s.nodes, s.ports), bytes,
                 "choose a smaller network");
}
}  // namespace

TopologySize check_memory_for(const std::string& command, const std::string& spec, const Footprint& f) {
  const TopologySize s = TopologyRegistry::size(spec);
  refuse_above_room(command, spec, s, s.nodes * (f.per_node + f.per_link * s.ports));
  return s;
}

void check_run_memory(const std::string& command, const std::string& spec, const EngineConfig& cfg,
                      double sends_per_pe, unsigned machines) {
  const TopologySize s = TopologyRegistry::size(spec);
  refuse_above_room(command, spec, s, machines * run_bytes_rows(s, port_rows(spec, s), cfg, sends_per_pe));
}

namespace detail {

void Machine::check_memory(double held) const {
  // machine_bytes (rica/footprint.hpp), the exactly-once bitmap, and under mpirun the dense
  // per-node tables; a rank allocates the tables of the nodes it holds (its own and its ghosts) only.
  // held rows: every row with one process (under mpirun the layout is uniform).
  const double nodes = held, rows = ranks_ ? held * ports_ : static_cast<double>(rows_.total);
  const double buffers = rows * classes_;
  const auto jobs = static_cast<double>(jobs_.size());
  double bytes = machine_bytes_rows(held, rows, ports_, classes_, jobs, cfg_);
  double bits = 0;
  for (const JobRt& j : jobs_) bits += static_cast<double>(j.app->max_sends_per_pe()) * j.size;
  if (bits <= 8e9) bytes += bits / 8;
  if (ranks_) bytes += static_cast<double>(nodes_) * 16;  // the dense per-node tables (owner, job, epoch, ...)
  const MemoryRoom room = memory_room();  // rica/core.hpp
  if (bytes > 0.9 * room.resident)
    throw usage_error(fmt::format(
        "memory: the machine needs about {:.1f} GB ({} nodes x {} ports x {} classes of {}-word buffers, "
        "{:.0f} bytes per node) but {:.1f} GB are available (free memory, ulimit -v/-d, RICA_MEMORY_LIMIT); reduce --buffer-words "
        "or the network size",
        bytes / 1e9, static_cast<std::uint64_t>(held), ports_, classes_, cfg_.buffer_words, bytes / nodes,
        room.resident / 1e9));
  // The packet pool maps room for every packet the buffers could hold at once (resident only as
  // used), which counts against ulimit -v / -d.
  const double pool = LinkBufferSet::pool_bytes(static_cast<std::size_t>(buffers), cfg_.buffer_words, min_words_);
  if (bytes + pool > 0.9 * room.address)
    throw usage_error(fmt::format(
        "memory: the machine needs about {:.1f} GB of address space ({:.1f} GB at once, up to {:.1f} GB more as "
        "its {} nodes x {} ports x {} classes of {}-word buffers fill) but {:.1f} GB are available (ulimit -v/-d); "
        "raise the limit, reduce --buffer-words or the network size",
        (bytes + pool) / 1e9, bytes / 1e9, pool / 1e9, static_cast<std::uint64_t>(held), ports_, classes_,
        cfg_.buffer_words, room.address / 1e9));
}

port_t Machine::terminal_width() const {
  // Every port a link leaves a PE by or arrives at one on (a faulty network: its base's links,
  // as the link times, so a failed link keeps its rows).
  const Topology& shape = std::holds_alternative<FaultyTopology>(topo_.variant())
                              ? std::get<FaultyTopology>(topo_.variant()).base()
                              : topo_;
  port_t w = 1;
  shape.visit([&](const auto& t) {
    for (node_t v = 0; v < nodes_; ++v)
      for (port_t p = 0; p < ports_; ++p) {
        const Link l = t.out_link(v, p);
        if (!l.present()) continue;
        if (v < pes_) w = std::max<port_t>(w, static_cast<port_t>(p + 1));
        if (l.peer < pes_) w = std::max<port_t>(w, static_cast<port_t>(l.in_port + 1));
      }
  });
  return std::min(w, ports_);
}

void Machine::allocate() {
  nodes_ = topo_.nodes();
  pes_ = topo_.pes();
  ports_ = topo_.ports();
  check_routing(topo_, cfg_.routing);
  classes_ = cfg_.classes ? routing_classes(topo_, cfg_.routing) : class_t{1};
  route_seed_ = mix64(cfg_.seed ^ 0x5851f42d4c957f2dULL);
  min_words_ = cfg_.packet_words - cfg_.packet_spread;
  n_buf_ = static_cast<std::uint32_t>(ports_) * classes_;
  if (dist::size() > 1) {  // under mpirun: the machine over the ranks (runtime/machine/ranks.hpp)
    check_ranks_supported();
    ranks_ = make_ranks(*this);
  }
  // held[v]: 2 for a node of this process, 1 for a ghost (another rank's node a node of this
  // process sends to: its input buffers only), 0 otherwise. With one process every node is held.
  std::vector<std::uint8_t> held;
  double held_nodes = nodes_;
  if (ranks_) {
    held.assign(nodes_, 0);
    topo_.visit([&](const auto& t) {
      for (node_t v = 0; v < nodes_; ++v) {
        if (!ranks_->mine(v)) continue;
        held[v] = 2;
        for (port_t p = 0; p < ports_; ++p) {
          const Link l = t.out_link(v, p);
          if (l.present() && !ranks_->mine(l.peer)) held[l.peer] = 1;
        }
      }
    });
    held_nodes = 0;
    for (node_t v = 0; v < nodes_; ++v) held_nodes += held[v] != 0;
  }
  // Rows per port in use (node_rows.hpp): an indirect network's PEs (numbered first) get rows for
  // the ports their links use, the routers the topology's width. Over MPI ranks: every node alike.
  rows_ = ranks_ || pes_ == nodes_ ? NodeRows::uniform(nodes_, ports_)
                                   : NodeRows::two(nodes_, pes_, terminal_width(), ports_);
  uniform_rows_ = rows_.is_uniform() && rows_.wide == ports_;  // Machine::buffer_row relies on it
  check_memory(held_nodes);
  const std::size_t nbuf = rows_.total * classes_;
  if (nbuf > 0xffffffffULL)  // credit indices are 32-bit
    throw usage_error(fmt::format("memory: {} link buffers; at most 2^32 - 1: choose a smaller network", nbuf));
  // The tables are indexed by the nodes' rows; only the held nodes' entries are written (every
  // entry, with one process), so only theirs become resident (runtime/machine/sparse.hpp).
  auto fill = [&](auto& table, std::size_t per_port, const auto& value) {
    table.resize(rows_.total * per_port);
    for (node_t v = 0; v < nodes_; ++v)
      if (holds(v))
        std::fill_n(table.begin() + static_cast<std::ptrdiff_t>(rows_.row(v) * per_port),
                    std::size_t{rows_.width(v)} * per_port, value);
  };
  buffers_ = ranks_ ? std::make_unique<LinkBufferSet>(nbuf, cfg_.buffer_words, min_words_, n_buf_, held)
                    : std::make_unique<LinkBufferSet>(nbuf, cfg_.buffer_words, min_words_);
  LinkBuffer* bufs = buffers_->data();
  main_slots_.attach(buffers_->pool());
  fill(credits_, classes_, LinkBuffer::Credit{});
  if (routing_reads_board())  // zero: every buffer empty
    board_ = std::make_unique<std::atomic<std::uint32_t>[]>(rows_.total);
  fill(upstream_, 1, no_node);
  fill(link_packets_, 1, std::uint64_t{0});
  pe_.build(nodes_, [&](std::size_t v) { return holds(static_cast<node_t>(v)); });
  mask_words_ = (n_buf_ + 63) / 64;
  work_words_.resize(std::size_t{nodes_} * mask_words_);  // zero: no input holds packets
  fill(up_credit_, classes_, std::uint32_t{0});
  topo_.visit([&](const auto& t) {
    for (node_t v = 0; v < nodes_; ++v)
      for (port_t p = 0, w = rows_.width(v); p < w; ++p) {
        const Link l = t.out_link(v, p);
        if (!l.present() || !holds(l.peer)) continue;  // the consumer's tables: its process's
        RICA_ASSERT(l.in_port < rows_.width(l.peer), "a link into a port beyond its node's rows");
        const std::size_t in = rows_.row(l.peer) + l.in_port;
        upstream_[in] = v;
        for (class_t c = 0; c < classes_; ++c)
          up_credit_[in * classes_ + c] = static_cast<std::uint32_t>((rows_.row(v) + p) * classes_ + c);
      }
  });
  for (node_t v = 0; v < nodes_; ++v) {
    if (!holds(v)) continue;
    PeState& s = pe_[v];
    s.inputs = bufs + rows_.row(v) * classes_;
    s.upstream = upstream_.data() + rows_.row(v);
    s.rng = Rng(mix64(cfg_.seed * 0x9e3779b97f4a7c15ULL + v));
    s.generating = v < pes_;
  }
  os_.reset(nodes_);
  ledger_.allocate(nodes_, ports_, jobs_.size(), [&](node_t v) { return holds(v); });
  for (std::size_t j = 0; j < jobs_.size(); ++j)
    for (node_t l = 0; l < jobs_[j].size && !jobs_[j].placed_later; ++l)
      if (os_.job_at(jobs_[j].global(l)) == no_job) os_.set_job(jobs_[j].global(l), static_cast<std::uint8_t>(j), false);
  for (node_t v = 0; v < pes_; ++v)  // a PE with no job is idle (another rank's PEs are not held here)
    if (holds(v)) pe_[v].generating = os_.job_at(v) != no_job;
  // Exact exactly-once check: bits per source = the most any PE may send over all its jobs.
  std::uint64_t bitmap_k = 0;
  if (jobs_.size() == 1) {  // every PE of the one job may send k: no per-PE table needed
    bitmap_k = jobs_[0].size ? jobs_[0].app->max_sends_per_pe() : 0;
  } else {
    std::vector<std::uint64_t> bound(pes_, 0);
    bool known = true;
    for (const JobRt& j : jobs_) {
      const std::uint64_t k = j.app->max_sends_per_pe();
      known = known && k > 0;
      if (j.placed_later)  // any PE may host it
        for (std::uint64_t& b : bound) b += k;
      else
        for (node_t l = 0; l < j.size; ++l) bound[j.global(l)] += k;
    }
    bitmap_k = known ? *std::max_element(bound.begin(), bound.end()) : 0;
  }
  if (bitmap_k && static_cast<double>(bitmap_k) * pes_ > 8e9) bitmap_k = 0;  // > 1 GB: checksum instead
  ledger_.record_ids(bitmap_k, pes_);
  if (cycle_mode_) {  // link time per sending node: fixed, or its in-degree + out-degree (MDCE)
    link_len_.assign(nodes_, cfg_.link_cycles ? cfg_.link_cycles : 0);
    if (!cfg_.link_cycles) {
      std::vector<std::uint32_t> in(nodes_, 0);
      // A faulty network keeps its base's link times (a failed link frees no pins).
      const Topology& shape = std::holds_alternative<FaultyTopology>(topo_.variant())
                                  ? std::get<FaultyTopology>(topo_.variant()).base()
                                  : topo_;
      shape.visit([&](const auto& t) {
        for (node_t v = 0; v < nodes_; ++v)
          for (port_t p = 0; p < ports_; ++p) {
            const Link l = t.out_link(v, p);
            if (l.present()) ++link_len_[v], ++in[l.peer];
          }
      });
      for (node_t v = 0; v < nodes_; ++v) link_len_[v] = std::max(1u, link_len_[v] + in[v]);
    }
    max_link_len_ = cfg_.link_cycles_words ? cfg_.packet_words + cfg_.packet_spread
                                           : *std::max_element(link_len_.begin(), link_len_.end());
  }
  setup_faults();
}

void Machine::write_trace(const std::string& path) {
  std::vector<TraceRow> rows;
  for (auto& r : ledger_.traces()) rows.insert(rows.end(), r.begin(), r.end());
  std::sort(rows.begin(), rows.end(), [](const TraceRow& a, const TraceRow& b) {
    return std::tie(a.deliver, a.dst, a.src, a.seq) < std::tie(b.deliver, b.dst, b.src, b.seq);
  });
  // `enter`: when the packet left its source queue (network latency = deliver - enter); `words`:
  // its length.
  static_assert(trace_columns.size() == 8, "a row below prints one field per trace column, in their order");
  auto fill = [&rows](std::FILE* f) {
    bool ok = std::fprintf(f, "%s\n", trace_header().c_str()) > 0;
    for (const auto& r : rows)
      ok = ok && std::fprintf(f, "%u,%u,%u,%llu,%llu,%u,%llu,%u\n", r.src, r.dst, r.seq,
                              static_cast<unsigned long long>(r.inject), static_cast<unsigned long long>(r.deliver),
                              static_cast<unsigned>(r.hops), static_cast<unsigned long long>(r.enter),
                              static_cast<unsigned>(r.words)) > 0;
    return ok;
  };
  // "-" is standard output (its write errors checked here as a file's; a closed pipe is exit 2 or
  // SIGPIPE's death, never success); a file is replaced whole (write_file_streamed: a hidden
  // sibling renamed over it, so an interrupted or failed write leaves no half-written trace).
  if (path != "-") return write_file_streamed(path, fill, "--trace");
  if (!fill(stdout) || std::fflush(stdout) != 0 || std::ferror(stdout))
    throw usage_error(fmt::format("--trace: cannot write standard output: {}", std::strerror(errno)));
}

void Machine::node_figures(RunStats& st, NodeSums& sums) {
  const bool tables = st.pe_forwarded.size() == nodes_;  // not on a rank other than 0 (Ranks::gather)
  for (node_t v = 0; v < nodes_; ++v) {
    if (!holds(v)) continue;
    const PeState& s = pe_[v];
    if (v < pes_) {
      if (tables) st.pe_injected[v] = s.injected, st.pe_delivered[v] = s.delivered;
      sums.injected += s.injected;
      sums.generating += s.generating;
      for (std::uint32_t q = 0; q < s.seq; ++q) sums.injected_ids += packet_id(Packet{v, 0, q});
    }
    if (tables) {
      st.pe_forwarded[v] = s.forwarded;
      st.pe_blocked[v] = s.blocked;
      for (port_t p = 0, w = rows_.width(v); p < w; ++p) st.link_packets[std::size_t{v} * ports_ + p] = link_packets(v)[p];
    }
    sums.forwarded += s.forwarded;
    sums.blocked += s.blocked;
    for (std::uint32_t i = 0, n = inputs(v); i < n; ++i) {
      const LinkBuffer& b = s.inputs[i];
      if (b.empty()) continue;
      sums.in_network += b.size();
      // Words held: by the producer's credit for it (exact when quiescent; under mpirun the
      // owner's copy of a remote producer's credit counts what the exchange pushed).
      const bool fed = upstream_[rows_.row(v) + i / classes_] != no_node;
      const unsigned held = fed ? b.words_held(credits_[up_credit(v, i)]) : 0;
      const Packet& h = b.front();
      ledger_.stuck().push_back({v, i, b.size(), held, h.dst, h.cls, h.src, h.seq});
    }
    sums.in_network += s.injq.size() - s.injq_head;
    for (std::size_t i = s.injq_head; i < s.injq.size(); ++i) sums.in_net_ids += packet_id(s.injq[i]);
  }
}

void Machine::size_tables(RunStats& st) const {
  st.pe_injected.assign(pes_, 0);
  st.pe_delivered.assign(pes_, 0);
  st.pe_forwarded.assign(nodes_, 0);
  st.pe_blocked.assign(nodes_, 0);
  st.link_packets.assign(std::size_t{nodes_} * ports_, 0);
}

void Machine::collect(RunStats& st) {
  // Under mpirun only rank 0 holds the figures of every rank (Ranks::gather); the others' are
  // not computed (their tables stay empty) and their verdict comes from rank 0 (share_outcome).
  if (ranks_ && ranks_->rank != 0) return;
  if (!ranks_) {  // one process; under mpirun Ranks::gather() did this, over every rank (rank 0)
    size_tables(st);
    ledger_.sums() = {};
    ledger_.stuck().clear();
    node_figures(st, ledger_.sums());
  }
  st.injected += ledger_.sums().injected;
  st.forwarded += ledger_.sums().forwarded;
  st.blocked += ledger_.sums().blocked;
  st.in_network += ledger_.sums().in_network;
  const bool generating = ledger_.sums().generating != 0;
  if (os_.hook()) st.in_network += os_.hook()->held();  // held by the OS (a run stopped mid-switch)
  ThreadStats all;  // every thread's figures
  for (const ThreadStats& ts : ledger_.threads()) all.add(ts);
  std::uint64_t dropped_ids = 0;
  collect_faults(st, all, dropped_ids);
  const std::uint64_t sum_ids = all.sum_delivered_ids, beyond = all.beyond_bitmap;
  st.delivered += all.delivered;
  st.hops += all.hops;
  st.duplicates += all.duplicates;
  st.hops_max = std::max(st.hops_max, all.hops_max);
  st.latency_max = std::max(st.latency_max, static_cast<double>(all.lat_max));
  st.latency_mean += static_cast<double>(all.lat_sum);
  st.net_latency_max = std::max(st.net_latency_max, static_cast<double>(all.net_lat_max));
  st.net_latency_mean += static_cast<double>(all.net_lat_sum);
  const std::vector<std::uint64_t>& lat = all.lat_hist;
  const std::vector<std::uint64_t>& net_lat = all.net_lat_hist;
  st.hop_histogram = all.hop_hist;
  st.latency_histogram = all.lat_hist;
  st.net_latency_histogram = all.net_lat_hist;
  for (auto [from, to] : {std::pair{&all.class_hist, &st.class_latency_histograms},
                          std::pair{&all.job_hist, &st.job_latency_histograms}}) {
    const std::size_t B = ThreadStats::lat_buckets, groups = from->size() / (2 * B);
    to->assign(groups, {});
    for (std::size_t g = 0; g < groups; ++g)
      for (std::size_t k = 0; k < 2; ++k) (*to)[g][k].assign(from->begin() + (g * 2 + k) * B, from->begin() + (g * 2 + k + 1) * B);
  }
  while (st.hop_histogram.size() > 1 && st.hop_histogram.back() == 0) st.hop_histogram.pop_back();
  st.measured += all.measured;
  const std::uint64_t in_window = all.delivered_in_window;
  if (cycle_mode_) {
    st.latency_unit = "cycles";
    st.cycles_run = cycle_;
    const double window = static_cast<double>(cfg_.cycles > cfg_.warmup ? cfg_.cycles - cfg_.warmup : 0);
    st.throughput = window > 0 ? static_cast<double>(in_window) / (window * pes_) : 0.0;
  }
  if (st.measured) {
    st.latency_mean /= static_cast<double>(st.measured);
    // exact: the histogram's last bucket holds every count from 255 up
    st.hops_mean = static_cast<double>(all.hop_sum) / static_cast<double>(st.measured);
    st.net_latency_mean /= static_cast<double>(st.measured);
    // Quantiles from the log-linear histograms (within 1/16 of the value), capped by the max.
    auto quantile = [&](const std::vector<std::uint64_t>& hist, double max, double q) {
      const double target = q * static_cast<double>(st.measured);
      double acc = 0;
      for (unsigned b = 0; b < hist.size(); ++b) {
        acc += static_cast<double>(hist[b]);
        if (acc >= target) return std::min(lat_bucket_mid(b), max);
      }
      return max;
    };
    st.latency_p50 = quantile(lat, st.latency_max, 0.5);
    st.latency_p99 = quantile(lat, st.latency_max, 0.99);
    st.latency_p999 = quantile(lat, st.latency_max, 0.999);
    st.net_latency_p50 = quantile(net_lat, st.net_latency_max, 0.5);
    st.net_latency_p99 = quantile(net_lat, st.net_latency_max, 0.99);
  }
  // Exactly-once: every injected (src, seq) delivered once.
  const std::uint64_t sum_injected_ids = ledger_.sums().injected_ids, in_net_ids = ledger_.sums().in_net_ids;
  if (ledger_.bitmap_k() && beyond == 0) {
    st.verify_method = "bitmap";
    const std::uint64_t distinct = ledger_.distinct_marked();
    // Dropped packets are marked in the bitmap too: distinct = delivered + dropped.
    st.lost = st.injected - std::min(st.injected, distinct + st.in_network);
    st.conservation_ok = st.injected == st.delivered + st.in_network + st.dropped_by_faults && st.duplicates == 0 &&
                         distinct == st.delivered + st.dropped_by_faults && st.lost == 0;
  } else {
    st.verify_method = "checksum";
    st.duplicates = 0;
    // Packets still inside link buffers are not in the checksum; only claim ok when the network is empty.
    const std::uint64_t out = st.delivered + st.in_network + st.dropped_by_faults;
    st.conservation_ok = st.injected == out && st.in_network == 0 && sum_ids + dropped_ids + in_net_ids == sum_injected_ids;
    st.lost = st.conservation_ok ? 0 : (st.injected > out ? st.injected - out : 0);
  }
  // Link loads.
  std::uint64_t used = 0, total = 0;
  topo_.visit([&](const auto& t) {
    for (node_t v = 0; v < nodes_; ++v)
      for (port_t p = 0; p < ports_; ++p)
        if (t.out_link(v, p).present() && t.out_link(v, p).peer != v) {
          const std::uint64_t n = st.link_packets[std::size_t{v} * ports_ + p];
          st.link_load_max = std::max(st.link_load_max, n);
          total += n;
          ++used;
        }
  });
  st.link_load_mean = used ? static_cast<double>(total) / static_cast<double>(used) : 0.0;
  st.packets_per_s = st.wall_s > 0 ? static_cast<double>(st.delivered) / st.wall_s : 0;
  st.packet_hops_per_s = st.wall_s > 0 ? static_cast<double>(st.hops) / st.wall_s : 0;
  if (!st.deadlock && (generating || st.in_network)) {
    st.deadlock = true;  // quiescent with work left: nothing can move
  }
}

void Machine::analyse_stuck(RunStats& st) {
  // Wait-for graph over buffers: a non-empty input buffer whose head cannot enter its next buffer
  // waits on that buffer. A cycle of full buffers is the deadlock. The non-empty buffers are
  // stuck_ (collect(); under mpirun every rank's), sorted by buffer id.
  const std::uint32_t nb = static_cast<std::uint32_t>(ports_) * classes_;
  constexpr std::uint64_t none = ~std::uint64_t{0};
  auto id = [&](node_t v, std::uint32_t i) { return std::uint64_t{v} * nb + i; };
  const std::size_t n = ledger_.stuck().size();
  std::vector<std::uint64_t> waits(n, none);  // [k]: the buffer id ledger_.stuck()[k]'s head waits on
  std::uint64_t full = 0, stuck_packets = 0;
  std::string full_list;
  topo_.visit([&](const auto& t) {
    for (std::size_t k = 0; k < n; ++k) {
      const StuckBuffer& b = ledger_.stuck()[k];
      stuck_packets += b.packets;
      // Adaptive routing: a stuck head waits on its escape hop (every candidate is full).
      Packet pk;
      pk.src = b.src, pk.dst = b.dst, pk.seq = b.seq;
      const Hop h = cfg_.routing == Routing::deterministic
                        ? t.route(b.v, b.dst, b.cls)
                        : route_candidates(topo_, cfg_.routing, b.v, b.dst, b.cls, &pk, cfg_.seed).escape;
      if (h.delivers()) continue;
      const Link l = t.out_link(b.v, h.port());
      const class_t nc = cfg_.classes ? h.next_class() : class_t{0};
      waits[k] = id(l.peer, static_cast<std::uint32_t>(l.in_port) * classes_ + nc);
    }
  });
  for (const StuckBuffer& b : ledger_.stuck())
    if (b.held + min_words_ > cfg_.buffer_words) {
      ++full;
      if (full <= 16)
        full_list += fmt::format("{}{} in-port {} class {} ({} packets, {}/{} words)", full > 1 ? "; " : "",
                                 topo_.label(b.v), b.in / classes_, b.in % classes_, b.packets, b.held,
                                 cfg_.buffer_words);
    }
  // Find a cycle by walking the (functional) wait graph from every waiting buffer; a walk ends
  // at an empty buffer (not in stuck_: it waits on nothing).
  auto index_of = [&](std::uint64_t buffer) -> std::size_t {
    const auto it = std::lower_bound(ledger_.stuck().begin(), ledger_.stuck().end(), buffer,
                                     [&](const StuckBuffer& b, std::uint64_t x) { return id(b.v, b.in) < x; });
    return it != ledger_.stuck().end() && id(it->v, it->in) == buffer ? static_cast<std::size_t>(it - ledger_.stuck().begin()) : n;
  };
  std::vector<std::uint8_t> color(n, 0);
  std::string wait_cycle;
  std::size_t cycle_buffers = 0;  // buffers on the waiting cycle found
  for (std::size_t start = 0; start < n && wait_cycle.empty(); ++start) {
    if (color[start] || waits[start] == none) continue;
    std::vector<std::size_t> path;
    std::size_t cur = start;
    while (cur != n && color[cur] == 0) {
      color[cur] = 1;
      path.push_back(cur);
      cur = waits[cur] == none ? n : index_of(waits[cur]);
    }
    if (cur != n && color[cur] == 1) {
      auto it = std::find(path.begin(), path.end(), cur);
      cycle_buffers = static_cast<std::size_t>(path.end() - it);
      std::size_t shown = 0;
      for (; it != path.end() && shown < 32; ++it, ++shown) {
        const StuckBuffer& b = ledger_.stuck()[*it];
        wait_cycle += fmt::format("{} (in-port {}, class {}) -> ", topo_.label(b.v), b.in / classes_, b.in % classes_);
      }
      if (it != path.end()) wait_cycle += "... -> ";
      const StuckBuffer& b = ledger_.stuck()[cur];
      wait_cycle += fmt::format("{} (in-port {}, class {})", topo_.label(b.v), b.in / classes_, b.in % classes_);
    }
    for (auto p : path) color[p] = 2;
  }
  // in_network (collect()) = packets in link buffers (stuck_packets) + those still waiting at
  // their sources to enter (+ any the OS holds): both named, so the counts add up.
  const std::uint64_t waiting = st.in_network > stuck_packets ? st.in_network - stuck_packets : 0;
  const std::string where = fmt::format("{} packets in the network: {} in link buffers, {} waiting to enter at their "
                                        "sources{}", st.in_network, stuck_packets, waiting,
                                        os_.hook() ? " or held by the OS" : "");
  st.deadlock_report = fmt::format("deadlock: {}; {} full buffers{}\n", where, full,
                                   full ? fmt::format(" ({}{})", full_list, full > 16 ? ", ..." : "") : "");
  if (!wait_cycle.empty()) {
    st.deadlock_report += "waiting cycle: " + wait_cycle + "\n";
    // The result line's reason ("result NOT verified: <why>", the JSON's app_message).
    st.app_message = fmt::format("deadlock: waiting cycle of {} buffers ({} ...); {}", cycle_buffers,
                                 wait_cycle.substr(0, wait_cycle.find(" -> ")), where);
  } else {
    st.deadlock_report += "no waiting cycle among link buffers (the application stopped with packets or work left)\n";
    st.app_message = fmt::format("deadlock: no waiting cycle among link buffers (the application stopped with "
                                 "packets or work left); {}", where);
  }
}

}  // namespace detail

void validate(const EngineConfig& cfg) {
  // Every bound from defaults::limits, where the CLI's option table reads it too.
  namespace lim = defaults::limits;
  detail::check_range("run", "threads", cfg.threads, 0, lim::threads);
  detail::check_range("run", "packet-words (mean)", cfg.packet_words, 1, lim::packet_words);
  detail::check_range("run", "packet-words (spread)", cfg.packet_spread, 0, cfg.packet_words - 1);
  detail::check_range("run", "buffer-words", cfg.buffer_words, cfg.packet_words + cfg.packet_spread, lim::buffer_words);
  detail::check_range("run", "batch", cfg.batch, 1, lim::batch);
  detail::check_range("run", "block", cfg.block, 1, lim::block);
  if (cfg.cycles < 1 || cfg.cycles > lim::cycles)
    throw usage_error(fmt::format("run: parameter 'cycles' = {} is out of range [1, 2^31]", cfg.cycles));
  if (cfg.warmup >= cfg.cycles)
    throw usage_error(fmt::format("run: parameter 'warmup' = {} must be below 'cycles' = {}", cfg.warmup, cfg.cycles));
  detail::check_range("run", "link-cycles", cfg.link_cycles, 0, lim::link_cycles);
  detail::check_range("run", "router-cycles", cfg.router_cycles, 0, lim::router_cycles);
  (void)engine_info(cfg.engine);  // a registered engine (usage_error otherwise)
  if (cfg.router_cycles != 0) require_trait(cfg.engine, &EngineTraits::router_cycles, "--router-cycles");
  if (!std::has_single_bit(cfg.block))
    throw usage_error(fmt::format("run: parameter 'block' = {} must be a power of two in [1, {}]", cfg.block, lim::block));
}

namespace detail {
RunStats run_prepared(Machine& m, Observers observers) {
  if (!m.config().trace.empty()) m.ledger().start_trace(m.pes());
  // Under mpirun the ranks were made by allocate() (each rank allocates its own nodes only);
  // the engine, faults and the application were checked there.
  if (m.ranks() && m.os_hooked()) dist::require_one_process("the OS layer");
  if (m.ranks() && !observers.empty()) dist::require_one_process("observers (rica/observer.hpp)");
  for (const Observer* o : observers) {
    if (!o) throw usage_error("run: an observer is null");
    if (o->window() < 1) throw usage_error("run: an observer's window must be at least 1 cycle");
  }
  m.set_observers(observers);
  Ranks* const ranks = m.ranks();
  const bool root = !ranks || ranks->rank == 0;  // the rank that holds the whole state after the run
  RunStats st;
  for (Observer* o : observers) o->on_start(MachineView(m, 0));
  driver_of(m.config().engine)(m, st);  // the registered driver (runtime/machine/driver_registry.hpp)
  // Stopped from outside (rica/interrupt.hpp): no result, nothing written (the trace included).
  if (!ranks && interrupt_requested()) throw interrupted();
  for (Observer* o : observers) o->on_end(MachineView(m, m.now()));
  if (ranks) ranks->gather(m, st);
  m.collect(st);
  if (root && st.deadlock && st.deadlock_report.empty()) m.analyse_stuck(st);
  std::string error;  // rank 0's failure to write, shared so that every rank ends alike
  if (root && !m.config().trace.empty()) {
    try {
      m.write_trace(m.config().trace);
    } catch (const usage_error& e) {
      if (!ranks) throw;
      error = e.what();
    }
  }
  st.app_ok = !st.deadlock;
  if (st.deadlock && st.app_message.empty())  // "result NOT verified: <why>"
    st.app_message = !st.deadlock_report.empty() ? st.deadlock_report.substr(0, st.deadlock_report.find('\n'))
                                                 : std::string("deadlock");
  for (JobRt& j : m.jobs()) {
    if (!st.app_ok || !root) break;
    if (st.dropped_by_faults) {  // dropped packets never reach the application: its own count cannot balance
      st.app_message = fmt::format("application check not applicable: {} packets dropped by faults (the exactly-once "
                                   "check counts them)", st.dropped_by_faults);
      break;
    }
    std::string why;
    if (!j.app->verify(why)) {
      st.app_ok = false;
      st.app_message = m.job_count() > 1 ? fmt::format("job {}: {}", &j - m.jobs().data(), why) : why;
    }
  }
  if (ranks) {
    ranks->share_outcome(st, error);
    if (!error.empty()) throw usage_error(error);
    st.ranks = ranks->size;
    st.links = ranks->links;
    st.cut_links = ranks->cut_links;
    st.cross_rank_hops = ranks->cross_hops;
    st.rank_batches = ranks->batches;
    st.rank_split = ranks->split;
    st.rank_peak_rss_kb = ranks->peak_rss_kb;
    st.rank_mpi_wait_share = ranks->mpi_wait_share;
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  st.peak_rss_kb = static_cast<std::uint64_t>(ru.ru_maxrss);
  return st;
}
}  // namespace detail

std::string trace_header() { return fmt::format("{}", fmt::join(trace_columns, ",")); }

const char* to_string(Timing t) noexcept { return t == Timing::vct ? "vct" : "saf"; }
const char* to_string(Arbitration a) noexcept { return a == Arbitration::round_robin ? "rr" : "oldest"; }
const char* to_string(Routing r) noexcept {
  switch (r) {
    case Routing::deterministic: return "deterministic";
    case Routing::adaptive: return "adaptive";
    case Routing::valiant: return "valiant";
    case Routing::ugal_l: return "ugal-l";
    case Routing::ugal_g: return "ugal-g";
    case Routing::par: return "par";
  }
  return "?";
}
Routing routing_by_name(const std::string& name, const std::string& option) {
  std::vector<std::string> names;
  for (Routing r : all_routings) {
    if (name == to_string(r)) return r;
    names.emplace_back(to_string(r));
  }
  throw usage_error(fmt::format("{}: unknown routing '{}'{}", option, name,
                                valid_names_tail(name, names, routing_choices(", "))));
}
std::string routing_choices(std::string_view sep) {
  std::string s;
  for (Routing r : all_routings) s += fmt::format("{}{}", s.empty() ? "" : sep, to_string(r));
  return s;
}
std::string routing_help() {
  // The non-minimal routings (every one after adaptive), each with the topologies its docs name.
  std::vector<std::pair<std::string, std::vector<std::string>>> by_topologies;
  for (Routing r : all_routings) {
    if (r == Routing::deterministic || r == Routing::adaptive) continue;
    std::string where = "the topologies `rica list` names";
    for (const RoutingDoc& d : adaptive_routing_docs())
      if (d.name == to_string(r)) where = "the " + d.topologies + "'s";
    auto it = std::find_if(by_topologies.begin(), by_topologies.end(), [&](const auto& e) { return e.first == where; });
    if (it == by_topologies.end()) it = by_topologies.insert(by_topologies.end(), {where, {}});
    it->second.emplace_back(to_string(r));
  }
  std::string extra;
  for (const auto& [where, names] : by_topologies) {
    std::string list;
    for (std::size_t i = 0; i < names.size(); ++i)
      list += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
    extra += fmt::format("{}{} {}", extra.empty() ? "" : "; ", where, list);
  }
  return fmt::format("Routing: deterministic (the topology's route), adaptive (candidates + escape){}{}; `rica list` "
                     "names the topologies that offer each",
                     extra.empty() ? "" : ", or ", extra);
}
void check_routing(const Topology& t, Routing r, const std::string& option) {
  if (offers(t, r)) {
    // The family's own check of an offered routing (e.g. the dragonfly's non-minimal routings with
    // a short `classes=K`: refused with the cycle; rica/topology/family.hpp).
    t.visit([&](const auto& f) {
      if constexpr (requires { f.check_routing(r, option); }) f.check_routing(r, option);
    });
    return;
  }
  std::string names;
  for (const std::string& n : routing_names(t)) names += (names.empty() ? "" : ", ") + n;
  throw usage_error(fmt::format("{}: routing '{}' is not offered by '{}'; offered: {}", option, to_string(r), t.spec(),
                                names));
}
const std::vector<RoutingDoc>& adaptive_routing_docs() {
  static const std::vector<RoutingDoc> docs{
      {"mesh, torus, kary", "minimal adaptive: every minimal direction in one adaptive class; escape: dimension order "
                            "(mesh 1 class, torus 2 dateline classes); classes 2 (mesh) / 3 (torus)", 1},
      {"hypercube", "minimal adaptive: every differing bit in class 1; escape: e-cube in class 0; classes 2", 1},
      {"fattree", "adaptive up-link choice (both up-links while the destination is not below); escape: "
                  "destination-mod-k up-link; 1 class", 0},
      {"hyperx", "the K parallel links of the dimension-order hop as candidates (class 0); escape: the deterministic "
                 "route's link; 1 class (K = 1: the deterministic routing)", 0},
      {"cbanyan, ccc, dce (delta <= 1), cb2, cccb, mdce",
       "Adaptive CB: any shortest choice of the column (round) that corrects each address bit; escape: "
       "correct at the first column; the spiral classes unchanged",
       0},
      {"file:, shuffle (table-routed graphs with both directions of every link)",
       "minimal adaptive: every port one hop closer (class 0); escape: up*/down* on the BFS spanning tree's "
       "order (class 1 going up, 2 after the first down hop; a packet on the escape stays on it); 3 classes",
       0},
      {"any topology with static --faults",
       "minimal adaptive on the surviving graph (class 0); escape: the fault rerouting's tables, classes + 1 "
       "(a packet on the escape stays on it)",
       1},
      {"dragonfly", "Valiant: minimal to the intermediate group hash(src, seq, seed) mod g, then minimal; "
                    "class = global hops taken; 3 classes, certified by the channel dependency check", 1, "valiant"},
      {"dragonfly", "UGAL-L: minimal or Valiant, chosen at the source router by downstream queue words x path "
                    "hops; 3 classes, certified by Duato's condition (escape: the minimal hop)", 1, "ugal-l"},
      {"dragonfly", "UGAL-G: as UGAL-L, adding to each path's first-hop queue the queue of its global channel out of "
                    "the source group (the board the engine publishes); 3 classes, certified by Duato's condition",
       1, "ugal-g"},
      {"dragonfly", "PAR: UGAL-L at the source router, decided again at the next router of the source group for a "
                    "packet sent minimally; 4 classes, certified by Duato's condition", 2, "par"}};
  return docs;
}
const char* to_string(RankSplit s) noexcept { return s == RankSplit::blocks ? "blocks" : "partition"; }

RankSplit rank_split_by_name(const std::string& name, const std::string& option) {
  if (name == "blocks") return RankSplit::blocks;
  if (name == "partition") return RankSplit::partition;
  throw usage_error(fmt::format("{}: unknown split '{}'; valid: blocks (contiguous node numbers), partition "
                                "(rica::partition of the topology)", option, name));
}
Timing timing_by_name(const std::string& name, const std::string& option) {
  if (name == "vct") return Timing::vct;
  if (name == "saf") return Timing::saf;
  throw usage_error(fmt::format("{}: unknown timing '{}'; valid: vct (virtual cut-through), saf (store-and-forward)",
                                option, name));
}
Arbitration arbitration_by_name(const std::string& name, const std::string& option) {
  if (name == "rr" || name == "round-robin") return Arbitration::round_robin;
  if (name == "oldest" || name == "age") return Arbitration::oldest;
  throw usage_error(fmt::format("{}: unknown arbitration '{}'; valid: rr (round robin), oldest (age-based)", option, name));
}

RunStats run(const Topology& topology, App& app, const EngineConfig& cfg, Observers observers) {
  validate(cfg);
  if (topology.pes() < 2) throw usage_error("run: the topology needs at least 2 PEs");
  if (fail_cycle(topology)) require_trait(cfg.engine, &EngineTraits::timed_faults, "--faults at=CYCLE", "has no clock");
  Machine setup(topology, cfg.seed);
  setup.set_params(machine_params(cfg));
  app.setup(setup);
  std::vector<detail::JobRt> jobs(1);
  jobs[0].app = &app;
  jobs[0].handlers = setup.handlers();
  jobs[0].size = topology.pes();
  detail::Machine m(topology, std::move(jobs), cfg);
  return detail::run_prepared(m, observers);
}

RunStats run_async(const Topology& topology, App& app, const EngineConfig& cfg) {
  EngineConfig c = cfg;
  c.engine = EngineKind::async;
  return run(topology, app, c);
}

RunStats run_cycles(const Topology& topology, App& app, const EngineConfig& cfg) {
  EngineConfig c = cfg;
  c.engine = EngineKind::cycle;
  return run(topology, app, c);
}

}  // namespace rica
