// The async engine: PEs as lightweight units of work scheduled by oneTBB in blocks, lock-free
// link buffers, hop-by-hop self-routing, RICA active messages, exact accounting.
//
// Scheduling (spec/performance-notes.md): PEs are grouped in blocks of `block` consecutive PEs.
// A block has an atomic pending mask (bit i: PE i of the block has work) and a scheduled flag;
// one task per active block runs its pending PEs, each for a bounded batch of packet moves, and
// re-enqueues itself while work remains. A PE belongs to one block and a block runs on one task
// at a time, so a PE never runs on two threads at once. A PE whose every head packet is blocked
// sleeps (no pending bit) until the downstream consumer frees room and wakes it.
//
// Termination: the number of outstanding block tasks is zero only when no PE has work, and it
// stays zero (tasks are created only by tasks or before the start). At that point the main thread
// reads every PE's state: either the application is done and the network empty, or packets remain
// that nothing can move — a deadlock, reported with the full buffers and the waiting cycle.
#include "engine_impl.hpp"

namespace rica {
namespace detail {
// ---- Context ------------------------------------------------------------------------------------
}  // namespace detail

node_t Context::pes() const noexcept { return engine_.jobs[job_].size; }
const Topology& Context::topology() const noexcept { return engine_.topo; }
std::uint64_t Context::now() const noexcept { return engine_.now(); }
void Context::send(node_t dst, handler_t handler, std::uint64_t w0, std::uint64_t w1) {
  const detail::JobRt& j = engine_.jobs[job_];
  if (dst >= j.size)
    throw std::logic_error(fmt::format("send: destination {} outside the job's {} PEs", dst, j.size));
  engine_.send(state_, gpe_, j.global(dst), handler, w0, w1, job_);
}
std::size_t Context::backlog() const noexcept { return state_.injq.size() - state_.injq_head; }
Rng& Context::rng() noexcept { return state_.rng; }

namespace detail {

void Engine::enqueue_block(std::size_t b) {
  outstanding.fetch_add(1, std::memory_order_relaxed);
  RICA_TSAN_RELEASE(this);
  arena->enqueue([this, b] {
    RICA_TSAN_ACQUIRE(this);
    block_runner(b);
  });
}

/// One activation of node v: an injection opportunity, then up to `batch` packet moves, taking
/// the inputs (and the injection queue) round robin, one head packet per input per pass.
/// Returns true when v still has work that does not wait for a wake-up.
template <class T>
bool Engine::step_pe(const T& t, node_t v, TaskCtx& tc) {
  PeState& s = pe[v];
  ThreadStats& ts = tc.ts;
  const bool is_pe = v < pes;
  if (is_pe) app_turn(s, v, true);
  const std::uint32_t n_buf = static_cast<std::uint32_t>(ports) * classes;
  const std::uint32_t n_in = n_buf + 1;  // the last "input" is the injection queue
  std::fill(tc.skip.begin(), tc.skip.begin() + n_in, 0);
  for (std::uint32_t w = 0; w < mask_words; ++w) s.work[w] |= s.ready[w].exchange(0, std::memory_order_acquire);
  auto has_work = [&](std::uint32_t i) { return (s.work[i >> 6] >> (i & 63)) & 1u; };
  auto drop_work = [&](std::uint32_t i) { s.work[i >> 6] &= ~(std::uint64_t{1} << (i & 63)); };
  unsigned moves = 0;
  while (moves < cfg.batch) {
    bool progressed = false;
    for (std::uint32_t k = 0; k < n_in && moves < cfg.batch; ++k) {
      std::uint32_t idx = s.rr + k;
      if (idx >= n_in) idx -= n_in;
      if (tc.skip[idx]) continue;
      Packet* head;
      LinkBuffer* src_buf = nullptr;
      if (idx < n_buf) {
        if (!has_work(idx)) continue;
        src_buf = &s.inputs[idx];
        if (src_buf->empty()) {
          drop_work(idx);
          continue;
        }
        head = &src_buf->front();
      } else {
        if (s.injq_head == s.injq.size()) continue;
        head = &s.injq[s.injq_head];
      }
      const Hop h = t.route(v, head->dst, head->cls);
      if (h.delivers()) {
        const Packet p = *head;
        if (src_buf) {
          if (src_buf->pop_and_check()) signal(s.upstream[idx / classes], tc);
        } else {
          s.pop_injection();
          ++net_in[std::size_t{p.job} * nodes + v];
        }
        arrive(s, v, p, ts);
        ++moves;
        progressed = true;
        continue;
      }
      const Link l = t.out_link(v, h.port());
      const class_t nc = cfg.classes ? h.next_class() : class_t{0};
      const std::uint32_t out = static_cast<std::uint32_t>(h.port()) * classes + nc;
      LinkBuffer& dst_buf = pe[l.peer].inputs[static_cast<std::uint32_t>(l.in_port) * classes + nc];
      LinkBuffer::Credit& cr = s.credits[out];
      if (!dst_buf.fits(cr, head->words)) {
        ++s.blocked;
        if (!dst_buf.wait_for_room(cr, head->words)) {  // sleeps on this head until woken
          tc.skip[idx] = 1;
          continue;
        }
      }
      Packet p = *head;
      p.hops = static_cast<std::uint16_t>(p.hops + 1);
      p.cls = nc;
      if (src_buf) {
        if (src_buf->pop_and_check()) signal(s.upstream[idx / classes], tc);
        ++s.forwarded;
      } else {
        s.pop_injection();
        ++net_in[std::size_t{p.job} * nodes + v];
      }
      dst_buf.push(cr, p);
      ++s.link_packets[h.port()];
      ++ts.hops;
      tc.notes.emplace_back(l.peer, static_cast<std::uint32_t>(l.in_port) * classes + nc);
      ++moves;
      progressed = true;
    }
    s.rr = (s.rr + 1) % n_in;
    if (!progressed) break;
  }
  // If the batch ran out, packets may still move: stay scheduled. Otherwise every input was tried
  // until nothing moved, so what is left waits for a wake-up (room downstream, a new arrival).
  const bool more = moves >= cfg.batch;
  for (const auto& [peer, in] : tc.notes) {
    const std::uint64_t bit = std::uint64_t{1} << (in & 63);
    auto& word = pe[peer].ready[in >> 6];
    if (word.fetch_or(bit, std::memory_order_acq_rel) == 0) signal(peer, tc);
  }
  tc.notes.clear();
  // A generating PE whose injection queue head is blocked sleeps too (woken with the room).
  return more || (is_pe && s.generating && s.injq_head == s.injq.size());
}

template <class T>
void Engine::run_block(const T& t, std::size_t b) {
  Block& blk = blocks[b];
  thread_local std::vector<std::uint8_t> skip;
  thread_local std::vector<std::pair<node_t, std::uint32_t>> notes;
  skip.resize(std::size_t{ports} * classes + 1);
  notes.clear();
  const int slot = tbb::this_task_arena::current_thread_index();
  if (slot < 0 || static_cast<std::size_t>(slot) >= tstats.size()) std::abort();  // broken invariant
  TaskCtx tc{b, 0, tstats[static_cast<std::size_t>(slot)], skip, notes};
  const node_t first = static_cast<node_t>(b << block_shift);
  for (int round = 0; round < 8; ++round) {
    std::uint64_t mask = tc.local | blk.pending.exchange(0, std::memory_order_seq_cst);
    tc.local = 0;
    if (mask == 0) {
      blk.scheduled.store(0, std::memory_order_seq_cst);
      if (blk.pending.load(std::memory_order_seq_cst) == 0 || blk.scheduled.exchange(1) != 0) {
        outstanding.fetch_sub(1, std::memory_order_release);
        return;
      }
      continue;
    }
    while (mask) {
      const unsigned i = static_cast<unsigned>(std::countr_zero(mask));
      mask &= mask - 1;
      if (step_pe(t, first + i, tc)) tc.local |= std::uint64_t{1} << i;
    }
  }
  // Still busy after several rounds: yield to other blocks (FIFO re-enqueue), stay scheduled.
  if (tc.local) blk.pending.fetch_or(tc.local, std::memory_order_seq_cst);
  outstanding.fetch_add(1, std::memory_order_relaxed);
  RICA_TSAN_RELEASE(this);
  arena->enqueue([this, b] {
    RICA_TSAN_ACQUIRE(this);
    block_runner(b);
  });
  outstanding.fetch_sub(1, std::memory_order_release);
}

void Engine::allocate() {
  nodes = topo.nodes();
  pes = topo.pes();
  ports = topo.ports();
  classes = cfg.classes ? topo.buffer_classes() : class_t{1};
  min_words = cfg.packet_words - cfg.packet_spread;
  const std::size_t nbuf = std::size_t{nodes} * ports * classes;
  const std::size_t slots = cfg.buffer_words / std::max(1u, min_words) + 1;
  const double bytes = static_cast<double>(nbuf) * static_cast<double>(sizeof(LinkBuffer) + slots * sizeof(Packet) + 16);
  if (bytes > 20e9)
    throw usage_error(fmt::format("the machine needs {:.1f} GB of link buffers ({} nodes x {} ports x {} classes x "
                                  "{} words); reduce --buffer-words or the network size",
                                  bytes / 1e9, nodes, ports, classes, cfg.buffer_words));
  buffer_memory = static_cast<std::byte*>(::operator new(nbuf * sizeof(LinkBuffer), std::align_val_t{64}));
  auto* bufs = reinterpret_cast<LinkBuffer*>(buffer_memory);
  for (std::size_t i = 0; i < nbuf; ++i) new (&bufs[i]) LinkBuffer(cfg.buffer_words, min_words);
  credits.assign(nbuf, {});
  upstream.assign(std::size_t{nodes} * ports, no_node);
  link_packets.assign(std::size_t{nodes} * ports, 0);
  pe = std::vector<PeState>(nodes);
  mask_words = static_cast<std::uint32_t>((nbuf / nodes + 63) / 64);
  ready_words = std::make_unique<std::atomic<std::uint64_t>[]>(std::size_t{nodes} * mask_words);
  work_words.assign(std::size_t{nodes} * mask_words, 0);
  up_credit.assign(nbuf, 0);
  topo.visit([&](const auto& t) {
    for (node_t v = 0; v < nodes; ++v)
      for (port_t p = 0; p < ports; ++p) {
        const Link l = t.out_link(v, p);
        if (!l.present()) continue;
        upstream[std::size_t{l.peer} * ports + l.in_port] = v;
        for (class_t c = 0; c < classes; ++c)
          up_credit[(std::size_t{l.peer} * ports + l.in_port) * classes + c] =
              static_cast<std::uint32_t>((std::size_t{v} * ports + p) * classes + c);
      }
  });
  for (node_t v = 0; v < nodes; ++v) {
    PeState& s = pe[v];
    s.inputs = bufs + std::size_t{v} * ports * classes;
    s.credits = credits.data() + std::size_t{v} * ports * classes;
    s.upstream = upstream.data() + std::size_t{v} * ports;
    s.link_packets = link_packets.data() + std::size_t{v} * ports;
    s.ready = ready_words.get() + std::size_t{v} * mask_words;
    s.work = work_words.data() + std::size_t{v} * mask_words;
    s.rng = Rng(mix(cfg.seed * 0x9e3779b97f4a7c15ULL + v));
    s.generating = v < pes;
  }
  block_shift = static_cast<unsigned>(std::countr_zero(cfg.block));
  block_mask = cfg.block - 1;
  blocks = std::vector<Block>((nodes + cfg.block - 1) / cfg.block);
  node_job.assign(nodes, no_job);
  halted.assign(nodes, 0);
  epoch.assign(nodes, 0);
  net_in.assign(jobs.size() * nodes, 0);
  net_out.assign(jobs.size() * nodes, 0);
  if (jobs.size() > 1) job_link.assign(jobs.size() * nodes * ports, 0);
  for (std::size_t j = 0; j < jobs.size(); ++j)
    for (node_t l = 0; l < jobs[j].size; ++l)
      if (node_job[jobs[j].global(l)] == no_job) node_job[jobs[j].global(l)] = static_cast<std::uint8_t>(j);
  for (node_t v = 0; v < pes; ++v) pe[v].generating = node_job[v] != no_job;  // a PE with no job is idle
  // Exact exactly-once check: bits per source = the most any PE may send over all its jobs.
  std::vector<std::uint64_t> bound(pes, 0);
  bool known = true;
  for (const JobRt& j : jobs) {
    const std::uint64_t k = j.app->max_sends_per_pe();
    known = known && k > 0;
    for (node_t l = 0; l < j.size; ++l) bound[j.global(l)] += k;
  }
  bitmap_k = known ? *std::max_element(bound.begin(), bound.end()) : 0;
  if (bitmap_k && static_cast<double>(bitmap_k) * pes > 8e9) bitmap_k = 0;  // > 1 GB: checksum instead
  if (bitmap_k) bitmap = std::vector<std::atomic<std::uint64_t>>((bitmap_k * pes + 63) / 64);
}

template <class T>
void Engine::run(const T& t, RunStats& st) {
  const unsigned threads = cfg.threads ? cfg.threads : std::max(1u, std::thread::hardware_concurrency());
  // Workers only (the main thread monitors); allow that many TBB workers process-wide.
  tbb::global_control workers(tbb::global_control::max_allowed_parallelism, threads + 1);
  tbb::task_arena local_arena(static_cast<int>(threads), 0);
  // Arena slot indices run up to max_concurrency (slot 0 may be a master slot even when none is
  // reserved): one ThreadStats per possible slot.
  tstats = std::vector<ThreadStats>(static_cast<std::size_t>(threads) + 1);
  for (ThreadStats& ts : tstats) ts.job.assign(jobs.size(), {});
  arena = &local_arena;
  block_runner = [this, &t](std::size_t b) { run_block(t, b); };
  clock.start();
  const auto t0 = clock.origin();
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const node_t first = static_cast<node_t>(b * cfg.block);
    const node_t last = std::min<node_t>(pes, static_cast<node_t>(first + cfg.block));
    if (first >= pes) break;
    const unsigned n = last - first;
    // Workers already run and may have scheduled this block: use the same protocol as signal().
    blocks[b].pending.fetch_or(n == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1));
    if (blocks[b].scheduled.exchange(1) == 0) enqueue_block(b);  // else a running task has it
  }
  const bool tty = cfg.progress && isatty(STDERR_FILENO);
  auto last_print = std::chrono::steady_clock::now();
  std::uint64_t progress_at_kick = ~std::uint64_t{0};
  while (true) {
    unsigned spin = 0;
    while (outstanding.load(std::memory_order_acquire) != 0) {
      if (++spin < 100) {
        std::this_thread::yield();
        continue;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      if (tty && std::chrono::steady_clock::now() - last_print > std::chrono::milliseconds(250)) {
        last_print = std::chrono::steady_clock::now();
        std::uint64_t d = 0;
        for (node_t v = 0; v < pes; ++v) d += pe[v].delivered_now.load(std::memory_order_relaxed);
        const double secs = std::chrono::duration<double>(last_print - t0).count();
        std::fprintf(stderr, "\r  %.1f s  delivered %llu  (%.2f M packets/s)   ", secs,
                     static_cast<unsigned long long>(d), static_cast<double>(d) / secs / 1e6);
      }
    }
    // Quiescent: no task runs or is queued, so every PE's state is ours to read. Done, or are
    // packets left? Wake every node that holds packets once: a wake-up lost to the unfenced race
    // in LinkBuffer::pop_and_check is recovered here; if nothing moves after that, it's a deadlock.
    std::uint64_t progress = 0;
    for (const ThreadStats& ts : tstats) progress += ts.hops + ts.delivered;
    bool left = false;
    std::vector<std::uint64_t> wake(blocks.size(), 0);
    for (node_t v = 0; v < nodes; ++v) {
      const PeState& q = pe[v];
      bool has = q.injq_head != q.injq.size();
      for (std::size_t i = 0; i < std::size_t{ports} * classes && !has; ++i) has = !q.inputs[i].empty();
      if (has) {
        left = true;
        wake[v >> block_shift] |= std::uint64_t{1} << (v & block_mask);
      }
    }
    if (!left || progress == progress_at_kick) break;
    progress_at_kick = progress;
    for (std::size_t b = 0; b < blocks.size(); ++b)
      if (wake[b]) signal_remote(b, wake[b]);
  }
  const auto t1 = std::chrono::steady_clock::now();
  if (tty) std::fprintf(stderr, "\r%60s\r", "");
  st.wall_s = std::chrono::duration<double>(t1 - t0).count();
  local_arena.terminate();
  arena = nullptr;
}

/// One node in one cycle of the cycle engine. Decisions depend only on the state at the start
/// of the cycle: a head packet may leave only when its `ready` cycle has come (packets pushed in
/// this cycle are ready later), room downstream is judged by credits as of the end of the last
/// cycle, and every choice is a fixed round robin. Each input moves at most one packet per cycle
/// and an output link carries one packet per link_len cycles.
///
/// Only v's own state is written here, plus the pushed packets themselves (their buffers' producer
/// side, owned by v). Effects on other nodes — credits returned upstream, the downstream node's
/// work mask — go to this thread's lists and are applied between cycles (apply_cycle_effects).
/// `s.work` therefore names exactly the inputs that held packets at the start of the cycle.
template <class T>
void Engine::cycle_step(const T& t, node_t v, ThreadStats& ts) {
  if (halted[v]) return;  // the OS holds this node (drain): nothing moves here
  PeState& s = pe[v];
  if (v < pes) app_turn(s, v, cycle < cfg.cycles);
  const std::uint32_t n_buf = static_cast<std::uint32_t>(ports) * classes;
  const std::uint32_t n_in = n_buf + 1;  // the last "input" is the injection queue
  const bool inject = s.injq_head != s.injq.size();
  bool any = inject;
  for (std::uint32_t w = 0; w < mask_words && !any; ++w) any = s.work[w] != 0;
  const std::uint32_t rr = s.rr;
  s.rr = rr + 1 >= n_in ? 0 : rr + 1;
  if (!any) return;  // nothing queued here
  struct Cand {
    std::uint32_t input;
    Hop hop;
    bool moved;
  };
  thread_local std::vector<Cand> cand;
  cand.clear();
  auto pop = [&](std::uint32_t i) {
    if (i == n_buf) {
      ++net_in[std::size_t{s.injq[s.injq_head].job} * nodes + v];
      s.pop_injection();
      return;
    }
    LinkBuffer& b = s.inputs[i];
    const unsigned words = b.front().words;
    b.pop_and_check();  // producers learn of the room only between cycles (credit_returns)
    ts.credit_returns.emplace_back(up_credit[std::size_t{v} * n_buf + i], words);
    if (b.empty()) s.work[i >> 6] &= ~(std::uint64_t{1} << (i & 63));
  };
  // Route every ready head once, inputs in round-robin order from rr; deliver those for this PE.
  auto consider = [&](std::uint32_t i) {
    Packet* h = i == n_buf ? &s.injq[s.injq_head] : &s.inputs[i].front();
    if (h->ready > cycle) return;
    const Hop hop = t.route(v, h->dst, cfg.classes ? h->cls : class_t{0});
    if (hop.delivers()) {
      const Packet p = *h;
      pop(i);
      arrive(s, v, p, ts);  // one packet per input per cycle
      return;
    }
    cand.push_back({i, hop, false});
  };
  auto scan = [&](std::uint32_t from, std::uint32_t to) {  // set bits of the work mask in [from, to)
    for (std::uint32_t w = from >> 6; w < mask_words && (w << 6) < to; ++w) {
      std::uint64_t bits = s.work[w];
      const std::uint32_t base = w << 6;
      if (from > base) bits &= ~std::uint64_t{0} << (from - base);
      if (to < base + 64) bits &= (std::uint64_t{1} << (to - base)) - 1;
      while (bits) {
        const std::uint32_t i = base + static_cast<std::uint32_t>(std::countr_zero(bits));
        bits &= bits - 1;
        consider(i);
      }
    }
  };
  scan(rr, n_buf);
  if (inject) consider(n_buf);
  scan(0, rr);
  if (cand.empty()) return;
  // Each free output link takes the waiting head that comes first in its own round robin and fits.
  for (port_t p = 0; p < ports; ++p) {
    const std::size_t op = std::size_t{v} * ports + p;
    if (busy_until[op] > cycle) continue;
    const std::uint32_t prr = port_rr[op];
    for (;;) {
      Cand* best = nullptr;
      std::uint32_t best_d = n_in;
      for (Cand& c : cand) {
        if (c.moved || c.hop.port() != p) continue;
        const std::uint32_t d = c.input >= prr ? c.input - prr : c.input + n_in - prr;
        if (d < best_d) best_d = d, best = &c;
      }
      if (!best) break;
      best->moved = true;  // tried for this port (moved, or blocked for this cycle)
      const std::uint32_t i = best->input;
      Packet* h = i == n_buf ? &s.injq[s.injq_head] : &s.inputs[i].front();
      const class_t nc = cfg.classes ? best->hop.next_class() : class_t{0};
      const Link l = t.out_link(v, p);
      if (halted[l.peer] || epoch[l.peer] != epoch[v]) continue;  // its inputs are not ready (a switch)
      const std::uint32_t in_idx = static_cast<std::uint32_t>(l.in_port) * classes + nc;
      LinkBuffer::Credit& cr = s.credits[static_cast<std::uint32_t>(p) * classes + nc];
      if (!LinkBuffer::fits_cached(cr, cfg.buffer_words, h->words)) {  // no touch of the peer yet
        ++s.blocked;
        continue;
      }
      LinkBuffer& dst = reinterpret_cast<LinkBuffer*>(buffer_memory)[std::size_t{l.peer} * n_buf + in_idx];
      const unsigned len = cfg.link_cycles_words ? h->words : link_len[v];
      Packet q = *h;
      q.hops = static_cast<std::uint16_t>(q.hops + 1);
      q.cls = nc;
      q.ready = static_cast<std::uint32_t>(cycle + len);
      if (i < n_buf) ++s.forwarded;
      pop(i);
      dst.push(cr, q);
      ts.arrivals.emplace_back(l.peer, in_idx);
      busy_until[op] = cycle + len;
      port_rr[op] = i + 1 >= n_in ? 0 : i + 1;
      ++s.link_packets[p];
      if (!job_link.empty()) ++job_link[(std::size_t{q.job} * nodes + v) * ports + p];
      ++ts.hops;
      break;
    }
  }
}

/// Between cycles (one thread): credits freed in the last cycle reach their producers, and
/// packets pushed in it enter their consumers' work masks.
void Engine::apply_cycle_effects() {
  for (ThreadStats& ts : tstats) {
    for (const auto& [ci, words] : ts.credit_returns) credits[ci].popped_seen += words;
    for (const auto& [v, i] : ts.arrivals) work_words[std::size_t{v} * mask_words + (i >> 6)] |= std::uint64_t{1} << (i & 63);
    ts.credit_returns.clear();
    ts.arrivals.clear();
  }
}

template <class T>
void Engine::run_cycles(const T& t, RunStats& st) {
  const unsigned threads = cfg.threads ? cfg.threads : std::max(1u, std::thread::hardware_concurrency());
  tbb::global_control workers(tbb::global_control::max_allowed_parallelism, threads);
  tbb::task_arena local_arena(static_cast<int>(threads));
  tstats = std::vector<ThreadStats>(static_cast<std::size_t>(threads) + 1);
  for (ThreadStats& ts : tstats) ts.job.assign(jobs.size(), {});
  cycle_mode = true;
  busy_until.assign(std::size_t{nodes} * ports, 0);
  port_rr.assign(std::size_t{nodes} * ports, 0);
  link_len.assign(nodes, 1);
  if (cfg.link_cycles) {
    std::fill(link_len.begin(), link_len.end(), cfg.link_cycles);
  } else {  // in-degree + out-degree of the sending node
    std::vector<unsigned> in(nodes, 0), out(nodes, 0);
    for (node_t v = 0; v < nodes; ++v)
      for (port_t p = 0; p < ports; ++p) {
        const Link l = t.out_link(v, p);
        if (l.present()) ++out[v], ++in[l.peer];
      }
    for (node_t v = 0; v < nodes; ++v) link_len[v] = std::max(1u, in[v] + out[v]);
  }
  const unsigned max_len = cfg.link_cycles_words ? cfg.packet_words + cfg.packet_spread
                                                 : *std::max_element(link_len.begin(), link_len.end());
  const std::uint64_t stall_limit = std::max<std::uint64_t>(2000, 200ull * max_len);
  const auto t0 = std::chrono::steady_clock::now();
  const bool tty = cfg.progress && isatty(STDERR_FILENO);
  auto last_print = t0;
  std::uint64_t last_progress = 0, stalled = 0;
  auto slot_stats = [&]() -> ThreadStats& {
    const int slot = tbb::this_task_arena::current_thread_index();
    if (slot < 0 || static_cast<std::size_t>(slot) >= tstats.size()) std::abort();  // broken invariant
    return tstats[static_cast<std::size_t>(slot)];
  };
  for (cycle = 0;; ++cycle) {
    if (cycle == cfg.cycles)
      for (JobRt& j : jobs) j.app->window_closed();
    local_arena.execute([&] {
      // The cycle is a barrier: what the main thread did between cycles happens before every
      // step of this cycle, and every step before the main thread's next turn. (TSan cannot see
      // oneTBB's join inside the uninstrumented libtbb; these annotations state it.)
      RICA_TSAN_RELEASE(&cycle);
      tbb::parallel_for(tbb::blocked_range<node_t>(0, nodes, 256), [&](const tbb::blocked_range<node_t>& r) {
        RICA_TSAN_ACQUIRE(&cycle);
        ThreadStats& ts = slot_stats();
        for (node_t v = r.begin(); v != r.end(); ++v) cycle_step(t, v, ts);
        RICA_TSAN_RELEASE(&tstats);
      });
      RICA_TSAN_ACQUIRE(&tstats);
    });
    apply_cycle_effects();
    if (hook) hook->after_cycle(cycle);
    std::uint64_t progress = 0;
    for (const ThreadStats& ts : tstats) progress += ts.hops + ts.delivered;
    stalled = progress == last_progress ? stalled + 1 : 0;
    last_progress = progress;
    auto packets_left = [&] {
      for (node_t v = 0; v < nodes; ++v) {
        const PeState& q = pe[v];
        if (q.injq_head != q.injq.size()) return true;
        for (std::size_t i = 0; i < std::size_t{ports} * classes; ++i)
          if (!q.inputs[i].empty()) return true;
      }
      return false;
    };
    auto generating = [&] {
      for (node_t v = 0; v < pes; ++v)
        if (pe[v].generating) return true;
      return false;
    };
    // The end: nothing generates (the window closed, or every application finished early) and
    // nothing is left anywhere.
    if ((cycle % 16 == 0 || stalled) && !generating() && !packets_left() &&
        !(hook && hook->busy())) {
      ++cycle;
      break;
    }
    if (hook && hook->holding()) stalled = 0;
    if (stalled > stall_limit) {
      if (packets_left()) {  // packets left and nothing moved for a long time: deadlock
        ++cycle;
        st.deadlock = true;
        break;
      }
      stalled = 0;  // an idle network (low load), not a stall
    }
    if (tty && (cycle & 1023) == 0 && std::chrono::steady_clock::now() - last_print > std::chrono::milliseconds(250)) {
      last_print = std::chrono::steady_clock::now();
      std::fprintf(stderr, "\r  cycle %llu / %llu  delivered %llu   ", static_cast<unsigned long long>(cycle),
                   static_cast<unsigned long long>(cfg.cycles), static_cast<unsigned long long>(progress));
    }
  }
  if (tty) std::fprintf(stderr, "\r%60s\r", "");
  st.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void Engine::write_trace(const std::string& path) {
  std::vector<TraceRow> rows;
  for (auto& r : traces) rows.insert(rows.end(), r.begin(), r.end());
  std::sort(rows.begin(), rows.end(), [](const TraceRow& a, const TraceRow& b) {
    return std::tie(a.deliver, a.dst, a.src, a.seq) < std::tie(b.deliver, b.dst, b.src, b.seq);
  });
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw usage_error(fmt::format("--trace: cannot write '{}'", path));
  std::fprintf(f, "src,dst,seq,inject,deliver,hops\n");
  for (const auto& r : rows)
    std::fprintf(f, "%u,%u,%u,%llu,%llu,%u\n", r.src, r.dst, r.seq, static_cast<unsigned long long>(r.inject),
                 static_cast<unsigned long long>(r.deliver), static_cast<unsigned>(r.hops));
  std::fclose(f);
}

void Engine::collect(RunStats& st) {
  st.pe_injected.resize(pes);
  st.pe_delivered.resize(pes);
  st.pe_forwarded.resize(nodes);
  st.pe_blocked.resize(nodes);
  bool generating = false;
  for (node_t v = 0; v < nodes; ++v) {
    const PeState& s = pe[v];
    if (v < pes) {
      st.pe_injected[v] = s.injected;
      st.pe_delivered[v] = s.delivered;
      st.injected += s.injected;
      generating = generating || s.generating;
    }
    st.pe_forwarded[v] = s.forwarded;
    st.pe_blocked[v] = s.blocked;
    st.forwarded += s.forwarded;
    st.blocked += s.blocked;
    for (std::size_t i = 0; i < std::size_t{ports} * classes; ++i) st.in_network += s.inputs[i].size();
    st.in_network += s.injq.size() - s.injq_head;
  }
  std::uint64_t sum_ids = 0, beyond = 0;
  std::vector<std::uint64_t> lat(64 * 8, 0);
  st.hop_histogram.assign(256, 0);
  for (const ThreadStats& ts : tstats) {
    st.delivered += ts.delivered;
    st.hops += ts.hops;
    st.duplicates += ts.duplicates;
    beyond += ts.beyond_bitmap;
    st.hops_max = std::max(st.hops_max, ts.hops_max);
    st.latency_max = std::max(st.latency_max, static_cast<double>(ts.lat_max));
    st.latency_mean += static_cast<double>(ts.lat_sum);
    sum_ids += ts.sum_delivered_ids;
    for (std::size_t i = 0; i < lat.size(); ++i) lat[i] += ts.lat_hist[i];
    for (std::size_t i = 0; i < 256; ++i) st.hop_histogram[i] += ts.hop_hist[i];
  }
  while (st.hop_histogram.size() > 1 && st.hop_histogram.back() == 0) st.hop_histogram.pop_back();
  std::uint64_t in_window = 0;
  for (const ThreadStats& ts : tstats) {
    st.measured += ts.measured;
    in_window += ts.delivered_in_window;
  }
  if (cycle_mode) {
    st.latency_unit = "cycles";
    st.cycles_run = cycle;
    const double window = static_cast<double>(cfg.cycles > cfg.warmup ? cfg.cycles - cfg.warmup : 0);
    st.throughput = window > 0 ? static_cast<double>(in_window) / (window * pes) : 0.0;
  }
  if (st.measured) {
    st.latency_mean /= static_cast<double>(st.measured);
    double hsum = 0;
    for (std::size_t h = 0; h < st.hop_histogram.size(); ++h) hsum += static_cast<double>(h * st.hop_histogram[h]);
    st.hops_mean = hsum / static_cast<double>(st.measured);
    auto quantile = [&](double q) {
      const double target = q * static_cast<double>(st.measured);
      double acc = 0;
      for (unsigned b = 0; b < lat.size(); ++b) {
        acc += static_cast<double>(lat[b]);
        if (acc >= target) return std::min(lat_bucket_mid(b), st.latency_max);
      }
      return st.latency_max;
    };
    st.latency_p50 = quantile(0.5);
    st.latency_p99 = quantile(0.99);
  }
  // Exactly-once: every injected (src, seq) delivered once.
  std::uint64_t sum_injected_ids = 0;
  for (node_t v = 0; v < pes; ++v)
    for (std::uint32_t q = 0; q < pe[v].seq; ++q) sum_injected_ids += packet_id(Packet{v, 0, q});
  std::uint64_t in_net_ids = 0;
  for (node_t v = 0; v < nodes; ++v) {
    const PeState& s = pe[v];
    for (std::size_t i = s.injq_head; i < s.injq.size(); ++i) in_net_ids += packet_id(s.injq[i]);
  }
  if (bitmap_k && beyond == 0) {
    st.verify_method = "bitmap";
    std::uint64_t distinct = 0;
    for (const auto& w : bitmap) distinct += static_cast<std::uint64_t>(std::popcount(w.load()));
    st.lost = st.injected - std::min(st.injected, distinct + st.in_network);
    st.conservation_ok = st.injected == st.delivered + st.in_network && st.duplicates == 0 &&
                         distinct == st.delivered && st.lost == 0;
  } else {
    st.verify_method = "checksum";
    st.duplicates = 0;
    // Packets still inside link buffers are not in the checksum; only claim ok when the network is empty.
    st.conservation_ok = st.injected == st.delivered + st.in_network && st.in_network == 0 &&
                         sum_ids + in_net_ids == sum_injected_ids;
    st.lost = st.conservation_ok ? 0 : (st.injected > st.delivered + st.in_network ? st.injected - st.delivered - st.in_network : 0);
  }
  // Link loads.
  std::uint64_t used = 0, total = 0;
  topo.visit([&](const auto& t) {
    for (node_t v = 0; v < nodes; ++v)
      for (port_t p = 0; p < ports; ++p)
        if (t.out_link(v, p).present() && t.out_link(v, p).peer != v) {
          const std::uint64_t n = link_packets[std::size_t{v} * ports + p];
          st.link_load_max = std::max(st.link_load_max, n);
          total += n;
          ++used;
        }
  });
  st.link_load_mean = used ? static_cast<double>(total) / static_cast<double>(used) : 0.0;
  st.link_packets = link_packets;
  st.packets_per_s = st.wall_s > 0 ? static_cast<double>(st.delivered) / st.wall_s : 0;
  st.packet_hops_per_s = st.wall_s > 0 ? static_cast<double>(st.hops) / st.wall_s : 0;
  if (!st.deadlock && (generating || st.in_network)) {
    st.deadlock = true;  // quiescent with work left: nothing can move
  }
}

void Engine::analyse_stuck(RunStats& st) {
  // Wait-for graph over buffers: a non-empty input buffer whose head cannot enter its next buffer
  // waits on that buffer. A cycle of full buffers is the deadlock.
  const std::uint32_t nb = static_cast<std::uint32_t>(ports) * classes;
  auto id = [&](node_t v, std::uint32_t i) { return std::uint64_t{v} * nb + i; };
  std::vector<std::uint64_t> waits(std::size_t{nodes} * nb, ~std::uint64_t{0});
  std::uint64_t full = 0, stuck_packets = 0;
  std::string full_list;
  topo.visit([&](const auto& t) {
    for (node_t v = 0; v < nodes; ++v) {
      PeState& s = pe[v];
      for (std::uint32_t i = 0; i < nb; ++i) {
        LinkBuffer& b = s.inputs[i];
        if (b.empty()) continue;
        stuck_packets += b.size();
        const Packet& p = b.front();
        const Hop h = t.route(v, p.dst, p.cls);
        if (h.delivers()) continue;
        const Link l = t.out_link(v, h.port());
        const class_t nc = cfg.classes ? h.next_class() : class_t{0};
        const std::uint32_t j = static_cast<std::uint32_t>(l.in_port) * classes + nc;
        waits[id(v, i)] = id(l.peer, j);
      }
    }
  });
  // Words held by buffer i of v: the upstream producer's credit for it (exact when quiescent).
  auto words_held = [&](node_t v, std::uint32_t i) -> unsigned {
    const node_t u = upstream[std::size_t{v} * ports + i / classes];
    if (u == no_node) return 0;
    for (port_t q = 0; q < ports; ++q) {
      const Link l = topo.out_link(u, q);
      if (l.present() && l.peer == v && l.in_port == i / classes)
        return pe[v].inputs[i].words_held(pe[u].credits[static_cast<std::uint32_t>(q) * classes + i % classes]);
    }
    return 0;
  };
  for (node_t v = 0; v < nodes; ++v)
    for (std::uint32_t i = 0; i < nb; ++i) {
      const LinkBuffer& b = pe[v].inputs[i];
      if (b.empty()) continue;
      const unsigned held = words_held(v, i);
      if (held + min_words > cfg.buffer_words) {
        ++full;
        if (full <= 16)
          full_list += fmt::format("{}{} in-port {} class {} ({} packets, {}/{} words)", full > 1 ? "; " : "",
                                   topo.label(v), i / classes, i % classes, b.size(), held, cfg.buffer_words);
      }
    }
  // Find a cycle by walking the (functional) wait graph from every waiting buffer.
  std::vector<std::uint8_t> color(waits.size(), 0);
  std::string wait_cycle;
  for (std::size_t start = 0; start < waits.size() && wait_cycle.empty(); ++start) {
    if (color[start] || waits[start] == ~std::uint64_t{0}) continue;
    std::vector<std::uint64_t> path;
    std::uint64_t cur = start;
    while (cur != ~std::uint64_t{0} && color[cur] == 0) {
      color[cur] = 1;
      path.push_back(cur);
      cur = waits[cur];
    }
    if (cur != ~std::uint64_t{0} && color[cur] == 1) {
      auto it = std::find(path.begin(), path.end(), cur);
      std::size_t shown = 0;
      for (; it != path.end() && shown < 32; ++it, ++shown) {
        const node_t v = static_cast<node_t>(*it / nb);
        const std::uint32_t i = static_cast<std::uint32_t>(*it % nb);
        wait_cycle += fmt::format("{} (in-port {}, class {}) -> ", topo.label(v), i / classes, i % classes);
      }
      wait_cycle += fmt::format("{} (in-port {}, class {})", topo.label(static_cast<node_t>(cur / nb)),
                           static_cast<std::uint32_t>(cur % nb) / classes, static_cast<std::uint32_t>(cur % nb) % classes);
    }
    for (auto p : path) color[p] = 2;
  }
  st.deadlock_report = fmt::format("deadlock: {} packets stuck in the network, {} full buffers{}{}\n", stuck_packets,
                                   full, full ? fmt::format(" ({}{})", full_list, full > 16 ? ", ..." : "") : "",
                                   "");
  if (!wait_cycle.empty())
    st.deadlock_report += "waiting cycle: " + wait_cycle + "\n";
  else
    st.deadlock_report += "no waiting cycle among link buffers (the application stopped with packets or work left)\n";
}

}  // namespace detail

void validate(const EngineConfig& cfg) {
  detail::check_range("run", "threads", cfg.threads, 0, 1024);
  detail::check_range("run", "packet-words (mean)", cfg.packet_words, 1, 255);
  detail::check_range("run", "packet-words (spread)", cfg.packet_spread, 0, cfg.packet_words - 1);
  detail::check_range("run", "buffer-words", cfg.buffer_words, cfg.packet_words + cfg.packet_spread, 1 << 16);
  detail::check_range("run", "batch", cfg.batch, 1, 1 << 20);
  detail::check_range("run", "block", cfg.block, 1, 64);
  if (cfg.cycles < 1 || cfg.cycles > (std::uint64_t{1} << 31))
    throw usage_error(fmt::format("run: parameter 'cycles' = {} is out of range [1, 2^31]", cfg.cycles));
  if (cfg.warmup >= cfg.cycles)
    throw usage_error(fmt::format("run: parameter 'warmup' = {} must be below 'cycles' = {}", cfg.warmup, cfg.cycles));
  detail::check_range("run", "link-cycles", cfg.link_cycles, 0, 1 << 16);
  if (!std::has_single_bit(cfg.block))
    throw usage_error(fmt::format("run: parameter 'block' = {} must be a power of two in [1, 64]", cfg.block));
}

namespace detail {
RunStats run_prepared(Engine& e, bool cycles) {
  if (!e.cfg.trace.empty()) e.traces.resize(e.topo.pes());
  RunStats st;
  if (cycles)
    e.topo.visit([&](const auto& t) { e.run_cycles(t, st); });
  else
    e.topo.visit([&](const auto& t) { e.run(t, st); });
  e.collect(st);
  if (st.deadlock) e.analyse_stuck(st);
  if (!e.cfg.trace.empty()) e.write_trace(e.cfg.trace);
  st.app_ok = !st.deadlock;
  for (JobRt& j : e.jobs) {
    if (!st.app_ok) break;
    std::string why;
    if (!j.app->verify(why)) {
      st.app_ok = false;
      st.app_message = e.jobs.size() > 1 ? fmt::format("job {}: {}", &j - e.jobs.data(), why) : why;
    }
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  st.peak_rss_kb = static_cast<std::uint64_t>(ru.ru_maxrss);
  return st;
}
}  // namespace detail

namespace {
RunStats run_machine(const Topology& topology, App& app, const EngineConfig& cfg, bool cycles) {
  validate(cfg);
  if (topology.pes() < 2) throw usage_error("run: the topology needs at least 2 PEs");
  Machine m(topology, cfg.seed);
  app.setup(m);
  std::vector<detail::JobRt> jobs(1);
  jobs[0].app = &app;
  jobs[0].handlers = m.handlers();
  jobs[0].size = topology.pes();
  detail::Engine e(topology, std::move(jobs), cfg);
  e.allocate();
  return detail::run_prepared(e, cycles);
}
}  // namespace

const char* to_string(EngineKind k) noexcept { return k == EngineKind::async ? "async" : "cycle"; }
const char* to_string(Timing t) noexcept { return t == Timing::vct ? "vct" : "saf"; }
const char* to_string(Arbitration a) noexcept { return a == Arbitration::round_robin ? "rr" : "oldest"; }

EngineKind engine_kind_by_name(const std::string& name, const std::string& option) {
  if (name == "async") return EngineKind::async;
  if (name == "cycle") return EngineKind::cycle;
  throw usage_error(fmt::format("{}: unknown engine '{}'; valid: async, cycle", option, name));
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

RunStats run(const Topology& topology, App& app, const EngineConfig& cfg) {
  return run_machine(topology, app, cfg, cfg.engine == EngineKind::cycle);
}

RunStats run_async(const Topology& topology, App& app, const EngineConfig& cfg) {
  return run_machine(topology, app, cfg, false);
}

RunStats run_cycles(const Topology& topology, App& app, const EngineConfig& cfg) {
  return run_machine(topology, app, cfg, true);
}

}  // namespace rica
