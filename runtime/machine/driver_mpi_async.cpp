// The async engine over MPI ranks (docs/distributed.md, "The async engine across ranks").
//
// Each rank steps only the nodes it owns (Ranks::owner), with its own oneTBB workers, exactly as
// the one-process AsyncDriver does (blocks of nodes run by workers with block affinity, pending
// masks, sleeping on full buffers: the async core of runtime/machine/async_core.hpp, with ownership
// RankNodes). The
// main thread, which only monitors in one process, is here the rank's **bridge**: the only thread
// that calls MPI (MPI_THREAD_FUNNELED), it moves packets and credits over the cut links.
//
// Cut links stay the machine's links (one buffer of `buffer_words` per link and class):
//  - a packet a node pushes towards another rank's node lands in this rank's copy of that buffer,
//    the link's **outbox**; the producer checks room by its credit against the outbox's popped
//    count, which advances only when the remote consumer frees words (LinkBuffer::credit), never
//    when the bridge takes the packet out (LinkBuffer::take_uncredited). So the words in the
//    outbox, in flight and in the remote buffer never exceed one buffer's capacity;
//  - the bridge empties the outboxes into one batch per destination rank, and returns, for every
//    buffer of its own fed across a cut link, the words its consumer popped since the last batch:
//    at most one message per destination rank per bridge round, never one per packet;
//  - the receiving bridge pushes the packets into the owner's buffers (room is guaranteed by the
//    sender's credit) and announces them as a producer does; credits it applies to its outboxes,
//    waking the producer if it sleeps on that buffer.
//
// Termination: Mattern's four counters, as counting waves. The bridges keep one MPI_Iallreduce
// in flight, summing each rank's (data messages sent, received, active, packets left, progress);
// a rank is passive when no block is scheduled and its bridge found nothing to send or
// receive in the round it joins the wave. Two consecutive waves with every rank passive and
// equal sent = received counts in both mean no rank did anything in between and nothing is in
// transit: the machine is globally quiescent (a passive rank is activated only by a message).
// Every rank sees the same sums, so all take the same decision at the same wave:
//  - no packet left anywhere: the end;
//  - packets left: as in one process, every node holding packets is woken once (a wake-up lost to
//    the unfenced race of LinkBuffer::pop_and_check is recovered); if the next quiescence shows
//    no progress over all ranks, it is a deadlock (st.deadlock): Ranks::gather then brings every
//    buffer onto rank 0, whose analyse_stuck finds the waiting cycle across ranks (exit 3).
//
// Threading: the bridge state is the main thread's; workers touch only their nodes, the outboxes'
// producer side and the announced inputs' ready masks, as in one process.
// State of another rank's node touched here: only its input buffers fed by this rank's nodes (the
// outboxes, through peer_buffer) and the credits of its producers feeding this rank's nodes.
#include "async_core.hpp"
#include "run_frame.hpp"

#ifdef RICA_HAVE_MPI
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

#include <cstring>
#include <deque>
#include <optional>

#include "rica/distributed.hpp"

namespace rica::detail {

#ifndef RICA_HAVE_MPI

// Never called without MPI (make_ranks returns no Ranks); defined so that run_prepared links.
void drive_mpi_async(Machine&, RunStats&) { std::abort(); }

#else

namespace {

/// What crosses a cut link, identified by the consumer's buffer (node, input index): the same
/// on every rank whatever its storage.
struct PacketMsg {
  node_t v;
  std::uint32_t in;
  Packet p;
};
struct CreditMsg {
  node_t v;
  std::uint32_t in, words;
  node_t producer;  ///< the node feeding (v, in): the receiver's, woken if it sleeps on the outbox
};

constexpr int kDataTag = 0x52494341;  // "RICA": a batch of packets and credits for one rank

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS)
    dist::abort(1, fmt::format("rica: rank {}: {} failed (MPI error {})", dist::rank(), what, rc));
}

}  // namespace

/// A rank's nodes (the async core's ownership filter over ranks).
struct RankNodes {
  const Ranks* rk;
  bool mine(node_t v) const noexcept { return rk->mine(v); }
};

struct MpiAsyncDriver : AsyncCore<RankNodes> {
  Ranks& rk;

