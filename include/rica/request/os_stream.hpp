#pragma once
// `rica os-stream SPEC --jobs STREAM` as a library request: the OS-policy workbench
// (rica/os_stream.hpp, docs/os.md "Job streams"). A job stream (an SWF file or poisson:...) runs on
// the machine under every combination of the allocators, schedulers and (time-sharing schedulers
// only) switch policies given; each job runs real traffic, packet by packet. The CLI
// (apps/cli/os_stream_command.cpp) fills a request::OsStream from its options — the request's own
// declared once, in OsStream::fields(); the machine's in the option table — and presents the
// outcome (table, stream.csv, jobs.csv, switches.csv, utilisation.csv, stream.json, plots);
// Python's rica.os_stream parses with the CLI's parsers into this request; a C++ caller gives the
// same request and gets the same checks and messages. Implemented in rica::experiments
// (apps/experiments/os_stream_request.cpp).
//
// Thread-safety: as rica/request/os.hpp.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/defaults.hpp"
#include "rica/engine.hpp"
#include "rica/os_stream.hpp"
#include "rica/request/fields.hpp"
#include "rica/request/os.hpp"
#include "rica/topology.hpp"

namespace rica::request {

struct OsStream {
  static constexpr unsigned max_rows = 64;  ///< rows in [1, max_rows]
  std::string topology;  ///< a topology spec (see `rica list`)
  std::string jobs;      ///< the stream: an SWF file or poisson:jobs=N,rate=R,size=A:B,length=L[,seed=S]
  std::vector<std::string> allocs{"buddy"};    ///< allocators (rica::allocators())
  std::vector<std::string> scheds{"fcfs"};     ///< schedulers (rica::schedulers())
  std::vector<std::string> policies{"drain"};  ///< switch policies at gang slot boundaries
  std::string job = "uniform";  ///< the jobs' traffic pattern or application, or a weighted mix (JobMix)
  std::string job_map;          ///< SWF streams: executable number -> application (JobMix); "" = none
  double rate = defaults::os_stream::rate;  ///< a traffic job's injection rate
  double cycles_per_second = defaults::os_stream::cycles_per_second;  ///< emulated cycles per trace second
  std::uint64_t slice = defaults::os::slice;  ///< gang: cycles per time slot
  unsigned rows = defaults::os_stream::rows;  ///< gang: rows of the Ousterhout matrix at most
  /// The machine, as for rica/request/os.hpp (the cycle engine; run() sets the cycles).
  EngineConfig engine;
  unsigned io_hop_cycles = defaults::os::io_hop_cycles;
  unsigned save_rate = defaults::os::save_words_per_cycle;
  bool alone = false;  ///< interference: every job again alone on its placement

  /// The request's own options, declared once: name, kind, range, help, in --help's order.
  static const std::vector<Field<OsStream>>& fields();
};

struct OsStreamOutcome {
  /// One run of the stream: an allocator, a scheduler and its switch policy ("none": space sharing).
  struct Run {
    std::string alloc, sched, policy;
    StreamStats stats;
    nlohmann::json json;  ///< stats.to_json() with alloc, sched and policy: the report's run
  };
  OsStream request;       ///< as given
  Topology topology;
  EngineConfig engine;    ///< as run: the cycle engine, threads resolved
  std::string source;     ///< the stream's source (file or poisson spec)
  std::size_t jobs = 0;   ///< jobs in the stream
  std::size_t planned = 0;  ///< runs to make: allocators x schedulers (x policies when time sharing)
  std::vector<Run> runs;
  /// Pairs of the cross product skipped, each with why (a time-sharing scheduler with an open
  /// allocator); the other pairs run. JSON "skipped" when any; the CLI prints each on stderr.
  std::vector<std::string> skipped;

  /// The report without provenance: topology, stream, model, runs.
  [[nodiscard]] nlohmann::json to_json() const;
  /// The console's text: the header line, the table's header row, one row per run.
  [[nodiscard]] std::string text() const;
  [[nodiscard]] std::string summary_csv() const;      ///< stream.csv: one row per run
  [[nodiscard]] std::string jobs_csv() const;         ///< jobs.csv: one row per job of every run
  [[nodiscard]] std::string switches_csv() const;     ///< switches.csv: one row per switch
  [[nodiscard]] std::string utilisation_csv() const;  ///< utilisation.csv: the step function per run
  /// The plots' title (scripts/plot_os_stream.py --title).
  [[nodiscard]] std::string plot_title() const;
  /// "os-stream: ALLOC SCHED POLICY: <the deadlock or livelock report>" of a stuck run.
  [[nodiscard]] static std::string stuck_report(const Run& run);
  /// The exit status: 0; 3 when a run got stuck (deadlock or livelock); else 1 when a run failed
  /// its checks (loss, duplicate, misdelivery, a job unverified). `why` (if given) gets one line
  /// per failed run naming it and what failed (the CLI prints them on stderr).
  [[nodiscard]] int status(std::string* why = nullptr) const;
};

/// What run() reports while it works (each may be empty); called on the calling thread.
struct OsStreamHooks {
  /// After every check and the set-up, before the first run: the outcome has everything but its
  /// runs (the CLI prepares its outputs here).
  std::function<void(const OsStreamOutcome&)> started;
  /// Jobs finished over all runs so far (of planned x jobs) and the run under way.
  std::function<void(std::size_t done, const std::string& note)> progress;
  /// After each run (the CLI reports a stuck one at once).
  std::function<void(const OsStreamOutcome::Run&)> ran;
};

/// Refuses (usage_error: one line naming the parameter and what is accepted, the CLI's words)
/// before any run: a field outside its declaration (OsStream::fields()), an unknown job name or a
/// malformed mix or map (the nearest name suggested), --threads or an engine setting out of
/// range, an unknown policy or scheduler, a topology too large for memory or unknown, a routing
/// it does not offer, a malformed or unreadable stream, an unknown allocator or one the topology
/// cannot serve, a job larger than the machine or with times beyond the limits (check_stream), a
/// cross product in which no allocator x scheduler pair can run (a pair that cannot is skipped
/// with a note: OsStreamOutcome::skipped). What only a run finds (too many jobs resident, a
/// stream busy for more than 2^31 machine cycles) is refused by run() during that run.
void validate(const OsStream& request);
/// validate(), then every run in order. Stops with rica::interrupted on Ctrl-C.
[[nodiscard]] OsStreamOutcome run(const OsStream& request, const OsStreamHooks& hooks = {});

}  // namespace rica::request
