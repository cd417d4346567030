// The cycle driver: the machine on a synchronous virtual clock. It decides only order and timing;
// every packet moves through Machine's hop kernel.
//
// In each cycle every node with work moves what it may, from the state at the start of the cycle:
// a head packet may leave only when its `ready` cycle has come (packets pushed in this cycle are
// ready later), room downstream is judged by credits as of the end of the last cycle (credits
// return one cycle later), and every choice is a fixed rule (round robin or oldest first), so
// every packet's route and latency depend only on the configuration and the seed — identical for
// any number of threads.
//
// Timing (docs/runtime.md): a packet of w words over a link of L cycles per packet occupies the
// link for L cycles; under virtual cut-through (default) its head reaches the next node after
// h = ceil(L / w) cycles and may leave at once (if the next link is free and the whole packet
// fits downstream), its tail arrives no earlier than L cycles after it left and one word time
// after the tail reached the previous node; it is delivered when its tail arrives. Zero-load
// latency over H hops of equal links: (H - 1) h + L. Store-and-forward: h = L, H L. With a router
// pipeline of R cycles (--router-cycles) the head is ready R cycles after it arrives at each node:
// (H - 1)(h + R) + max(L, h + R).
#include "cycle_crew.hpp"
#include "rica/interrupt.hpp"
#include "machine.hpp"
#include "node_step.hpp"
#include "driver_registry.hpp"
#include "run_frame.hpp"
#include "staged.hpp"
#include "tsan.hpp"

namespace rica::detail {

struct CycleDriver final : LinkClock {
  Machine& m;
  /// Under mpirun: this rank steps only its nodes; effects on other ranks' nodes are shipped
  /// between cycles (runtime/machine/ranks.hpp). Null with one process.
  Ranks* const ranks;
  std::vector<std::pair<node_t, std::uint32_t>> remote_arrivals;
  lazy_vector<std::uint32_t> port_rr;  // round-robin position per output port [row(node) + port]
  /// The first cycle at which each out-link is idle [row(node) + port]: written by the sending
  /// node's step only (its own rows), read by the OS between cycles (link_free_at).
  lazy_vector<std::uint64_t> busy_until;
  /// The active set, a bitmap over nodes: nodes that may have work this cycle (holding packets,
  /// generating, or held by the OS). `next` collects the next cycle's: bit v is set by v's own step
  /// (v still has work; a 64-node word is stepped by one thread, so no atomics) or between cycles
  /// (arrivals, nodes the OS touched). Threads take fixed word ranges (static partition), so a
  /// node stays on one core from cycle to cycle.
  std::vector<std::uint64_t> active, next;
  /// Sleeping generators (Context::skip_opportunities): a node with nothing to move whose app
  /// skips its next opportunities leaves the active set until its next generate() call — or an
  /// arrival, whichever is first. Wake-up cycles sit in a wheel of `wheel_size` buckets (those
  /// further ahead in `far`, moved in once per turn of the wheel). Main thread only.
  static constexpr std::uint64_t wheel_size = 1024;
  std::vector<std::vector<node_t>> wheel = std::vector<std::vector<node_t>>(wheel_size);
  std::vector<std::pair<std::uint64_t, node_t>> far;
  std::int64_t asleep = 0;  ///< nodes asleep now (their wake-up is pending)

  /// --router-cycles: cycles a head waits at each node it reaches (0: none).
  const unsigned router_cycles;

  explicit CycleDriver(Machine& mm) : m(mm), ranks(mm.ranks()), router_cycles(mm.config().router_cycles) {
    m.os_state().attach_links(this);
  }
  ~CycleDriver() { m.os_state().attach_links(nullptr); }
  CycleDriver(const CycleDriver&) = delete;
  CycleDriver& operator=(const CycleDriver&) = delete;
  /// LinkClock (the OS layer's view of the links): main thread, between cycles.
  std::uint64_t link_free_at(node_t v, port_t port) const noexcept override {
    return port < m.port_width(v) ? busy_until[m.port_row(v) + port] : 0;
  }

  /// A head packet that waits for an output port this cycle.
  struct Cand {
    std::uint32_t input;
    HopPlan hop;
    std::uint64_t age;  ///< the head's generation time (oldest-first arbitration), read once
    bool tried;
  };

