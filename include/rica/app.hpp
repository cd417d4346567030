#pragma once
// RICA-style programming model: active messages. A packet names a handler; its arrival at the
// destination PE runs the handler there at once, with the packet's payload. A handler may read and
// write PE-local state and send packets. Join counters fire a continuation after k arrivals.
// docs/programming.md is the tutorial.
//
// Threading contract: a PE never runs on two threads at once, and every call below that takes a
// Context runs on the task of that Context's PE. PE-local state indexed by ctx.pe() therefore
// needs no locks. Different PEs run concurrently: never touch another PE's state.

#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <type_traits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/packet.hpp"
#include "rica/topology.hpp"

namespace rica {

namespace detail {
struct PeState;
class Machine;
}  // namespace detail

/// Small fast PRNG (xoshiro256**), 32 bytes: one per PE. Satisfies UniformRandomBitGenerator.
class Rng {
 public:
  using result_type = std::uint64_t;
  explicit Rng(std::uint64_t seed = 1) noexcept {
    for (auto& w : s_) {  // splitmix64 expansion of the seed
      seed += 0x9e3779b97f4a7c15ULL;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      w = z ^ (z >> 31);
    }
  }
  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return ~result_type{0}; }
  result_type operator()() noexcept {
    const std::uint64_t r = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return r;
  }
  /// Uniform double in [0, 1).
  double uniform() noexcept { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }
  /// Uniform integer in [0, n), n >= 1 (Lemire's multiply-shift; negligible bias for n << 2^64).
  std::uint64_t below(std::uint64_t n) noexcept {
    __extension__ using u128 = unsigned __int128;
    return static_cast<std::uint64_t>((static_cast<u128>((*this)()) * n) >> 64);
  }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

/// What a handler or an application hook sees of its PE. Valid only during the call. In a job
/// (rica/os.hpp) PE numbers are the job's own: pe() in [0, pes()), and send() takes a job-local
/// destination; outside jobs they are the machine's.
class Context {
 public:
  node_t pe() const noexcept { return pe_; }
  node_t pes() const noexcept;
  /// The machine's number of this PE (equal to pe() outside jobs).
  node_t machine_pe() const noexcept { return gpe_; }
  const Topology& topology() const noexcept;
  /// ns since the run started (async engine).
  std::uint64_t now() const noexcept;
  /// Sends a packet from this PE (it joins this PE's injection queue; never fails). The length
  /// is drawn from the configured packet-length distribution.
  void send(node_t dst, handler_t handler, std::uint64_t w0 = 0, std::uint64_t w1 = 0);
  /// The same with a given length (trace replay): `words` must lie in the configured range
  /// [packet_words - spread, packet_words + spread] (buffers are sized for it); std::logic_error
  /// otherwise. Draws from rng() as send() does, so the rest of the run is unchanged.
  void send_words(node_t dst, unsigned words, handler_t handler, std::uint64_t w0 = 0, std::uint64_t w1 = 0);
  /// Packets waiting in this PE's injection queue (open-loop generators throttle on it).
  std::size_t backlog() const noexcept;
  /// This PE's random stream, seeded from (run seed, PE): deterministic per PE.
  Rng& rng() noexcept;
  /// Look-ahead for open-loop generators: the app has already made (from rng()) the draws of this
  /// PE's next k injection opportunities and knows they send nothing, so the machine skips its
  /// generate() calls for them, and the cycle engine lets the PE, if otherwise idle, sleep through
  /// them (idle generators cost nothing). The app's random stream and results must be exactly
  /// those of k calls that draw and send nothing. Precondition: look_ahead_allowed().
  void skip_opportunities(std::uint64_t k) noexcept;
  /// False while something other than the app can add to this PE's injection queue (an OS
  /// switch policy requeues packets), which would change what the skipped opportunities do.
  bool look_ahead_allowed() const noexcept;
  /// True under the cycle engine: now() counts cycles and a generating PE has exactly one
  /// injection opportunity per cycle, so skipping k opportunities passes k cycles.
  bool cycle_clock() const noexcept;

 private:
  friend class detail::Machine;
  Context(detail::Machine& m, detail::PeState& s, node_t pe, node_t gpe, std::uint8_t job)
      : engine_(m), state_(s), pe_(pe), gpe_(gpe), job_(job) {}
  detail::Machine& engine_;
  detail::PeState& state_;
  node_t pe_, gpe_;
  std::uint8_t job_;
};

using Handler = std::function<void(Context&, const Packet&)>;

/// Counts arrivals; arrive() is true on the k-th, then the counter re-arms.
struct JoinCounter {
  std::uint32_t need = 1, have = 0;
  bool arrive() noexcept {
    if (++have < need) return false;
    have = 0;
    return true;
  }
};

class Machine;

/// An application (a traffic pattern, a kernel). One object serves all PEs; per-PE state lives in
/// vectors indexed by PE. Virtual calls happen per PE activation or per delivery, never per hop.
class App {
 public:
  virtual ~App() = default;
  /// Single-threaded, before the run: register handlers, size per-PE state.
  virtual void setup(Machine& m) = 0;
  /// Once per PE on its task, before it injects anything.
  virtual void start(Context&) {}
  /// An injection opportunity, each time the PE runs. Return true while this PE may still
  /// generate packets here (the PE is then rescheduled); false once it never will again.
  virtual bool generate(Context&) { return false; }
  /// The cycle engine's injection window closed: generate() will not be called again (called
  /// once, single-threaded). An open-loop generator then no longer expects to reach its quota.
  virtual void window_closed() {}
  /// Upper bound of packets any one PE sends in the run (sizes the exactly-once check), 0 if
  /// unknown (then a checksum check is used instead).
  virtual std::uint64_t max_sends_per_pe() const { return 0; }
  /// After the run, single-threaded: is the application's own result right? (e.g. sorted)
  virtual bool verify(std::string& why) const {
    (void)why;
    return true;
  }
  /// App-specific figures for the run's JSON.
  virtual nlohmann::json summary() const { return nlohmann::json::object(); }

