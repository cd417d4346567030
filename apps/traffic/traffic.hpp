#pragma once
// Synthetic traffic: the destination patterns of the papers and of the interconnection-network
// literature, the open-loop generator App that drives them, the closed-loop mesh emulation App,
// and the traffic registry (a documented value-type selector, like TopologyRegistry).
//
//   traffic::Pattern        pure destination functions: (src PE, rng) -> dst PE. Small value types,
//                           validated against the PE space (PE count, PE shape) at construction;
//                           an impossible pattern throws usage_error naming the requirement.
//   OpenLoopTraffic         every PE injects K packets, one per injection opportunity with
//                           probability R (Bernoulli), while its injection backlog is short.
//   MeshEmulation           closed loop: a sqrt(N) x sqrt(N) mesh laid on the PEs by address
//                           (wrapping, or not: mesh:wrap=0); each iteration sends a packet to
//                           each logical neighbour and waits for one from each.
//   PacedMeshEmulation      the same with a load knob: mesh's own schedule under a sweep's rates
//                           (PacedSchedule).
//   TrafficRegistry         spec "name[:args]" -> App; docs for `rica list`.
//
// Self-mapped PEs: the deterministic patterns (transpose, bitcomp, bitrev, shuffle, tornado,
// neighbor, randperm) may map a PE to itself (e.g. transpose's diagonal, bitrev's palindromes).
// Such a PE sends nothing (the generator skips it; summary() reports "silent_pes"). The random
// patterns (uniform, quarter, hotspot, localized) never return the source.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/app.hpp"
#include "rica/defaults.hpp"
#include "rica/registry.hpp"
#include "rica/topology.hpp"

namespace rica {
namespace traffic {

/// What a pattern is built for: the PE count, the PE shape (first coordinate fastest; the
/// product of the shape is `pes`) and the topology's spec (named in error messages).
struct PeSpace {
  node_t pes = 0;
  Shape shape;
  std::string spec;  ///< topology spec for messages; "" = "the network"