  /// The cycle engine's step policy (node_step, runtime/machine/node_step.hpp) and the hop
  /// kernel's driver policy (Machine::move): one per step of node v in one cycle, on the thread
  /// stepping v. Decisions come from the state at the start of the cycle: a head may leave once
  /// its `ready` cycle has come, is delivered once its tail has arrived, and otherwise waits for
  /// its output port, whose arbitration runs at the end of the visit (one pass, one packet per
  /// input and per port). Only v's own state is written, plus the pushed packets themselves (their
  /// buffers' producer side, owned by v); effects on other nodes (credits returned upstream,
  /// arrivals downstream) go to this thread's lists, applied between cycles, so no decision in a
  /// cycle depends on how far another thread got in it.
  struct Step {
    static constexpr bool may_idle = true;  ///< a node with nothing to move may go to sleep
    CycleDriver& d;
    ThreadStats& ts;
    const std::uint64_t cycle;
    /// v's work mask (Machine::work): exactly the inputs that held packets at the start of the
    /// cycle; only v's own step pops v's inputs.
    std::uint64_t* const work;
    const std::size_t row;  ///< v's first row in the per-port tables (Machine::port_row)
    Cand* const cand;  ///< this thread's room for n_buf + 1 candidates
    std::uint32_t nc = 0;
    std::uint64_t ports_wanted = 0;  ///< bit p (mod 64): some candidate waits for port p
    std::uint64_t ports_shared = 0;  ///< bit p (mod 64): more than one does
    std::uint16_t first[64];         ///< ports <= 64: the candidate of each port in ports_wanted

    Step(CycleDriver& dd, ThreadStats& t, node_t v, Cand* c)
        : d(dd), ts(t), cycle(dd.m.cycle()), work(dd.m.work(v)), row(dd.m.port_row(v)), cand(c) {}

    // ---- the node step's hooks ----
    bool held(node_t v) const noexcept { return d.m.os_state().halted(v); }  // the OS holds it (drain)
    RICA_STEP_HOOK void begin(PeState& s, node_t) {
      if (!s.asleep) return;
      // Account for the cycles slept as if stepped idle: skipped turns, round robin.
      const std::uint64_t slept = cycle - s.slept_at - 1;
      RICA_ASSERT(slept <= s.gen_skip, "a node slept past its next generator turn");
      s.gen_skip -= slept;
      s.rr = static_cast<std::uint32_t>((s.rr + slept) % (d.m.buffers_per_node() + 1));
      s.asleep = false;
      --ts.asleep;
    }
    bool window_open() const noexcept { return cycle < d.m.config().cycles; }
    static bool source(const PeState& s) noexcept { return s.injq_head != s.injq.size(); }
    std::uint64_t mask(std::uint32_t w) const noexcept { return work[w]; }
    static constexpr bool has_head(const PeState&, std::uint32_t) noexcept { return true; }  // exact work bits
    /// Nothing to move: a generator may sleep until its app's next turn (or the end of the
    /// window, where the generator stops), unless an arrival comes first.
    RICA_STEP_HOOK bool idle(PeState& s, node_t v) {
      if (v >= d.m.pes() || !s.generating) return false;
      if (s.gen_skip == 0 || d.m.os_hooked()) return true;  // it generates next cycle (or the OS may act)
      std::uint64_t wake = cycle + s.gen_skip + 1;
      if (cycle < d.m.config().cycles) wake = std::min<std::uint64_t>(wake, d.m.config().cycles);
      s.asleep = true;
      s.slept_at = cycle;
      ++ts.asleep;
      ts.wakeups.emplace_back(wake, v);
      return false;
    }
    bool ready(const Packet& h) const noexcept { return h.ready <= cycle; }
    RICA_STEP_HOOK bool deliver(PeState& s, node_t v, std::uint32_t i, const Packet& h) {
      if (h.tail > cycle) return false;  // delivered once its tail has arrived
      d.m.deliver_head(s, v, i, ts, *this);  // one packet per input per cycle
      return true;
    }
    /// The head waits for its output port: the move, if any, comes after every input was
    /// considered. The peer's buffer is fetched now, so the cold lines of several hops arrive
    /// together instead of one by one: both lines, the producer's (write index) and the one with
    /// the ring pointer and read index.
    RICA_STEP_HOOK bool forward(PeState&, node_t, std::uint32_t i, const Packet& h, const HopPlan& hop) {
      const char* pb = reinterpret_cast<const char*>(&d.m.buffer_at(hop.buf));
      __builtin_prefetch(pb, 1);
      __builtin_prefetch(pb + 64);
      const std::uint64_t bit = std::uint64_t{1} << (hop.port & 63);
      ports_shared |= ports_wanted & bit;
      ports_wanted |= bit;
      first[hop.port & 63] = static_cast<std::uint16_t>(nc);
      cand[nc++] = {i, hop, h.inject_ns, false};
      return false;
    }
    /// Adaptive selection's view of v's out-ports (port_view, Machine::select): port q takes no
    /// further packet this cycle when its link is still busy or an earlier head of this visit
    /// was planned to it (arbitration moves at most one packet per port and cycle).
    struct Ports {
      const Step& e;
      bool taken(port_t q) const noexcept {
        const CycleDriver& d = e.d;
        if (d.busy_until[e.row + q] > e.cycle) return true;
        if (d.m.ports() <= 64) return e.ports_wanted >> q & 1;
        for (const Cand* c = e.cand; c != e.cand + e.nc; ++c)
          if (c->hop.port == q) return true;
        return false;
      }
    };
    Ports ports(node_t) const noexcept { return {*this}; }
    static constexpr bool more() noexcept { return true; }
    static constexpr bool again(bool) noexcept { return false; }  // one pass per cycle
    /// The wanted ports' arbitration, in port order; a port one head waits for needs no search.
    RICA_STEP_HOOK bool end(PeState& s, node_t v) {
      if (nc == 0) return true;
      if (d.m.ports() <= 64) {
        for (std::uint64_t pw = ports_wanted; pw; pw &= pw - 1) {
          const auto p = static_cast<port_t>(std::countr_zero(pw));
          if (ports_shared >> p & 1)
            d.arbitrate(v, p, s, *this);
          else
            d.offer(v, p, s, *this, cand[first[p]]);
        }
      } else if (nc <= 64) {  // a high-radix node: the candidates' ports, in port order
        port_t wanted[64];
        for (std::uint32_t k = 0; k < nc; ++k) wanted[k] = cand[k].hop.port;
        std::sort(wanted, wanted + nc);
        for (std::uint32_t k = 0; k < nc; ++k)
          if (k == 0 || wanted[k] != wanted[k - 1]) d.arbitrate(v, wanted[k], s, *this);
      } else {
        for (port_t p = 0; p < d.m.ports(); ++p)
          if (ports_wanted >> (p & 63) & 1) d.arbitrate(v, p, s, *this);
      }
      return true;
    }

