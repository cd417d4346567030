#pragma once
// The OS-policy workbench (docs/os.md "Job streams"): a stream of jobs arriving over time,
// allocated to partitions by an allocator, scheduled by a scheduler (space sharing: FCFS, EASY
// backfilling; time sharing: gang scheduling over an Ousterhout matrix whose slot boundaries
// switch with a switch policy of rica/os_policy.hpp), every job running real traffic on the
// emulated network, packet by packet, on the cycle engine.
//
// Streams: the Parallel Workloads Archive's Standard Workload Format (parse_swf) and synthetic
// Poisson streams (poisson_stream). A job's work is its trace run time scaled by
// StreamConfig::cycles_per_second: a traffic job injects at `rate` for run_time x
// cycles_per_second cycles (packets per PE = that times the rate, at least 1).
//
// Allocators and schedulers register like switch policies: a new one is one file with a
// namespace-scope AllocatorRegistration / SchedulerRegistration (docs/extending.md), no edit of
// rica. Registration runs before any stream, single-threaded; the registries are read-only after.
//
// Every figure is in cycles, deterministic, identical for any thread count.

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/app.hpp"
#include "rica/engine.hpp"
#include "rica/os.hpp"
#include "rica/topology.hpp"

namespace rica {

namespace defaults::os_stream {
inline constexpr double cycles_per_second = 100;  ///< emulated cycles per second of trace time
inline constexpr double rate = 0.05;              ///< a traffic job's injection rate
inline constexpr unsigned rows = 4;               ///< gang: time slots (rows of the matrix) at most
inline constexpr double bounded_slowdown_seconds = 10;  ///< tau of the bounded slowdown, trace seconds
inline constexpr std::size_t max_jobs = 1000000;  ///< jobs per stream (each keeps its application and record)
/// Jobs resident at once (placed, not finished): a packet names its job in 8 bits (0xff: none),
/// so a stream runs its jobs under at most this many ids, recycled as jobs finish.
inline constexpr unsigned max_resident = 255;
inline constexpr std::uint64_t max_swf_bytes = std::uint64_t{64} << 20;  ///< largest SWF file read
/// SWF times (submit, run and requested time) at most this many seconds (31,700 years; the
/// archive's longest traces span a few years): a larger one is refused, never run for ever.
inline constexpr double max_seconds = 1e12;
/// The machine runs a stream's busy periods within 2^31 cycles (packets stamp cycles in 32 bits);
/// the idle gaps between them cost nothing (the stream's clock skips them). One job's work (run
/// time x cycles per second) is at most max_job_cycles, its submit at most max_stream_cycles.
inline constexpr std::uint64_t max_job_cycles = std::uint64_t{1} << 30;
inline constexpr double max_stream_cycles = 1e18;
}  // namespace defaults::os_stream

/// One job of a stream (times in trace seconds, relative to the stream's first submit).
struct StreamJob {
  std::uint64_t id = 0;          ///< the SWF job number, or 1.. for synthetic streams
  double submit = 0;             ///< arrival
  double run_time = 1;           ///< > 0: the work, scaled by cycles_per_second
  double requested_time = 0;     ///< the user's estimate (EASY's reservations); <= 0: run_time
  node_t pes = 1;                ///< PEs requested (>= 1)
  std::int64_t executable = -1;  ///< SWF field 14, the application (executable) number; -1: unknown
  std::string app;               ///< the application it runs (assign_apps); empty: the caller's one
  std::uint64_t line = 0;        ///< its line in the SWF file (errors name it); 0: a synthetic stream
};

struct JobStream {
  std::string source;            ///< the spec or file it came from
  std::vector<StreamJob> jobs;   ///< in submit order (stable for equal submits)
};

/// Parses SWF text (18 whitespace-separated fields per job line; ';' starts a comment line).
/// Uses fields 1 (job number), 2 (submit), 4 (run time), 5 (allocated PEs; -1: field 8,
/// requested PEs) and 9 (requested time). A malformed line is a usage_error naming `name`, the
/// line number and the field: "jobs.swf:7: field 4 (run time): 'x' is not a number ...". A job
/// whose run time or PE count is -1 (unknown, as for cancelled jobs) is skipped; no job at all is
/// an error.
JobStream parse_swf(std::istream& in, const std::string& name);
/// parse_swf of a file (bounded read, rica/io.hpp).
JobStream load_swf(const std::string& path);
/// "poisson:jobs=N,rate=R,size=A:B,length=L,seed=S": N jobs, exponential inter-arrival times of
/// mean 1/R seconds, sizes drawn uniformly among the powers of two in [A, B] (or one size A),
/// exponential run times of mean L seconds (at least 1 s), all from seed S.
JobStream poisson_stream(const std::string& spec);
/// poisson:... or a path to an SWF file; `what` names the option in errors.
JobStream job_stream(const std::string& spec, const std::string& what = "--jobs");

/// Which application each job of a stream runs (docs/os.md "Mixing applications"). `--job`:
/// one spec, or a mix "SPEC@W;SPEC@W;..." (';' between entries, since specs hold ','; weights
/// > 0, default 1 each). `--job-map`: "N=SPEC;N=SPEC;..." sends SWF jobs of executable number N
/// (field 14) to SPEC; other jobs draw from the mix.
struct JobMix {
  std::vector<std::pair<std::string, double>> apps;                  ///< (spec, weight), as given
  std::vector<std::pair<std::int64_t, std::string>> by_executable;  ///< (executable number, spec)
  /// Job j's spec: its executable's when mapped, else drawn by weight from a generator seeded
  /// by (seed, the job's position in the stream): deterministic, independent of the other jobs.
  std::string choose(const StreamJob& j, std::size_t position, std::uint64_t seed) const;
};
/// Parses --job and --job-map (either may be empty: "uniform"'s mix, no map). Every spec's name
/// (before ':') must be in `known` (usage_error naming the option, the nearest name, the valid
/// ones); a weight not a number > 0, a repeated executable, or a map on a stream that has no
/// executable numbers (`swf` false: poisson) is a usage_error.
JobMix parse_job_mix(const std::string& job, const std::string& map, const std::vector<std::string>& known, bool swf);
/// Sets every job's `app` by mix.choose (seed: the run's).
void assign_apps(JobStream& stream, const JobMix& mix, std::uint64_t seed);

// ---- allocators ---------------------------------------------------------------------------

/// Places jobs on PEs. One allocator per space (gang: one per row of the matrix). Main thread.
class Allocator {
 public:
  virtual ~Allocator() = default;
  /// PEs for a job of k PEs (local order), or nullopt when there is no room now.
  virtual std::optional<std::vector<node_t>> allocate(node_t k) = 0;
  /// Frees a placement allocate() returned (the same vector).
  virtual void release(const std::vector<node_t>& pes) = 0;
  /// PEs held by placements, with what a placement holds beyond its job (internal fragmentation).
  virtual node_t held() const = 0;
  /// The largest job allocate() would place now (external fragmentation: free PEs it cannot use).
  virtual node_t largest_free() const = 0;
  /// Every placement is a closed partition (time sharing allowed; open placements only space-share).
  virtual bool closed() const = 0;
  /// An independent copy in the same state, for a scheduler to ask "what if" (EASY: would the
  /// head job fit once these jobs have ended?); nullptr: not offered (EASY then counts PEs).
  virtual std::unique_ptr<Allocator> clone() const { return nullptr; }
};

/// Makes an allocator for a topology; `seed` for random choices. Throws usage_error when the
/// topology has no such structure (e.g. buddy on a family without closed halving).
using AllocatorFactory = std::function<std::unique_ptr<Allocator>(const Topology&, std::uint64_t seed)>;
void register_allocator(const std::string& name, const std::string& doc, AllocatorFactory make);
struct AllocatorRegistration {
  AllocatorRegistration(const std::string& name, const std::string& doc, AllocatorFactory make) {
    register_allocator(name, doc, std::move(make));
  }
};
/// Every registered allocator: (name, one-line description), in registration order.
std::vector<std::pair<std::string, std::string>> allocators();
/// The allocator `name` on `topology`; usage_error naming the valid names (and the nearest) otherwise.
std::unique_ptr<Allocator> make_allocator(const std::string& name, const Topology& topology, std::uint64_t seed);

// ---- schedulers ---------------------------------------------------------------------------

/// What a scheduler sees of the stream and does to it (the stream driver implements it; a
/// job-level test may implement its own). Main thread, between cycles.
class SchedulerContext {
 public:
  virtual ~SchedulerContext() = default;
  virtual std::uint64_t now() const = 0;
  /// PEs of the machine.
  virtual node_t machine_pes() const = 0;
  /// Arrived and not yet placed, in arrival order.
  virtual const std::vector<unsigned>& waiting() const = 0;
  /// Placed and not finished (any row).
  virtual const std::vector<unsigned>& running() const = 0;
  virtual node_t size(unsigned job) const = 0;
  /// The job's estimated run time in cycles (requested time x cycles per second).
  virtual std::uint64_t estimate(unsigned job) const = 0;
  /// The cycle at which a placed job was placed, and the PEs its placement holds.
  virtual std::uint64_t placed_at(unsigned job) const = 0;
  virtual node_t held_by(unsigned job) const = 0;
  /// The PEs of a placed job's placement (what its row's allocator gave it).
  virtual const std::vector<node_t>& pes_of(unsigned job) const = 0;
  /// Rows of the matrix at most (space sharing: 1).
  virtual unsigned max_rows() const = 0;
  /// Row r's allocator (created on first use; r < max_rows()).
  virtual Allocator& row(unsigned r) = 0;
  /// Places `job` in row r on `pes`, right after the row(r).allocate() that gave them; false, and nothing placed, when the
  /// placement would share a router with another job of the row under time sharing (the caller
  /// then releases the PEs). A job placed in the row that runs starts at once.
  virtual bool place(unsigned job, unsigned r, const std::vector<node_t>& pes) = 0;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  /// Time sharing: rows take turns for a slice each, switching with the switch policy.
  virtual bool time_sharing() const { return false; }
  /// Called when a job arrived or finished: places what it decides to start.
  virtual void schedule(SchedulerContext& ctx) = 0;
};

using SchedulerFactory = std::function<std::unique_ptr<Scheduler>()>;
void register_scheduler(const std::string& name, const std::string& doc, SchedulerFactory make);
struct SchedulerRegistration {
  SchedulerRegistration(const std::string& name, const std::string& doc, SchedulerFactory make) {
    register_scheduler(name, doc, std::move(make));
  }
};
std::vector<std::pair<std::string, std::string>> schedulers();
std::unique_ptr<Scheduler> make_scheduler(const std::string& name);

// ---- one stream run -----------------------------------------------------------------------

struct StreamConfig {
  std::string allocator = "buddy";
  std::string scheduler = "fcfs";
  double cycles_per_second = defaults::os_stream::cycles_per_second;
  double rate = defaults::os_stream::rate;    ///< a traffic job's injection rate (its packets per PE)
  unsigned rows = defaults::os_stream::rows;  ///< gang: rows at most
  /// Interference: after the stream, run every job again alone on its own placement (same
  /// application, seed and PEs, nothing else on the machine) and report its latency there.
  bool alone = false;
  /// Ids for resident jobs (1..max_resident): more jobs placed at once is a usage_error. Fewer
  /// ids than the default only force recycling (tests); results do not depend on it.
  unsigned job_ids = defaults::os_stream::max_resident;
  OsConfig os;                                ///< slice, switch policy, I/O and save rates
  /// Progress: called on the main thread between cycles when jobs have finished (done of total).
  std::function<void(std::size_t done, std::size_t total)> on_job_done;
};

/// A job's application, made by the caller (the CLI: a traffic pattern or registered app).
/// `packets` is the job's work per PE (run time x cycles per second x rate, at least 1).
using JobAppFactory = std::function<std::unique_ptr<App>(const StreamJob& job, std::uint64_t packets)>;

struct StreamJobResult {
  StreamJob job;
  std::uint64_t arrival = 0, start = 0, end = 0;  ///< cycles: arrived, first ran, finished
  std::uint64_t work = 0;                         ///< run time x cycles per second
  /// Cycles it ran on its nodes (in the running set: from its start or the end of the switch that
  /// brought it in to the start of the one that took it out, or to its end); >= 1 once finished.
  std::uint64_t service = 0;
  unsigned row = 0;
  std::vector<node_t> pes;                        ///< its placement
  node_t held = 0;                                ///< PEs its placement held
  /// wait = start - arrival; response = end - arrival; slowdown = response / service (>= 1: a
  /// job's response is its service plus its waits, before it starts and while switched out);
  /// bounded slowdown = max(1, response / max(work, tau)), the archive's measure against the
  /// trace's run time. response / work itself is not reported as slowdown: an application job's
  /// own duration (a reduce, a sort) has nothing to do with its trace run time, so it may be < 1.
  double wait = 0, response = 0, slowdown = 0, bounded_slowdown = 0;
  JobResult figures;                              ///< packets, latency, foreign link packets, verdict
  double latency_alone = 0;                       ///< StreamConfig::alone: mean latency run alone (0: not run)
};

/// Machine utilisation over time: a step function, one point per change.
struct UtilisationPoint {
  std::uint64_t cycle = 0;
  node_t busy = 0;     ///< PEs of jobs running (switched in) from this cycle on
  node_t held = 0;     ///< PEs held by placements (every row), internal fragmentation included
  node_t placed = 0;   ///< PEs of placed jobs (every row)
  std::size_t waiting = 0;
  bool blocked = false;  ///< the head job waits though some row has enough free PEs (fragmentation)
};

struct StreamStats {
  RunStats machine;     ///< the whole machine: conservation, exactly-once, deadlock
  std::vector<StreamJobResult> jobs;
  std::vector<SwitchRecord> switches;
  std::vector<UtilisationPoint> utilisation;
  std::size_t peak_resident = 0;      ///< the most jobs placed at once (job ids in use)
  std::uint64_t makespan = 0;
  double utilisation_mean = 0;        ///< busy PE-cycles / (PEs x makespan)
  double fragmentation_internal = 0;  ///< time mean of (held - busy-or-placed) / PEs, over placed jobs
  double fragmentation_external = 0;  ///< time share with a waiting head job and enough free PEs it cannot get
  std::uint64_t misdelivered = 0;
  bool ok = true;                     ///< no loss, duplicate, misdelivery or deadlock; every job verified
  nlohmann::json to_json() const;
};

/// Refuses (usage_error, one line naming the job and, for SWF, its file and line) a job larger
/// than the machine or of no PE, a run time <= 0, a job whose work exceeds max_job_cycles or whose
/// arrival exceeds max_stream_cycles at `cycles_per_second`. run_stream calls it; so does a
/// request's validation, before any output is prepared.
void check_stream(const JobStream& stream, const Topology& topology, double cycles_per_second);

/// Runs the stream. Throws usage_error for an invalid configuration: an unknown allocator or
/// scheduler, time sharing on an open allocator, a job larger than the machine, too many jobs.
StreamStats run_stream(const Topology& topology, const JobStream& stream, const JobAppFactory& make_app,
                       const EngineConfig& cfg, const StreamConfig& sc, Observers observers = {});

}  // namespace rica