  static PeSpace of(const Topology& t);
  /// A bare shape (tests, tools). Throws usage_error on an empty shape or a zero range.
  static PeSpace of_shape(Shape s, std::string spec = "");
};

// ---- Random patterns: never return the source --------------------------------------------------

/// Uniform over the other N-1 PEs. Needs N >= 2.
struct Uniform {
  static constexpr const char* name = "uniform";
  static constexpr bool random = true;
  explicit Uniform(const PeSpace& s);
  node_t operator()(node_t src, Rng& rng) const;
  node_t n;
};

/// 1/4 partition: partition = PE / (N/4); uniform over the other PEs of the source's partition.
/// Needs N divisible by 4 and N >= 8.
struct Quarter {
  static constexpr const char* name = "quarter";
  static constexpr bool random = true;
  explicit Quarter(const PeSpace& s);
  node_t operator()(node_t src, Rng& rng) const;
  node_t part;  ///< PEs per partition
};

/// Partition-local uniform: the PEs are cut into `parts` partitions by the topology's own rule
/// (rica::partition, as `rica partition SPEC --parts K` cuts them; closed or not) and each packet
/// goes to one of the other PEs of its source's partition, uniformly. Generalises `quarter` (four
/// address blocks) to the partitions an OS would allocate: the workload of K jobs each running
/// uniform traffic inside its partition at once. Needs a topology (PeSpace::spec parses) that the
/// rule cuts into K partitions covering every PE, each of at least 2 PEs.
struct Partitioned {
  static constexpr const char* name = "partition";
  static constexpr bool random = true;
  Partitioned(const PeSpace& s, std::uint32_t parts);
  node_t operator()(node_t src, Rng& rng) const;
  /// Per PE: where its partition's PEs start in `members`, how many there are, and its own place
  /// among them (members of a partition ascending).
  struct Slot {
    std::uint32_t begin = 0, count = 0, local = 0;
  };
  std::shared_ptr<const std::vector<node_t>> members;  ///< PEs grouped by partition
  std::shared_ptr<const std::vector<Slot>> slots;      ///< indexed by PE
  std::uint32_t parts = 0;
  std::string rule;                                    ///< the partition rule used ("dce-rows", ...)
};

/// Hot spot: with probability `fraction` the hot PE, else uniform over the other PEs (which may
/// also pick the hot PE). The hot PE itself always sends uniform. Needs N >= 2, hot < N,
/// fraction in [0, 1].
struct Hotspot {
  static constexpr const char* name = "hotspot";
  static constexpr bool random = true;
  Hotspot(const PeSpace& s, double fraction = defaults::traffic::hotspot_fraction, node_t hot = 0);
  node_t operator()(node_t src, Rng& rng) const;
  node_t n, hot;
  double fraction;
};

/// Localized (MDCE paper): per coordinate of range k, an exponential draw of mean (k-1)/2 (half
/// the coordinate's maximum value), rounded to the nearest integer, with a random sign, added to
/// the source coordinate modulo k. The whole destination is redrawn while it equals the source.
/// Networks without coordinates have shape {N}. Needs N >= 2.
struct Localized {
  static constexpr const char* name = "localized";
  static constexpr bool random = true;
  explicit Localized(const PeSpace& s);
  node_t operator()(node_t src, Rng& rng) const;
  Shape shape;
  std::vector<double> mean;  ///< per coordinate, (k-1)/2
};

// ---- Deterministic patterns: may map a PE to itself (that PE then sends nothing) -----------------

/// Transpose. Shape of 2 coordinates of equal range: (x, y) -> (y, x). Otherwise N = 2^(2k): the
/// high and low k address bits swap. usage_error if neither.
struct Transpose {
  static constexpr const char* name = "transpose";
  static constexpr bool random = false;
  explicit Transpose(const PeSpace& s);
  node_t operator()(node_t src, Rng&) const { return apply(src); }
  node_t apply(node_t src) const;
  node_t side = 0;    ///< 2D square: the side; 0 = bit mode
  unsigned half = 0;  ///< bit mode: k
};

/// Bit complement: every address bit flipped. Needs N a power of two (N >= 2).
struct BitComplement {
  static constexpr const char* name = "bitcomp";
  static constexpr bool random = false;
  explicit BitComplement(const PeSpace& s);
  node_t operator()(node_t src, Rng&) const { return apply(src); }
  node_t apply(node_t src) const { return ~src & mask; }
  node_t mask;
};

/// Bit reversal of the log2(N) address bits. Needs N a power of two (N >= 2).
struct BitReverse {
  static constexpr const char* name = "bitrev";
  static constexpr bool random = false;
  explicit BitReverse(const PeSpace& s);
  node_t operator()(node_t src, Rng&) const { return apply(src); }
  node_t apply(node_t src) const;
  unsigned bits;
};

/// Perfect shuffle: the log2(N)-bit address rotated left by one bit. Needs N a power of two (N >= 2).
struct Shuffle {
  static constexpr const char* name = "shuffle";
  static constexpr bool random = false;
  explicit Shuffle(const PeSpace& s);
  node_t operator()(node_t src, Rng&) const { return apply(src); }
  node_t apply(node_t src) const;
  unsigned bits;
};

/// Tornado: per coordinate x -> (x + ceil(k/2) - 1) mod k. usage_error when that moves no PE
/// (every range <= 2).
struct Tornado {
  static constexpr const char* name = "tornado";
  static constexpr bool random = false;
  explicit Tornado(const PeSpace& s);
  node_t operator()(node_t src, Rng&) const { return apply(src); }
  node_t apply(node_t src) const;
  Shape shape;
  Shape shift;  ///< per coordinate, ceil(k/2) - 1
};

/// Nearest neighbour: first coordinate + 1 mod its range. usage_error when that range is 1.
struct Neighbor {
  static constexpr const char* name = "neighbor";
  static constexpr bool random = false;
  explicit Neighbor(const PeSpace& s);
  node_t operator()(node_t src, Rng&) const { return apply(src); }
  node_t apply(node_t src) const;
  node_t k0, n;
};

/// A random permutation of the PEs, drawn once from `seed` (the run seed), fixed for the run. Not
/// a derangement: fixed points send nothing.
struct RandPerm {
  static constexpr const char* name = "randperm";
  static constexpr bool random = false;
  RandPerm(const PeSpace& s, std::uint64_t seed);
  node_t operator()(node_t src, Rng&) const { return apply(src); }
  node_t apply(node_t src) const { return (*perm)[src]; }
  std::shared_ptr<const std::vector<node_t>> perm;
};

/// A user's pattern (register_traffic): a type-erased destination function, one indirect call per
/// packet generated (never per hop). Its result is checked: a destination outside [0, n), or the
/// source itself for a pattern declared random, throws usage_error naming the pattern.
struct Custom {
  static constexpr const char* name = "custom";  ///< pattern_name() returns `label` instead
  using Function = std::function<node_t(node_t src, Rng& rng)>;
  std::string label;   ///< the registered name
  bool random = true;  ///< true: never returns src (like the built-in random patterns)
  node_t n = 0;        ///< PEs of the space it was built for
  Function fn;
  node_t operator()(node_t src, Rng& rng) const;
};

/// Any open-loop destination pattern.
using Pattern = std::variant<Uniform, Quarter, Partitioned, Hotspot, Localized, Transpose, BitComplement, BitReverse, Shuffle,
                             Tornado, Neighbor, RandPerm, Custom>;

/// Destination of one packet from `src` (visits once per call; generators visit once per run).
node_t destination(const Pattern& p, node_t src, Rng& rng);
/// The pattern's registry name ("uniform", ...).
const char* pattern_name(const Pattern& p);
/// True for the random patterns (never self); false for the deterministic ones (may be self).
bool is_random(const Pattern& p);

/// The logical mesh of the mesh emulation: side x side, laid on the PEs by address (x = PE mod
/// side, y = PE / side). Needs N = side^2 with side >= 2. Wrapping (the default, docs/runtime.md):
/// every PE has 4 neighbours (mod side); with side 2, x+1 and x-1 are the same PE, which then
/// simply gets two of the four packets (every PE still waits for 4). Non-wrapping: a border PE
/// has only the neighbours inside the mesh (corners 2, edges 3, interior 4) and waits for that
/// many; a round carries 4 * side * (side - 1) packets instead of 4 * side^2.
struct MeshLayout {
  static constexpr const char* name = "mesh";
  explicit MeshLayout(const PeSpace& s, bool wrap = true);
  /// A PE's neighbours, in the order x+1, x-1, y+1, y-1 (those that exist); a range of `count`.
  struct Neighbours {
    std::array<node_t, 4> pe{};
    unsigned count = 0;
    const node_t* begin() const noexcept { return pe.data(); }
    const node_t* end() const noexcept { return pe.data() + count; }
    std::size_t size() const noexcept { return count; }
  };
  Neighbours neighbours(node_t pe) const;
  /// Packets a PE sends (and, the relation being symmetric, receives) per round: 4 when wrapping.
  unsigned degree(node_t pe) const { return neighbours(pe).count; }
  /// Packets of one round over all PEs: 4 side^2 wrapping, 4 side (side - 1) not.
  std::uint64_t packets_per_round() const noexcept {
    return wrap ? 4ULL * side * side : 4ULL * side * (side - 1);
  }
  node_t side;
  bool wrap = true;
};

}  // namespace traffic

/// Run options shared by every traffic pattern (the CLI's --rate, --packets, --seed).
struct TrafficOptions {
  double rate = defaults::traffic::rate;              ///< Bernoulli injection probability, (0, 1]
  std::uint64_t packets = defaults::traffic::packets;  ///< packets per PE, >= 1
  std::uint64_t seed = defaults::engine::seed;         ///< run seed (randperm's permutation)
  /// A source generates only while fewer of its packets wait in its source queue (0 = unbounded).
  unsigned source_queue = defaults::traffic::backlog;
  /// Bursty on/off sources (Markov-modulated): mean lengths of the on and off periods in
  /// injection opportunities; a source injects (with probability `rate`) only while on. 0, 0 =
  /// always on. Each PE starts on with probability on / (on + off).
  double burst_on = 0, burst_off = 0;
  /// The configured packet lengths [min_words, max_words] (trace replay checks its lengths).
  unsigned min_words = defaults::engine::packet_words - defaults::engine::packet_spread;
  unsigned max_words = defaults::engine::packet_words + defaults::engine::packet_spread;
};

/// Open-loop generator. Every PE not mapped to itself sends `packets` packets; at each injection
/// opportunity it sends one with probability `rate` if its source queue holds fewer than
/// `source_queue` packets (0: no limit) and, with bursts, if its on/off source is on. Destinations come from the pattern (random ones from ctx.rng()).
/// Deliveries are counted per destination PE by a sink handler.
class OpenLoopTraffic : public App {
 public:
  /// `spec` is the canonical pattern spec reported by summary() ("hotspot:fraction=0.05,hot=0").
  OpenLoopTraffic(traffic::Pattern pattern, std::string spec, const TrafficOptions& opt);