    // ---- the hop kernel's hooks ----
    void popped(node_t v, std::uint32_t i, unsigned words, bool /*wake*/, bool now_empty) {
      ts.credit_returns.emplace_back(d.m.up_credit(v, i), words);
      RICA_ASSERT(work == d.m.work(v), "a pop outside the popping node's step");
      if (now_empty) work[i >> 6] &= ~(std::uint64_t{1} << (i & 63));
    }
    void stamp(Packet& p, const Packet& src, node_t v, port_t port) {
      const unsigned len = d.m.link_cycles(v, src.words);
      const unsigned head =
          d.m.config().timing == Timing::vct && src.words > 1 ? (len + src.words - 1) / src.words : len;
      std::uint64_t ready = cycle + head;
      std::uint64_t tail = std::max<std::uint64_t>(cycle + len, std::uint64_t{src.tail} + head);
      d.busy_until[row + port] = tail;  // the link carries it until its tail crossed
      if (d.router_cycles != 0) {  // the head is ready R cycles after it arrived (the router pipeline)
        ready += d.router_cycles;
        tail = std::max(tail, ready);  // delivered once both hold (tail >= ready)
      }
      p.ready = static_cast<std::uint32_t>(ready);
      p.tail = static_cast<std::uint32_t>(tail);
    }
    void pushed(node_t peer, std::uint32_t in) { ts.arrivals.emplace_back(peer, in); }
  };

  /// One node in one cycle (node_step with the cycle policy). `cand`: this thread's scratch room
  /// for n_buf + 1 candidates. Returns true while v has work (packets, a generator, an OS hold).
  template <class T>
  bool step(const T& t, node_t v, ThreadStats& ts, Cand* cand) {
    Step e(*this, ts, v, cand);
    return node_step(m, t, v, e);
  }