  explicit MpiAsyncDriver(Machine& mm) : AsyncCore<RankNodes>(mm, RankNodes{mm.ranks()}), rk(*mm.ranks()) {
    RICA_ASSERT(mm.ranks() != nullptr, "the async engine over ranks without ranks");
  }

  // ---- the bridge (main thread only) ----
  struct Outbox {  ///< this rank's copy of another rank's buffer (v, in), fed by a node of ours
    node_t v;
    std::uint32_t in;
    std::uint16_t to;
  };
  struct Inbound {  ///< a buffer (v, in) of ours fed from another rank's node u
    node_t v, u;
    std::uint32_t in;
    std::uint16_t from;
    std::uint32_t returned;  ///< the consumer's popped words already credited back
  };
  std::vector<Outbox> outboxes;
  std::vector<Inbound> inbound;
  std::vector<std::vector<PacketMsg>> out_packets;  // [destination rank]
  std::vector<std::vector<CreditMsg>> out_credits;  // [destination rank]
  struct Pending {
    MPI_Request req;
    std::vector<char> bytes;
  };
  std::deque<Pending> sending;
  std::vector<char> rbuf;
  MPI_Comm comm = MPI_COMM_NULL;
  std::uint64_t sent = 0, received = 0;  ///< data messages (the four counters' local halves)

  void find_cut_links() {
    const std::uint32_t nb = m.buffers_per_node();
    m.topology().visit([&](const auto& t) {
      for (node_t v = 0; v < m.nodes(); ++v) {
        if (!rk.mine(v)) continue;
        for (port_t p = 0; p < m.ports(); ++p) {
          const Link l = t.out_link(v, p);
          if (l.present() && l.peer != v && !rk.mine(l.peer))
            for (class_t c = 0; c < m.classes(); ++c)
              outboxes.push_back({l.peer, static_cast<std::uint32_t>(l.in_port) * m.classes() + c, rk.owner[l.peer]});
        }
        for (port_t q = 0; q < m.ports(); ++q) {
          const node_t u = m.upstream(v, q);
          if (u == no_node || u == v || rk.mine(u)) continue;
          for (class_t c = 0; c < m.classes(); ++c) {
            const std::uint32_t in = static_cast<std::uint32_t>(q) * m.classes() + c;
            RICA_ASSERT(in < nb, "input index beyond the node's buffers");
            inbound.push_back({v, u, in, rk.owner[u], m.peer_buffer(v, in).popped_words()});
          }
        }
      }
    });
    (void)nb;
  }

  /// Outboxes and freed words into the per-rank batches. Returns true if it found any.
  bool collect_outgoing() {
    bool any = false;
    for (const Outbox& o : outboxes) {
      LinkBuffer& b = m.peer_buffer(o.v, o.in);  // the ghost buffer: no other state of o.v is touched
      while (!b.empty()) {
        out_packets[o.to].push_back({o.v, o.in, b.take_uncredited(m.main_slots())});
        ++rk.cross_hops;
        any = true;
      }
    }
    for (Inbound& i : inbound) {
      const std::uint32_t popped = m.peer_buffer(i.v, i.in).popped_words();
      if (popped == i.returned) continue;
      out_credits[i.from].push_back({i.v, i.in, popped - i.returned, i.u});
      i.returned = popped;
      any = true;
    }
    return any;
  }