  void setup(Machine& m) override;
  bool generate(Context& ctx) override;
  std::uint64_t max_sends_per_pe() const override { return packets_; }
  /// The cycle engine's window ended: PEs may stop short of their quota.
  void window_closed() override { window_closed_ = true; }
  bool verify(std::string& why) const override;
  nlohmann::json summary() const override;
  bool spans_ranks() const override { return true; }
  std::string pe_result(node_t pe) const override;
  void merge_pe_result(node_t pe, const std::string& bytes) override;

  const traffic::Pattern& pattern() const noexcept { return pattern_; }
  handler_t handler() const noexcept { return handler_; }
  /// Per-PE counters after a run (indexed by PE).
  const std::vector<std::uint64_t>& sent() const noexcept { return sent_; }
  const std::vector<std::uint64_t>& received() const noexcept { return received_; }

 private:
  traffic::Pattern pattern_;
  bool window_closed_ = false;
  std::string spec_;
  double rate_;
  std::uint64_t packets_;
  unsigned source_queue_;
  double p_on_off_ = 0, p_off_on_ = 0;   ///< bursts: per-opportunity switch probabilities (0: no bursts)
  double start_on_ = 1;                  ///< bursts: probability a source starts on
  std::vector<std::uint8_t> on_;         ///< bursts: 1 while the PE's source is on (PE-local)
  std::vector<std::uint8_t> drawn_;      ///< 1: the next opportunity's draw was made and succeeded (PE-local)
  std::vector<std::uint8_t> on_drawn_;   ///< bursts, 1: the next opportunity's off -> on draw was made and succeeded (PE-local)
  void look_ahead(Context& ctx, node_t pe);
  void look_ahead_off(Context& ctx, node_t pe);
  handler_t handler_ = 0;
  std::vector<std::uint64_t> quota_;     ///< packets this PE sends: packets_, or 0 if self-mapped
  std::vector<std::uint64_t> fail_from_; ///< per PE: the cycle it fails at (faults), ~0 if it never does
  std::vector<std::uint64_t> sent_;      ///< written by the source PE only
  std::vector<std::uint64_t> received_;  ///< written by the destination PE only
};

/// Closed-loop mesh emulation (RWC-1 and MDCE papers). I = max(1, packets / 4) iterations: a PE
/// sends one packet to each of its d logical-mesh neighbours (d = 4 wrapping; 2, 3 or 4 on a
/// non-wrapping mesh; payload word 0 = iteration), and sends the next d once the d packets of the
/// current iteration have arrived (its join counters wait for exactly d). Packets of iteration
/// i+1 may arrive before iteration i completes; a PE can never be more than one iteration ahead
/// of a neighbour, so counters per iteration parity suffice. Done after d*I arrivals.
class MeshEmulation : public App {
 public:
  MeshEmulation(const traffic::MeshLayout& layout, const TrafficOptions& opt);