  /// Candidate c, chosen for its free port p, moves if its packet may: false if it may not
  /// (blocked for this cycle: the peer is held by a switch, or no room by the credit view).
  bool try_move(node_t v, PeState& s, Step& e, const Cand& c, std::size_t op) {
    const HopPlan& h = c.hop;
    if (!m.os_state().accepts(h.peer, v)) return false;  // its inputs are not ready (a switch)
    const Packet& head = m.head(s, c.input);
    if (!LinkBuffer::fits_cached(m.credits(v)[h.out], m.config().buffer_words, head.words)) {  // no touch of the peer
      ++s.blocked;
      return false;
    }
    const std::uint32_t n_in = m.buffers_per_node() + 1;
    port_rr[op] = c.input + 1 >= n_in ? 0 : c.input + 1;
    m.move(s, v, c.input, h, e.ts, e);
    return true;
  }
  /// Output port p of v when only candidate c waits for it: moves it if the link is free and the
  /// packet may (the arbitration below with one candidate).
  void offer(node_t v, port_t p, PeState& s, Step& e, const Cand& c) {
    const std::size_t op = e.row + p;
    if (busy_until[op] > m.cycle()) return;
    try_move(v, s, e, c, op);
  }
  /// Output port p of v, if free, takes one waiting head that fits: the first in its own round
  /// robin over the inputs, or the oldest (generation time; ties: round-robin order).
  void arbitrate(node_t v, port_t p, PeState& s, Step& e) {
    const std::uint32_t n_in = m.buffers_per_node() + 1;
    const bool oldest = m.config().arbitration == Arbitration::oldest;
    const std::size_t op = e.row + p;
    if (busy_until[op] > m.cycle()) return;
    const std::uint32_t prr = port_rr[op];
    Cand* const cand = e.cand;
    const std::uint32_t nc = e.nc;
    for (;;) {
      Cand* best = nullptr;
      std::uint32_t best_d = n_in;
      std::uint64_t best_age = ~std::uint64_t{0};
      for (Cand* c = cand; c != cand + nc; ++c) {
        if (c->tried || c->hop.port != p) continue;
        const std::uint32_t dd = c->input >= prr ? c->input - prr : c->input + n_in - prr;
        const std::uint64_t age = oldest ? c->age : 0;
        if (age < best_age || (age == best_age && dd < best_d)) best_d = dd, best_age = age, best = c;
      }
      if (!best) return;
      best->tried = true;  // tried for this port (moved, or blocked for this cycle)
      if (try_move(v, s, e, *best, op)) return;
    }
  }

  /// Between cycles (one thread): credits freed in the last cycle reach their producers, packets
  /// pushed in it enter their consumers' work masks and the active list.
  /// Under mpirun, effects on another rank's nodes go to its batch instead (Ranks::ship*).
  /// With the port-load board (UGAL-G; one process): every out-port whose credit changed in the
  /// last cycle (a push, a credit returned) is published anew, after all pushes of the cycle.
  void apply_effects() {
    const bool board = m.has_board();
    for (ThreadStats& ts : m.thread_stats()) {
      for (const auto& [ci, words] : ts.credit_returns) {
        if (ranks && !ranks->mine(m.node_of_credit(ci)))
          ranks->ship_credit(m, ci, words);
        else
          m.credit(ci).popped_seen += words;
        if (board) m.publish_board_credit(ci);
      }
      for (const auto& [v, i] : ts.arrivals) {
        if (ranks && !ranks->mine(v)) {
          ranks->ship(m, v, i);
          continue;
        }
        if (board) m.publish_board_credit(m.up_credit(v, i));
        arrived(v, i);
      }
      ts.credit_returns.clear();
      ts.arrivals.clear();
      for (const auto& wv : ts.wakeups) {
        if (wv.first - m.cycle() <= wheel_size) wheel[wv.first % wheel_size].push_back(wv.second);
        else far.push_back(wv);
      }
      ts.wakeups.clear();
      asleep += ts.asleep;
      ts.asleep = 0;
    }
    // Wake-ups due in the next cycle (m.cycle() + 1) join its active set.
    const std::uint64_t next_cycle = m.cycle() + 1;
    if (next_cycle % wheel_size == 0 && !far.empty()) {
      std::erase_if(far, [&](const std::pair<std::uint64_t, node_t>& wv) {
        if (wv.first >= next_cycle + wheel_size) return false;
        wheel[wv.first % wheel_size].push_back(wv.second);
        return true;
      });
    }
    std::vector<node_t>& due = wheel[next_cycle % wheel_size];
    for (node_t v : due) list(v);  // a stale entry (woken early since) only steps an idle node
    due.clear();
  }
  /// The earliest pending wake-up (a stale one included: it only steps an idle node), or
  /// no_wake. Between cycles, after apply_effects(): wheel entries then fall in
  /// [m.cycle() + 1, m.cycle() + wheel_size], each bucket's cycle found from its index.
  static constexpr std::uint64_t no_wake = ~std::uint64_t{0};
  std::uint64_t earliest_wake() const {
    for (std::uint64_t c = m.cycle() + 1; c <= m.cycle() + wheel_size; ++c)
      if (!wheel[c % wheel_size].empty()) return c;
    std::uint64_t w = no_wake;
    for (const auto& wv : far) w = std::min(w, wv.first);
    return w;
  }
  /// Idle-time skip: no node has work, no packet is anywhere and no OS hook acts, so nothing
  /// happens before cycle w (<= every pending wake-up, > m.cycle() + 1). Moves the clock to the
  /// eve of w and lists the nodes due then, exactly as stepping the empty cycles would (a sleeping
  /// node accounts for the cycles it slept when it wakes). The wheel is laid out anew for the
  /// new position: its entries with their cycles, then every wake-up within wheel_size of it.
  void jump_to(std::uint64_t w) {
    RICA_ASSERT(w > m.cycle() + 1 && w <= earliest_wake(), "a jump past a pending wake-up");
    RICA_ASSERT(std::none_of(next.begin(), next.end(), [](std::uint64_t x) { return x != 0; }),
                "a jump while a node has work");
    for (std::uint64_t c = m.cycle() + 1; c <= m.cycle() + wheel_size; ++c) {
      for (node_t v : wheel[c % wheel_size]) far.emplace_back(c, v);
      wheel[c % wheel_size].clear();
    }
    m.set_cycle(w - 1);
    std::erase_if(far, [&](const std::pair<std::uint64_t, node_t>& wv) {
      if (wv.first - m.cycle() > wheel_size) return false;
      wheel[wv.first % wheel_size].push_back(wv.second);
      return true;
    });
    std::vector<node_t>& due = wheel[w % wheel_size];
    for (node_t v : due) list(v);
    due.clear();
  }
  void arrived(node_t v, std::uint32_t i) {
    m.work(v)[i >> 6] |= std::uint64_t{1} << (i & 63);
    list(v);
  }
  void list(node_t v) noexcept { next[v >> 6] |= std::uint64_t{1} << (v & 63); }