  // ---- Under mpirun (docs/distributed.md): each rank runs its own PEs in its own App object ----
  /// True when the application can be spread over ranks: it overrides pe_result() and
  /// merge_pe_result() so that rank 0's object can verify() and summarise the whole run. Others
  /// run in one process only (exit 2 under more than one rank).
  virtual bool spans_ranks() const { return false; }
  /// After the run, on the rank that ran (job-local) PE `pe`: that PE's share of the state
  /// verify() and summary() read, as bytes.
  virtual std::string pe_result(node_t pe) const {
    (void)pe;
    return {};
  }
  /// On rank 0, after the run: another rank's pe_result(pe) taken in (single-threaded).
  virtual void merge_pe_result(node_t pe, const std::string& bytes) {
    (void)pe;
    (void)bytes;
  }
};

namespace detail {
/// pe_result() helpers: trivially copyable values and vectors of them, appended and read back.
template <class T>
void put_bytes(std::string& out, const T& x) {
  static_assert(std::is_trivially_copyable_v<T>);
  out.append(reinterpret_cast<const char*>(&x), sizeof(T));
}
template <class T>
void put_bytes(std::string& out, const std::vector<T>& v) {
  put_bytes(out, static_cast<std::uint64_t>(v.size()));
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}
/// Reads back what put_bytes wrote, in the same order; throws std::logic_error past the end.
struct ByteReader {
  const std::string& s;
  std::size_t at = 0;
  template <class T>
  void get(T& x) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (at + sizeof(T) > s.size()) throw std::logic_error("merge_pe_result: truncated");
    std::memcpy(&x, s.data() + at, sizeof(T));
    at += sizeof(T);
  }
  template <class T>
  void get(std::vector<T>& v) {
    std::uint64_t n = 0;
    get(n);
    if (at + n * sizeof(T) > s.size()) throw std::logic_error("merge_pe_result: truncated");
    v.resize(n);
    std::memcpy(v.data(), s.data() + at, n * sizeof(T));
    at += n * sizeof(T);
  }
};
}  // namespace detail

/// The machine's packet and link timing, as an application that models its own cost sees it
/// (the collectives' alpha-beta prediction, apps/collectives). Set by the run from its
/// EngineConfig before App::setup (rica::machine_params in rica/engine.hpp); a Machine built by
/// hand keeps these defaults.
struct MachineParams {
  bool cycle_clock = false;        ///< the cycle engine: Context::now() counts cycles
  unsigned packet_words = 3;       ///< mean packet length in (64-bit) words
  unsigned packet_spread = 1;      ///< lengths uniform in mean +- spread
  unsigned link_cycles = 0;        ///< cycles a link is busy per packet; 0: the sending node's in- + out-degree
  bool link_cycles_words = false;  ///< instead one cycle per word
  bool store_and_forward = false;  ///< timing saf (else virtual cut-through)
  unsigned router_cycles = 0;      ///< router pipeline per hop
};

/// Setup-time view of the machine an App gets in setup().
class Machine {
 public:
  Machine(const Topology& t, std::uint64_t seed) : topo_(t), seed_(seed), pes_(t.pes()) {}
  /// A job's machine: `pes` PEs, numbered 0..pes-1 (rica/os.hpp).
  Machine(const Topology& t, std::uint64_t seed, node_t pes) : topo_(t), seed_(seed), pes_(pes) {}
  handler_t add_handler(Handler h) {
    handlers_.push_back(std::move(h));
    return static_cast<handler_t>(handlers_.size() - 1);
  }
  const Topology& topology() const noexcept { return topo_; }
  node_t pes() const { return pes_; }
  std::uint64_t seed() const noexcept { return seed_; }
  const std::vector<Handler>& handlers() const noexcept { return handlers_; }
  const MachineParams& params() const noexcept { return params_; }
  void set_params(const MachineParams& p) noexcept { params_ = p; }

 private:
  const Topology& topo_;
  std::uint64_t seed_;
  node_t pes_;
  MachineParams params_;
  std::vector<Handler> handlers_;
};

}  // namespace rica