  void setup(Machine& m) override;
  void start(Context& ctx) override;
  std::uint64_t max_sends_per_pe() const override { return 4 * iterations_; }
  bool verify(std::string& why) const override;
  nlohmann::json summary() const override;

  std::uint32_t iterations() const noexcept { return iterations_; }
  const traffic::MeshLayout& layout() const noexcept { return layout_; }
  /// Iterations completed per PE after a run.
  std::vector<std::uint32_t> completed() const;
  /// Arrivals each PE's join counters wait for per iteration (after setup()).
  std::vector<std::uint32_t> join_counts() const;
  /// Packets each PE received / sent (after a run).
  std::vector<std::uint64_t> received() const;
  std::vector<std::uint64_t> sent() const;

 private:
  struct PeState {
    JoinCounter join[2] = {{4, 0}, {4, 0}};  ///< arrivals of the iterations of each parity (need = degree)
    bool ready[2] = {false, false};          ///< that parity's current iteration has all of them
    bool started = false;
    std::uint32_t completed = 0;             ///< iterations completed
    std::uint64_t sent = 0, received = 0;
    std::uint64_t stray = 0;                 ///< arrivals outside the window (a bug if > 0)
  };
  void on_packet(Context& ctx, const Packet& p);
  void send_round(Context& ctx, PeState& s, std::uint32_t iteration);
  void advance(Context& ctx, PeState& s);

