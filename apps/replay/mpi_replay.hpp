#pragma once
// The closed-loop replay of a recorded MPI program (docs/replay.md): `--app replay:trace=ARCHIVE`
// and `rica replay ARCHIVE SPEC`. Each MPI rank is a fine-grain program on a PE; a rank's next call
// starts only when its previous blocking call has completed in the emulated network.
//
// Messages: a message of B bytes is max(1, ceil(B / packet_bytes)) packets, and a receive completes
// with its last packet. A standard-mode send of at most eager_bytes (and every buffered or ready
// send) is eager: its packets leave at once and a blocking send returns at once. Above the
// threshold, and for every synchronous send, it is a rendezvous: one request-to-send packet, the
// receiver answers with a clear-to-send packet once the matching receive is posted, then the data
// leave and the send completes. Every packet carries the matching operation's index at its
// destination and a time (the send's start, or the clear-to-send's), its two payload words.
// Compute gaps between calls last recorded seconds x compute_scale cycles (0: none; on the async
// engine the unit is ns). Ranks are laid on PEs by the map: identity, random (the run seed), embed
// (greedy: heavy communication partners on near PEs) or a file (line i: the PE of rank i).
//
// Threading contract (rica/app.hpp): a rank's state is touched only on its PE's task; the trace and
// the map are read-only during the run.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mpi_trace.hpp"
#include "rica/app.hpp"

namespace rica::replay {

struct ReplayConfig {
  std::string trace;                    ///< the OTF2 archive (anchor file or its directory)
  std::uint64_t eager_bytes = 4096;     ///< larger standard sends use the rendezvous protocol
  std::uint64_t packet_bytes = 16;      ///< message bytes per packet (two 64-bit payload words)
  double compute_scale = 1e9;           ///< cycles per recorded second (1 GHz); 0 drops the gaps
  std::string map = "identity";         ///< identity | random | embed | a file
  std::string collectives;              ///< "allreduce=ring,bcast=binomial,..." ("" = defaults)
};

/// The accepted names of the map parameter besides a file.
inline constexpr const char* map_names = "identity|random|embed|FILE";

class MpiReplay final : public App {
 public:
  /// Reads and matches the trace (usage_error on bad input, naming the rank and event), checks
  /// the configuration and that the ranks fit on `pes` PEs.
  MpiReplay(ReplayConfig c, node_t pes);
  MpiReplay(std::shared_ptr<const Trace> t, ReplayConfig c, node_t pes);

  void setup(Machine& m) override;
  void start(Context& ctx) override;
  bool generate(Context& ctx) override;
  void window_closed() override { window_closed_ = true; }
  std::uint64_t max_sends_per_pe() const override { return max_sends_; }
  bool verify(std::string& why) const override;
  nlohmann::json summary() const override;

  const Trace& trace() const noexcept { return *trace_; }
  /// The ranks still waiting when the run ended (a deadlock), one line each; empty when all finished.
  std::vector<std::string> waiting() const;
  bool deadlocked() const;
  std::uint64_t makespan() const;

 private:
  struct OpRt {
    std::uint32_t got = 0;    ///< recv: data packets arrived
    std::uint8_t flags = 0;   ///< posted, done, rts pending, started
    std::uint32_t cause_rank = 0;
    std::uint64_t cause_time = 0;  ///< when (on cause_rank) the event that completed it happened
    std::uint64_t start = 0;  ///< send: when it started (its packets' time word)
  };
  struct Episode {  ///< a blocking wait: [start, end), ended by cause_rank's event at cause_time
    std::uint32_t op;
    std::uint64_t start, end;
    std::uint32_t cause_rank;
    std::uint64_t cause_time;
  };
  struct Rank {
    std::uint32_t pc = 0;
    std::uint32_t blocked = ~0u;  ///< the op it waits for
    bool gap_done = false, in_gap = false, finished = false, started = false;
    std::uint64_t ready_at = 0, block_start = 0, finish = 0;
    std::uint64_t blocked_cycles = 0, compute_cycles = 0;
    std::uint64_t sent = 0, received = 0, bytes_sent = 0, packets_sent = 0, packets_received = 0;
    std::vector<OpRt> rt;
    std::vector<Episode> episodes;
    std::vector<std::uint32_t> latency;  ///< per message received: send start to last packet (cycles)
  };
  static constexpr std::uint8_t f_posted = 1, f_done = 2, f_rts = 4;

  std::uint64_t packets_of(std::uint64_t bytes) const noexcept;
  bool eager(const Op& o) const noexcept;
  std::uint64_t gap_cycles(const Op& o) const noexcept;
  void advance(Context& ctx, std::uint32_t rank);
  void block(Context& ctx, Rank& r, std::uint32_t op);
  void completed(Context& ctx, std::uint32_t rank, std::uint32_t op, std::uint32_t cause_rank, std::uint64_t cause_time);
  void start_send(Context& ctx, std::uint32_t rank, std::uint32_t op);
  void post_recv(Context& ctx, std::uint32_t rank, std::uint32_t op);
  void send_data(Context& ctx, std::uint32_t rank, std::uint32_t op);
  void on_data(Context& ctx, std::uint32_t rank, std::uint32_t op, std::uint64_t start, std::uint64_t packets);
  void on_rts(Context& ctx, std::uint32_t rank, std::uint32_t op);
  void on_cts(Context& ctx, std::uint32_t rank, std::uint32_t op, std::uint64_t time);
  void build_map(const Topology& t, node_t pes, std::uint64_t seed);
  nlohmann::json critical_path() const;

  std::shared_ptr<const Trace> trace_;
  ReplayConfig cfg_;
  std::string map_resolved_;
  std::vector<node_t> rank_pe_;
  std::vector<std::uint32_t> pe_rank_;  ///< ~0u: no rank
  std::vector<Rank> ranks_;
  handler_t h_data_ = 0, h_rts_ = 0, h_cts_ = 0;
  std::uint64_t max_sends_ = 0, total_packets_ = 0, messages_ = 0, bytes_ = 0, coll_messages_ = 0, coll_bytes_ = 0;
  bool window_closed_ = false;
  /// Async engine only: packets in flight plus ranks runnable; 0 with a rank unfinished is a
  /// deadlock (nothing can ever wake it).
  mutable std::atomic<std::int64_t> activity_{0};
  std::atomic<bool> stuck_{false};
};

/// Parses --collectives "kind=algorithm,..." (usage_error naming the kind or algorithm).
std::vector<std::pair<std::string, std::string>> parse_collectives(const std::string& text);

/// True for an MpiReplay (a run of it needs the injection window open until it ends).
bool is_mpi_replay(const App& a) noexcept;

}  // namespace rica::replay