  /// The observers (rica/observer.hpp) and where each one's current window began.
  std::vector<std::uint64_t> obs_from;
  /// `t` cycles are complete (main thread, between cycles): every observer whose window ended
  /// by then sees the machine. An idle stretch jumped over joins the window it began in (nothing
  /// moved in it, so the view at the last boundary is the machine's state then).
  /// Each stop (one or more on_window calls) is timed and told to every observer (on_stopped).
  void observe(std::uint64_t t) {
    const Observers obs = m.observers();
    std::chrono::steady_clock::time_point from{};
    for (std::size_t k = 0; k < obs.size(); ++k) {
      const std::uint64_t end = t - t % obs[k]->window();
      if (end <= obs_from[k]) continue;
      if (from == std::chrono::steady_clock::time_point{}) from = std::chrono::steady_clock::now();
      obs[k]->on_window(MachineView(m, end), obs_from[k], end);
      obs_from[k] = end;
    }
    if (from != std::chrono::steady_clock::time_point{}) stopped(obs, from);
  }
  /// The run ended after `t` cycles: the last, partial windows.
  void observe_last(std::uint64_t t) {
    const Observers obs = m.observers();
    const auto from = std::chrono::steady_clock::now();
    for (std::size_t k = 0; k < obs.size(); ++k)
      if (t > obs_from[k]) {
        obs[k]->on_window(MachineView(m, t), obs_from[k], t);
        obs_from[k] = t;
      }
    stopped(obs, from);
  }
  static void stopped(const Observers obs, std::chrono::steady_clock::time_point from) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - from);
    for (Observer* o : obs) o->on_stopped(static_cast<std::uint64_t>(ns.count()));
  }

  /// The stages of prefetch_node() and how many nodes ahead of the one stepping each runs
  /// (run_staged, runtime/machine/staged.hpp): each reads only what the stage before fetched.
  struct Stage {
    enum : std::size_t { state, buffer, ring, slot, route };
  };
  static constexpr std::array<std::size_t, 5> ahead{16, 10, 6, 3, 1};
  /// One stage of fetching node v's state ahead of its step (read-only, and only of v's own
  /// consumer-side state, which no other thread writes during the cycle):
  ///  state: its PeState, work mask and per-node rows (credits, link state, counters);
  ///  buffer: both lines of each input holding packets (work bit set), the source queue's head;
  ///  ring: the front entry of those inputs' index rings;  slot: their head packets;
  ///  route: the buffers those heads will be pushed into.
  template <class T>
  void prefetch_node(const T& t, node_t v, std::size_t stage) const noexcept {
    const std::size_t vp = m.port_row(v);
    if (stage == Stage::state) {
      const char* s = reinterpret_cast<const char*>(&m.pe(v));
      __builtin_prefetch(s);
      __builtin_prefetch(s + 64);
      __builtin_prefetch(s + 128);
      __builtin_prefetch(m.work(v));
      __builtin_prefetch(m.credits(v), 1);
      __builtin_prefetch(m.up_credits(v));
      __builtin_prefetch(&busy_until[vp], 1);
      __builtin_prefetch(m.link_packets(v), 1);
      __builtin_prefetch(&port_rr[vp], 1);
      return;
    }
    if (stage == Stage::buffer) {  // the source queue's head (a heap block of its own per PE)
      const PeState& s = m.pe(v);
      if (s.injq_head < s.injq.size()) __builtin_prefetch(&s.injq[s.injq_head]);
    }
    std::uint64_t bits = m.work(v)[0];
    const LinkBuffer* in = &m.peer_buffer(v, 0);
    if (stage != Stage::route) {
      prefetch_inputs(in, bits,
                      stage == Stage::buffer ? InputStage::buffer : stage == Stage::ring ? InputStage::ring : InputStage::slot);
      return;
    }
    for (; bits; bits &= bits - 1) {  // the route stage: the buffers the heads will be pushed into
      const LinkBuffer& b = in[std::countr_zero(bits)];
      if (b.empty()) continue;
      const HopPlan h = m.plan(t, v, b.front());
      if (h.delivers) continue;
      const char* pb = reinterpret_cast<const char*>(&m.buffer_at(h.buf));
      __builtin_prefetch(pb, 1);
      __builtin_prefetch(pb + 64);
    }
  }

  /// Chunks of the active set per stepping thread (CycleCrew): enough that a thread on a busy core
  /// gives up a small share at a time, few enough that a chunk's claim costs nothing per node.
  static constexpr std::size_t kChunksPerThread = 8;
  /// Runs cycles from m.cycle() until the machine is done or stuck (false), or until cycle
  /// `stop_at` is about to start (true: the caller changes the machine, e.g. faults, and calls
  /// run again, possibly with another topology type, to continue).
  template <class T>
  bool run(const T& t, RunStats& st, std::uint64_t stop_at = ~std::uint64_t{0});
  bool started = false;  ///< thread statistics, port state and the active set are set up
};