  traffic::MeshLayout layout_;
  std::uint32_t iterations_;
  handler_t handler_ = 0;
  std::vector<PeState> pe_;
};

/// Mesh emulation as a latency-throughput curve (the papers' pattern 4). As MeshEmulation,
/// each PE sends one packet to each of its d neighbours on the sqrt(N) x sqrt(N) logical mesh (d = 4
/// wrapped; 2, 3 or 4 on a non-wrapping one, mesh:wrap=0) and starts its next round only once the d
/// packets of its current round have arrived; here
/// a PE whose rounds are all complete starts the next one at an injection opportunity (one per
/// cycle) with probability `rate`: rate 1 is the closed loop (the next round one cycle after the
/// last arrival), lower rates add a geometric think time of mean 1/rate cycles. Rounds start only
/// while the cycle engine's window is open; every round started is delivered.
/// Invariant: round i is complete when the neighbours' d packets of round i are in; a neighbour
/// sends round i+1 only after receiving our round i, which we send only after completing round
/// i-1, so completed <= started + 1 and arrivals belong to round `completed` or `completed + 1`.
class PacedMeshEmulation : public App {
 public:
  /// `max_rounds`: rounds per PE at most (the window in cycles bounds it).
  PacedMeshEmulation(const traffic::MeshLayout& layout, double rate, std::uint64_t max_rounds);
  /// The "mesh" entry's paced schedule (PacedSchedule::make): the layout its `wrap` parameter says.
  static std::unique_ptr<App> make(const SpecArgs& args, const traffic::PeSpace& space, double rate,
                                   std::uint64_t max_rounds);

  void setup(Machine& m) override;
  bool generate(Context& ctx) override;
  std::uint64_t max_sends_per_pe() const override { return 4 * max_rounds_; }
  bool verify(std::string& why) const override;
  nlohmann::json summary() const override;

  /// Rounds each PE started / completed (after a run).
  std::vector<std::uint32_t> started() const;
  std::vector<std::uint32_t> completed() const;

 private:
  struct PeState {
    std::uint32_t started = 0, completed = 0;
    std::uint32_t arrived[2] = {0, 0};  ///< arrivals of rounds `completed` and `completed + 1`, by parity
    std::uint64_t received = 0, stray = 0;
  };
  void on_packet(Context& ctx, const Packet& p);