  /// One message per destination rank with anything for it.
  void send_batches() {
    for (unsigned d = 0; d < rk.size; ++d) {
      auto& ps = out_packets[d];
      auto& cs = out_credits[d];
      if (ps.empty() && cs.empty()) continue;
      Pending& pd = sending.emplace_back();
      const std::uint64_t np = ps.size(), nc = cs.size();
      pd.bytes.resize(2 * sizeof(std::uint64_t) + np * sizeof(PacketMsg) + nc * sizeof(CreditMsg));
      if (pd.bytes.size() > 0x7fffffff)
        dist::abort(1, fmt::format("rica: rank {}: a batch of more than 2 GB for rank {}", rk.rank, d));
      char* p = pd.bytes.data();
      std::memcpy(p, &np, sizeof np);
      std::memcpy(p + sizeof np, &nc, sizeof nc);
      p += 2 * sizeof(std::uint64_t);
      if (np) std::memcpy(p, ps.data(), np * sizeof(PacketMsg));
      if (nc) std::memcpy(p + np * sizeof(PacketMsg), cs.data(), nc * sizeof(CreditMsg));
      check(MPI_Isend(pd.bytes.data(), static_cast<int>(pd.bytes.size()), MPI_BYTE, static_cast<int>(d), kDataTag, comm,
                      &pd.req),
            "MPI_Isend");
      ++sent;
      ps.clear();
      cs.clear();
    }
    while (!sending.empty()) {  // completed sends free their buffers (in order: good enough)
      int done = 0;
      check(MPI_Test(&sending.front().req, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (!done) break;
      sending.pop_front();
    }
  }

  /// Applies every batch that has arrived. Returns true if there was one.
  bool receive() {
    bool any = false;
    while (true) {
      int flag = 0;
      MPI_Status status;
      check(MPI_Iprobe(MPI_ANY_SOURCE, kDataTag, comm, &flag, &status), "MPI_Iprobe");
      if (!flag) break;
      int n = 0;
      check(MPI_Get_count(&status, MPI_BYTE, &n), "MPI_Get_count");
      rbuf.resize(static_cast<std::size_t>(n));
      check(MPI_Recv(rbuf.data(), n, MPI_BYTE, status.MPI_SOURCE, kDataTag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
      ++received;
      any = true;
      std::uint64_t np = 0, nc = 0;
      const char* p = rbuf.data();
      std::memcpy(&np, p, sizeof np);
      std::memcpy(&nc, p + sizeof np, sizeof nc);
      p += 2 * sizeof(std::uint64_t);
      if (2 * sizeof(std::uint64_t) + np * sizeof(PacketMsg) + nc * sizeof(CreditMsg) != static_cast<std::size_t>(n))
        dist::abort(1, fmt::format("rica: rank {}: a malformed batch from rank {}", rk.rank, status.MPI_SOURCE));
      const std::uint64_t now = m.clock().now();
      for (std::uint64_t k = 0; k < np; ++k, p += sizeof(PacketMsg)) {
        PacketMsg pm;
        std::memcpy(&pm, p, sizeof pm);
        RICA_ASSERT(rk.mine(pm.v), "a packet for another rank's node");
        // The ranks' clocks are aligned at the start by a barrier only: a packet never arrives
        // before it was generated by this rank's clock.
        pm.p.inject_ns = std::min(pm.p.inject_ns, now);
        LinkBuffer& b = m.peer_buffer(pm.v, pm.in);
        LinkBuffer::Credit& c = m.credit(m.up_credit(pm.v, pm.in));
        RICA_ASSERT(b.fits(c, pm.p.words), "a packet beyond the sender's credit");
        b.push(c, pm.p, m.main_slots());
        announce(pm.v, pm.in);
      }
      for (std::uint64_t k = 0; k < nc; ++k, p += sizeof(CreditMsg)) {
        CreditMsg cm;
        std::memcpy(&cm, p, sizeof cm);
        RICA_ASSERT(!rk.mine(cm.v) && rk.mine(cm.producer), "a credit for a buffer of this rank");
        if (m.peer_buffer(cm.v, cm.in).credit(cm.words))  // its producer (ours) sleeps on it: wake it
          signal_remote(cm.producer >> block_shift, std::uint64_t{1} << (cm.producer & block_mask));
      }
    }
    return any;
  }


  template <class T>
  void run(const T& t, RunStats& st) {
    const EngineConfig& cfg = m.config();
    RunFrame frame(m, RunFrame::Main::monitors);
    arena = &frame.arena();
    start_workers(t, frame.threads());
    check(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "MPI_Comm_dup");
    out_packets.assign(rk.size, {});
    out_credits.assign(rk.size, {});
    find_cut_links();
    m.clock().start();
    check(MPI_Barrier(comm), "MPI_Barrier");
    m.clock().rebase();  // every rank's time 0 at the barrier's end
    frame.start_clock(m.clock().origin());
    start_pes();  // this rank's PEs
    // Waves: [0] data messages sent, [1] received, [2] ranks active, [3] ranks with packets left,
    // [4] progress (hops + deliveries) of the passive ranks, [5] packets delivered (as of the
    // rank's last count, for the progress line). Summed over the ranks.
    constexpr int W = 6;
    std::uint64_t wave_in[W] = {}, wave_out[W] = {};
    MPI_Request wave = MPI_REQUEST_NULL;
    bool prev_quiet = false;
    std::uint64_t prev_sent = 0, prev_received = 0, progress_at_kick = ~std::uint64_t{0}, waves = 0;
    unsigned idle = 0;
    // Rank 0's progress line: packets delivered over all ranks, from the waves' sums.
    Progress progress_line("packets delivered", m.expected_sends(), !cfg.progress || rk.rank != 0, false);
    std::uint64_t delivered_here = 0;
    auto last_sum = std::chrono::steady_clock::now() - std::chrono::seconds(1), last_print = last_sum;
    while (true) {
      const bool no_tasks = outstanding.load(std::memory_order_acquire) == 0;
      std::optional<WaitTimer> in_mpi(std::in_place, rk.mpi_wait_s);  // the round's exchange, up to its decision
      bool busy = collect_outgoing();
      send_batches();
      busy = receive() || busy;
      bool decided = false;
      if (progress_line.enabled() && std::chrono::steady_clock::now() - last_sum > std::chrono::milliseconds(250)) {
        last_sum = std::chrono::steady_clock::now();  // this rank's deliveries so far, for rank 0's line
        delivered_here = m.delivered_so_far();
      }
      if (wave == MPI_REQUEST_NULL) {
        const bool passive = no_tasks && !busy;
        std::uint64_t progress = 0;
        if (passive)  // no task runs: the workers' counters are still (acquire above)
          for (const ThreadStats& ts : m.thread_stats()) progress += ts.hops + ts.delivered;
        wave_in[0] = sent;
        wave_in[1] = received;
        wave_in[2] = passive ? 0 : 1;
        wave_in[3] = passive && m.packets_left() ? 1 : 0;  // this rank's nodes
        wave_in[4] = progress;
        wave_in[5] = delivered_here;
        check(MPI_Iallreduce(wave_in, wave_out, W, MPI_UINT64_T, MPI_SUM, comm, &wave), "MPI_Iallreduce");
      }
      int done = 0;
      check(MPI_Test(&wave, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done) {
        ++waves;
        if (rk.abort_cycle >= 0 && waves >= static_cast<std::uint64_t>(rk.abort_cycle))
          dist::abort(4, fmt::format("rica: rank {}: aborting at wave {} (test hook RICA_TEST_ABORT_RANK)", rk.rank, waves));
        if (progress_line.enabled() && std::chrono::steady_clock::now() - last_print > std::chrono::milliseconds(250)) {
          last_print = std::chrono::steady_clock::now();
          progress_line.update(wave_out[5]);
        }
        const bool quiet = wave_out[2] == 0 && wave_out[0] == wave_out[1];
        if (quiet && prev_quiet && wave_out[0] == prev_sent && wave_out[1] == prev_received) {
          // Globally quiescent (every rank passive over two waves, nothing in transit).
          if (wave_out[3] == 0) break;                                      // the end
          if (wave_out[4] == progress_at_kick) {                            // woken once: nothing moved
            st.deadlock = true;
            break;
          }
          progress_at_kick = wave_out[4];
          kick();
          prev_quiet = false;
          decided = true;
        }
        if (!decided) {
          prev_quiet = quiet;
          prev_sent = wave_out[0];
          prev_received = wave_out[1];
        }
      }
      in_mpi.reset();
      // Give the core back to the workers: a yield while there is traffic, short sleeps when idle.
      if (busy || decided) {
        idle = 0;
        std::this_thread::yield();
      } else if (++idle < 32) {
        std::this_thread::yield();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(std::min(idle, 200u)));
      }
    }
    frame.stop_clock(st);
    progress_line.finish();
    while (!sending.empty()) {  // every batch was received (sent = received): these complete
      check(MPI_Wait(&sending.front().req, MPI_STATUS_IGNORE), "MPI_Wait");
      sending.pop_front();
    }
    // Every rank leaves the loop at the same wave: one more collective for the batch count.
    check(MPI_Allreduce(&sent, &rk.batches, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce");
    check(MPI_Comm_free(&comm), "MPI_Comm_free");
    stop_workers();
    frame.arena().terminate();
    arena = nullptr;
  }
};

void drive_mpi_async(Machine& m, RunStats& st) {
  MpiAsyncDriver d(m);
  visit_routed(m.topology(), m.config().routing, [&](const auto& t) { d.run(t, st); }, m.config().seed);
}

#endif

}  // namespace rica::detail