template <class T>
bool CycleDriver::run(const T& t, RunStats& st, std::uint64_t stop_at) {
  const EngineConfig& cfg = m.config();
  const node_t nodes = m.nodes();
  const bool first = !started;
  started = true;
  RunFrame frame(m, RunFrame::Main::steps, first);
  const unsigned threads = frame.threads();
  tbb::task_arena& local_arena = frame.arena();
  if (first) {
    obs_from.assign(m.observers().size(), m.cycle());
    // Zero (lazy_vector: untouched pages cost nothing): under mpirun only this rank's nodes'
    // entries become resident (sparse.hpp); a port's entries once it first carries a packet.
    port_rr.resize(m.rows().total);
    busy_until.resize(m.rows().total);
  }
  const unsigned max_len = m.max_link_cycles() + cfg.router_cycles;  // the longest a head waits on timing
  // Nothing moved for longer than any transmission or timing delay can last, nothing generates and
  // no OS switch holds nodes: nothing ever will — a deadlock. With generators still running (they
  // may free a path), a generous bound instead.
  const std::uint64_t quick_limit = 2ull * max_len + 4;
  const std::uint64_t stall_limit = std::max<std::uint64_t>(2000, 200ull * max_len);
  // Cycles of the injection window; the drain after it counts on past the total (no ETA then).
  Progress progress_line("cycles", cfg.cycles, !cfg.progress || (ranks && ranks->rank != 0), false);
  auto last_print = std::chrono::steady_clock::now();
  std::uint64_t last_progress = 0, stalled = 0;
  // Livelock guard: packets keep moving (an OS policy may move them around for ever) but none is
  // delivered in this many cycles that moved a packet, while packets are left: stop and report
  // instead of running for ever. Only cycles with moves count: an idle stretch (an empty network
  // waiting for the next injection) is no livelock, however long.
  const std::uint64_t livelock_limit = std::max<std::uint64_t>(200000, 100ull * stall_limit);
  std::uint64_t last_delivered = 0, undelivered = 0, hops_at_delivery = 0, cycle_at_delivery = 0;
  const std::size_t words = (std::size_t{nodes} + 63) / 64;
  if (first) {
    active.assign(words, 0);
    next.assign(words, 0);
    for (node_t v = 0; v < nodes; ++v)
      if ((!ranks || ranks->mine(v)) && (v < m.pes() || m.pe(v).injq_head != m.pe(v).injq.size())) list(v);
  }
  m.os_state().take_touched([&](node_t v) { list(v); });  // nodes changed between the calls (faults; one process only)
  // Under mpirun the machine's state is the union of every rank's: these ask all ranks.
  auto packets_left = [&] { return ranks ? ranks->any(m.packets_left()) : m.packets_left(); };
  auto generating = [&] { return ranks ? ranks->any(m.generating()) : m.generating(); };
  std::size_t active_nodes = 0;
  auto slot = [&]() -> std::size_t {
    const int k = tbb::this_task_arena::current_thread_index();
    if (k < 0 || static_cast<std::size_t>(k) >= m.thread_stats().size()) std::abort();  // broken invariant
    return static_cast<std::size_t>(k);
  };
  // The nodes of a chunk are stepped in order, with their state fetched ahead in stages, so the
  // cache misses of several nodes overlap instead of each step waiting on its own chain (node
  // state -> input buffer -> index ring -> packet slot): see prefetch_node().
  // Only once the buffers no longer fit in the caches: on a 64K-PE torus the stages double the
  // packet-hops/s; on 1K PEs they cost ~10% (the next node's state is fetched instead).
  const bool deep = m.buffers_exceed_caches();
  auto step_words = [&](std::size_t lo, std::size_t hi) {
    ThreadStats& ts = m.thread_stats()[slot()];
    thread_local std::vector<node_t> order;
    thread_local std::vector<Cand> cand;
    order.clear();
    if (cand.size() < std::size_t{m.buffers_per_node()} + 1) cand.resize(std::size_t{m.buffers_per_node()} + 1);
    for (std::size_t w = lo; w < hi; ++w)
      for (std::uint64_t bits = active[w]; bits; bits &= bits - 1)
        order.push_back(static_cast<node_t>(w * 64 + static_cast<unsigned>(std::countr_zero(bits))));
    const auto step_at = [&](std::size_t j) {
      const node_t v = order[j];
      if (step(t, v, ts, cand.data())) next[v >> 6] |= std::uint64_t{1} << (v & 63);  // this chunk's words: this thread's
    };
    if (deep) {
      run_staged(order.size(), ahead, [&](std::size_t j, std::size_t stage) { prefetch_node(t, order[j], stage); },
                 step_at);
    } else {  // the next node's state only
      run_staged(order.size(), std::array<std::size_t, 1>{1}, [&](std::size_t j, std::size_t) {
        __builtin_prefetch(&m.pe(order[j]));
        __builtin_prefetch(m.work(order[j]));
      }, step_at);
    }
  };
  // More than one thread: a crew steps the cycle's chunks (runtime/machine/cycle_crew.hpp), chunk k of C being
  // words [k W / C, (k + 1) W / C) of the active set (the same nodes on the same thread from cycle
  // to cycle, unless a thread lags). Declared after the arena: its helpers stop before it goes.
  // Helpers only as many as the caller's oneTBB limit allows (a global_control of
  // max_allowed_parallelism 1 leaves none; oneTBB would still run an enqueued helper, on a thread
  // beyond the caller's limit).
  CycleCrew crew;
  const unsigned helpers = static_cast<unsigned>(std::min<std::size_t>(
      threads, tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism))) - 1;
  // Several chunks per thread: a thread slowed down by another process on its core leaves the end
  // of its share to the others (CycleCrew), so 2 threads on a busy host stay faster than 1.
  const std::size_t chunks = std::max<std::size_t>(1, std::min<std::size_t>(words, std::size_t{threads} * kChunksPerThread));
  if (helpers > 0)
    crew.start(local_arena, static_cast<unsigned>(chunks), helpers, [&](unsigned k) {
      step_words(words * k / chunks, words * (k + 1) / chunks);
    });
  for (;; m.set_cycle(m.cycle() + 1)) {
    const std::uint64_t cycle = m.cycle();
    if (cycle == stop_at) {
      progress_line.finish();
      frame.stop_clock(st);
      return true;
    }
    // A stop request (rica/interrupt.hpp; one process only: ranks would wait for this one):
    // end here; run_prepared throws `interrupted` before anything is collected or written.
    if (!ranks && interrupt_requested()) break;
    if (cycle == cfg.cycles) m.close_window();
    active.swap(next);
    std::fill(next.begin(), next.end(), 0);
    active_nodes = 0;
    for (std::uint64_t w : active) active_nodes += static_cast<std::size_t>(std::popcount(w));
    // The cycle is a barrier: what the main thread did between cycles happens before every step
    // of this cycle, and every step before the main thread's next turn (CycleCrew's contract).
    // The main thread steps in the arena (its slot names its statistics).
    local_arena.execute([&] {
      if (helpers == 0 || active_nodes < 256)  // a few nodes: the main thread alone (same results)
        step_words(0, words);
      else
        crew.run_all();
    });
    // The next cycle's active set: nodes that still have work (set by their steps), then new
    // arrivals and nodes the OS touched.
    apply_effects();
    CycleHook* const hook = m.os_state().hook();
    if (hook) hook->after_cycle(cycle);
    m.os_state().take_touched([&](node_t v) { list(v); });
    if (!obs_from.empty()) observe(cycle + 1);
    std::uint64_t progress = 0, delivered = 0;
    for (const ThreadStats& ts : m.thread_stats()) progress += ts.hops + ts.delivered, delivered += ts.delivered;
    const bool busy_os = hook && hook->busy();
    bool work_next = false;  // some node has work next cycle
    for (std::uint64_t w : next) work_next = work_next || w != 0;
    bool any_next = work_next || asleep > 0;  // a sleeping generator has work to come
    // The first cycle anything can happen here: the next, unless the network is idle and only
    // sleeping generators are left (then their earliest wake-up; no_wake when nothing is left).
    std::uint64_t idle_until = work_next || hook ? cycle + 1 : asleep > 0 ? earliest_wake() : no_wake;
    if (ranks) {  // the batches of this cycle out and in; the loop's decisions from global sums
      const Ranks::Sums sum =
          ranks->exchange(m, {progress, delivered, any_next, idle_until}, remote_arrivals);
      for (const auto& [v, i] : remote_arrivals) arrived(v, i);
      remote_arrivals.clear();
      progress = sum.progress;
      delivered = sum.delivered;
      any_next = sum.any != 0;
      idle_until = sum.shipped ? cycle + 1 : sum.idle_until;  // a packet or credit in transit: not idle
    }
    stalled = progress == last_progress ? stalled + 1 : 0;
    last_progress = progress;
    // The end: no node has work (nothing generates, nothing is left anywhere) and the OS is done.
    if (!any_next && !busy_os) {
      m.set_cycle(m.cycle() + 1);
      break;
    }
    // Idle until a generator wakes: jump over the empty cycles (never past the end of the
    // injection window or stop_at, where the loop acts). Same results as stepping them; an
    // idle stretch is neither a stall nor a livelock.
    if (idle_until != no_wake && idle_until > cycle + 1) {
      std::uint64_t w = std::min(idle_until, stop_at);
      if (cycle < cfg.cycles) w = std::min<std::uint64_t>(w, cfg.cycles);
      if (w > cycle + 1) {
        st.cycles_skipped += w - cycle - 1;
        jump_to(w);
        if (!obs_from.empty()) observe(w);
        stalled = 0;
        continue;
      }
    }
    if (delivered != last_delivered)
      undelivered = 0, hops_at_delivery = progress - delivered, cycle_at_delivery = cycle;
    else if (stalled == 0)  // something moved, nothing was delivered
      ++undelivered;
    last_delivered = delivered;
    if (undelivered > livelock_limit && packets_left()) {
      m.set_cycle(m.cycle() + 1);
      st.deadlock = true;
      st.deadlock_report = fmt::format(
          "livelock: packets keep moving but none was delivered in the last {} cycles with moves ({} packet-hops "
          "since the last delivery, at cycle {})\n",
          undelivered, progress - delivered - hops_at_delivery, cycle_at_delivery);
      break;
    }
    if (hook && hook->holding()) stalled = 0;
    if (stalled > quick_limit && (stalled > stall_limit || !generating())) {
      if (packets_left()) {  // packets left and nothing can move them: deadlock
        m.set_cycle(m.cycle() + 1);
        st.deadlock = true;
        break;
      }
      stalled = 0;  // an idle network (low load), not a stall
    }
    if (progress_line.enabled() && (cycle & 255) == 0 &&
        std::chrono::steady_clock::now() - last_print > std::chrono::milliseconds(250)) {
      last_print = std::chrono::steady_clock::now();
      std::uint64_t hops = 0;
      for (const ThreadStats& ts : m.thread_stats()) hops += ts.hops;
      progress_line.update(cycle, fmt::format("{} packets delivered, {} packet-hops", delivered, hops));
    }
  }
  progress_line.finish();
  if (!obs_from.empty()) observe_last(m.cycle());
  frame.stop_clock(st);
  return false;
}

namespace {
void drive_cycles(Machine& m, RunStats& st) {
  CycleDriver d(m);
  if (const std::uint64_t at = m.faults_pending_at()) {  // dynamic faults: the base's routing until then
    bool stopped = false;  // (faults come with deterministic routing only: checked by run())
    m.fault_base().visit([&](const auto& t) { stopped = d.run(t, st, at); });
    if (!stopped) return;  // done (or stuck) before the faults
    m.apply_faults();
  }
  // --routing adaptive, valiant, ugal-l, ugal-g, par: the driver runs on Routed<T, R> (Machine::plan).
  visit_routed(m.topology(), m.config().routing, [&](const auto& t) { d.run(t, st); }, m.config().seed);
}

}  // namespace

/// The cycle engine's entry in the driver registry (rica_engine(cycle ...) in CMakeLists.txt).
/// link_bytes: busy_until (8) and port_rr (4) per link.
const DriverEntry& builtin_driver_cycle() {
  static const DriverEntry e{{"cycle", "deterministic virtual clock, cycles",
                              {.virtual_clock = true, .link_timing = true, .router_cycles = true, .timed_faults = true,
                               .windows = true, .over_ranks = true},
                              12},
                             drive_cycles};
  return e;
}

}  // namespace rica::detail