  traffic::MeshLayout layout_;
  double rate_;
  std::uint32_t max_rounds_;
  handler_t handler_ = 0;
  std::vector<PeState> pe_;
};

/// Traffic from a source/destination rate matrix (`--traffic matrix:FILE`, docs/traffic.md). A
/// dense file has one row per PE of N rates (whitespace or commas); a sparse one starts with the
/// line `src,dst,rate`. Rate (s, d) is packets per cycle from s to d; a row sums to at most 1 and
/// the diagonal is 0. Each injection opportunity PE s sends with probability rate x sum of its row
/// (`rate` = the --rate scale, default 1), to d with probability proportional to (s, d); at most
/// `packets` per PE, throttled by `source_queue` like OpenLoopTraffic.
class MatrixTraffic : public App {
 public:
  /// Reads and checks the file for `pes` PEs (usage_error naming the file, line and what is wrong).
  static MatrixTraffic load(const std::string& path, node_t pes, const TrafficOptions& opt);
  void setup(Machine& m) override;
  bool generate(Context& ctx) override;
  std::uint64_t max_sends_per_pe() const override { return packets_; }
  bool verify(std::string& why) const override;
  nlohmann::json summary() const override;
  /// Rate of (src, dst) as loaded (tests).
  double rate(node_t src, node_t dst) const;

 private:
  struct Row {
    std::vector<node_t> dst;   ///< destinations with a positive rate, ascending
    std::vector<double> cum;   ///< cumulative rates, cum.back() == rate
    double rate = 0;           ///< the row's sum
  };
  MatrixTraffic(std::string path, const TrafficOptions& opt);
  std::string path_;
  double scale_;
  std::uint64_t packets_;
  unsigned source_queue_;
  handler_t handler_ = 0;
  std::vector<Row> rows_;
  std::vector<std::uint64_t> sent_, received_;  ///< written by the owning PE only
};

/// Exact replay of a packet trace (`--traffic trace:FILE`, docs/traffic.md): CSV whose header
/// names the columns time,src,dst[,words] in any order (rica run --trace output is accepted:
/// `inject` is the time). Each packet is sent at its time (cycle engine: that cycle; async: that
/// many ns after the start) from src to dst with its words (or a drawn length without a words
/// column); source queues do not throttle a replay. verify() checks every packet was sent and
/// each PE received exactly what the trace sends it.
class TraceReplay : public App {
 public:
  static TraceReplay load(const std::string& path, node_t pes, const TrafficOptions& opt);
  void setup(Machine& m) override;
  bool generate(Context& ctx) override;
  std::uint64_t max_sends_per_pe() const override;
  bool verify(std::string& why) const override;
  nlohmann::json summary() const override;
  /// The latest time in the trace.
  std::uint64_t last_time() const noexcept { return end_; }
  std::uint64_t packets() const noexcept { return total_; }

 private:
  struct Entry {
    std::uint64_t time;
    node_t dst;
    unsigned words;  ///< 0: drawn from the configured lengths
  };
  explicit TraceReplay(std::string path) : path_(std::move(path)) {}
  std::string path_;
  std::vector<std::vector<Entry>> per_pe_;  ///< per source, by time (file order at equal times)
  std::vector<std::size_t> next_;           ///< per source: the next entry to send (PE-local)
  std::vector<std::uint64_t> received_;     ///< per destination (PE-local)
  std::uint64_t end_ = 0, total_ = 0;
  handler_t handler_ = 0;
};

/// The last injection time of a trace replay (the run's window then defaults to it + 1), or
/// nothing for any other App.
std::optional<std::uint64_t> traffic_end(const App& app);

/// A pattern's own schedule: a sweep (rica sweep, rica experiment) drives it by `rate`, the
/// probability per cycle that a PE whose last round is complete starts its next one, instead of
/// an open-loop injection probability. A round is at most `round_packets` packets a PE (the rate
/// grid divides the channel-load bound by it; a point's offered load is round_packets x rate).
/// Its rounds wait on other PEs: it needs every PE (failed PEs refused).
struct PacedSchedule {
  unsigned round_packets = 0;
  /// The paced App on a PE space: (the spec's arguments, the space, rate in (0, 1], rounds per PE
  /// at most). usage_error for what the space cannot carry.
  std::function<std::unique_ptr<App>(const SpecArgs&, const traffic::PeSpace&, double rate, std::uint64_t max_rounds)>
      make;
};

/// One traffic pattern of the registry, with its documentation.
struct TrafficEntry {
  std::string name;
  std::string summary;
  std::string example;
  std::string requirement;          ///< what the PE space must satisfy ("" = any N >= 2)
  std::vector<ParamDoc> params;
  std::string positional;            ///< parameter a bare value sets ("" = none)
  bool closed_loop = false;          ///< mesh: no destination function, its own App (parameter wrap)
  /// Builds the destination function (empty for closed-loop entries).
  std::function<traffic::Pattern(const SpecArgs&, const traffic::PeSpace&, std::uint64_t seed)> pattern;
  /// The pattern's own schedule under a sweep's rates (mesh: PacedMeshEmulation); none: the sweep
  /// runs make()'s App at each rate.
  std::optional<PacedSchedule> paced = std::nullopt;
  bool user = false;                 ///< registered by register_traffic (parameters kept as text)
};

/// A user's destination function for a PE space: (args, space, run seed) -> (src, rng) -> dst.
using DestinationFactory =
    std::function<traffic::Custom::Function(const SpecArgs&, const traffic::PeSpace&, std::uint64_t seed)>;

/// Adds an open-loop traffic pattern to the registry; it is then listed by `rica list` and
/// accepted by name wherever traffic is (run --traffic, sweep, os --job, Python). `random`: the
/// function never returns its source (a deterministic one may: such PEs send nothing). Call
/// before any run, from one thread. usage_error for a bad or taken name (docs/extending.md).
void register_traffic(std::string name, DestinationFactory make, bool random, std::string summary,
                      std::vector<ParamDoc> params = {}, std::string requirement = "", std::string example = "");

/// Static registration: a namespace-scope `static rica::TrafficRegistration reg{...};`.
struct TrafficRegistration {
  TrafficRegistration(std::string name, DestinationFactory make, bool random, std::string summary,
                      std::vector<ParamDoc> params = {}, std::string requirement = "", std::string example = "") {
    register_traffic(std::move(name), std::move(make), random, std::move(summary), std::move(params),
                     std::move(requirement), std::move(example));
  }
};

class TrafficRegistry {
 public:
  /// Every traffic pattern, in documentation order.
  static const std::vector<TrafficEntry>& available();
  /// Throws usage_error "unknown traffic pattern 'x'; valid: uniform, quarter, ..." when unknown.
  static const TrafficEntry& by_name(std::string_view name);
  /// The App for a spec ("hotspot", "hotspot:fraction=0.1,hot=5", "hotspot:0.1") on a topology.
  /// Throws usage_error on a malformed spec, bad options or an impossible pattern.
  static std::unique_ptr<App> make(const std::string& spec, const Topology& topo,
                                   const TrafficOptions& opt = {});
  /// The same on a PE space of its own (a job's PEs, numbered 0..k-1: PeSpace::of_shape({k})).
  static std::unique_ptr<App> make(const std::string& spec, const traffic::PeSpace& space,
                                   const TrafficOptions& opt = {});
  /// The destination function of an open-loop spec (usage_error for "mesh": closed loop).
  static traffic::Pattern pattern(const std::string& spec, const traffic::PeSpace& space,
                                  std::uint64_t seed = defaults::engine::seed);
  static traffic::Pattern pattern(const std::string& spec, const Topology& topo,
                                  std::uint64_t seed = defaults::engine::seed);
  /// Canonical text of a spec, every parameter spelled out ("hotspot:fraction=0.05,hot=0").
  static std::string canonical(const std::string& spec);
  /// The logical mesh of a mesh-emulation spec ("mesh", "mesh:wrap=0") on a PE space; nothing for
  /// any other spec. usage_error on a malformed spec or a non-square PE count.
  static std::optional<traffic::MeshLayout> mesh_layout(const std::string& spec, const traffic::PeSpace& space);
  /// The own schedule (TrafficEntry::paced) of a spec's pattern; nullptr for one without (and
  /// for file traffic). usage_error on a malformed spec.
  static const PacedSchedule* paced(const std::string& spec);
  /// The paced App of a spec whose pattern has its own schedule (PacedSchedule::make), nullptr for
  /// any other spec.
  static std::unique_ptr<App> make_paced(const std::string& spec, const traffic::PeSpace& space, double rate,
                                         std::uint64_t max_rounds);
  /// The generated reference text (`rica list`).
  static std::string help_text();
};

}  // namespace rica
