#pragma once
// `rica experiment NAME` as a library request: one of the papers' dynamic experiments (a set-up of
// `rica experiment --list`: every network under every pattern as a latency-throughput sweep on the
// cycle engine) or the faults experiment (throughput and latency against failed links), run and
// written into a directory (points.csv, the tables, config.json). The CLI
// (apps/cli/experiment_command.cpp) parses its options into a request::Experiment and presents the
// outcome (text, --json, figures); Python (rica.experiment) and C++ callers give the same request
// and get the same checks. Implemented in rica::experiments (apps/experiments/experiment_request.cpp,
// faults_experiment.cpp), which holds the set-ups.
//
// Thread-safety: one validate() or run() at a time (a run uses the host's cores: its sweeps run
// several runs at once, each on oneTBB); run() calls the progress hooks from one thread at a time.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/defaults.hpp"
#include "rica/engine.hpp"

namespace rica::request {

struct Experiment {
  std::string name;                       ///< a set-up of experiment_list(), or "faults"
  std::string out;                        ///< the directory written; "" = out/experiments/<name>
  bool quick = false;                     ///< 4 rates per sweep, 2,000 cycles, one hot-spot seed
  std::vector<std::string> networks;      ///< the set-up's networks (labels or specs); empty = all
  std::vector<std::string> patterns;      ///< the set-up's patterns or variants (mesh:wrap=0); empty = all
  std::optional<std::uint64_t> cycles;    ///< injection window; unset = the set-up's (quick: its quick window)
  unsigned jobs = 0;                      ///< runs at once; 0 = cores / threads (results do not depend on it)
  unsigned threads = 1;                   ///< threads per run; 0 = all cores
  std::uint64_t seed = defaults::engine::seed;  ///< seed of the first trial
  unsigned seeds = 0;                     ///< runs per point (seeds seed..seed+K-1); 0 = the set-up's
  std::string faults;                     ///< a --faults spec (rica/faults.hpp), one fault set per network; "" = none
  /// --routing A,B,...: every picked network once per routing (labels "DF valiant"), each series
  /// with its own routing's bound; empty = the set-up's own routings.
  std::vector<std::string> routings;
  /// The caller's record of the invocation for the resolved configuration (the CLI: rica::cli::provenance
  /// of its recorded options); it heads the report (and the faults experiment's config.json). Empty:
  /// rica_version, seed, threads and this request's fields as "config".
  std::function<nlohmann::json(const EngineConfig& resolved)> provenance;
};

/// One option of `rica experiment` that fills a member of Experiment, declared here once: the CLI
/// registers each entry (apps/cli/experiment_command.cpp: its name, help, limits and the member,
/// whose default is a default Experiment's), validate() checks the same limits, and Python's
/// keywords come from the CLI's registration. A string member is the positional when the name has
/// no dashes, else an output directory. (--faults is the option table's, shared with `rica run`.)
struct ExperimentOption {
  using Member = std::variant<std::string Experiment::*, bool Experiment::*, std::vector<std::string> Experiment::*,
                              std::optional<std::uint64_t> Experiment::*, unsigned Experiment::*,
                              std::uint64_t Experiment::*>;
  std::string name;              ///< "--quick"; "name" for the positional
  Member member;
  std::uint64_t lo = 0, hi = 0;  ///< integer members: the accepted range
  std::string help;              ///< --help's text (the range is added to integers' help)
  std::string accepted;          ///< the positional: what it accepts (completes the refusal of "")
};
/// Every entry, in --help's order.
[[nodiscard]] const std::vector<ExperimentOption>& experiment_options();

/// What `rica experiment --list` prints: each experiment's name, title, source, networks, patterns.
[[nodiscard]] std::string experiment_list();

/// The directory `request` writes (out, or its default) and the files it writes there.
[[nodiscard]] std::string output_dir(const Experiment& request);
[[nodiscard]] std::vector<std::string> output_files(const Experiment& request);

struct ExperimentOutcome {
  std::string name;                 ///< the experiment
  std::string out;                  ///< the directory written
  std::vector<std::string> files;   ///< written there (points.csv, table.*, config.json)
  EngineConfig engine;              ///< as run (cycles, threads per run, seed resolved)
  unsigned jobs = 1;                ///< runs at once
  std::size_t runs = 0;
  double wall_s = 0;                ///< seconds the runs took
  nlohmann::json config;            ///< config.json as written
  nlohmann::json table;             ///< table.json as written
  /// What `rica experiment --json` writes: the provenance with the set-up ("setup") and the table,
  /// or for the faults experiment its config.json with the table.
  nlohmann::json report;
  std::string text;                 ///< the CLI's text: the table (Markdown) and where it was written
  std::string plot_script;          ///< the figures: scripts/<plot_script> with plot_args (plot())
  std::vector<std::string> plot_args;
};

/// Hooks of run(), each optional, called from one thread at a time.
struct ExperimentProgress {
  /// Before the first run: what runs ("2 networks x 2 patterns, 18 runs of 300 cycles, 2 at a time").
  std::function<void(const std::string& plan, std::size_t runs)> start;
  /// After each run: runs done, in total, and the run's figures in a line.
  std::function<void(std::size_t done, std::size_t total, const std::string& point)> point;
};

/// Refuses (usage_error: one line naming the parameter and what is accepted) before any work and
/// creating nothing: an option out of its range (experiment_options()), no name or an unknown one
/// (the nearest suggested), networks, patterns, --seeds or --faults that do not apply, a pattern
/// variant with a bad parameter, an engine setting out of range, seeds past 2^64, --faults that
/// disconnect a network or meet a routing or pattern it does not support, an output directory
/// that cannot be created or written, or a file in it that cannot be written.
void validate(const Experiment& request);
/// validate(), then creates the directory, runs every sweep and writes the files (each replaced
/// whole). Stops with rica::interrupted on Ctrl-C, leaving no points.csv behind.
[[nodiscard]] ExperimentOutcome run(const Experiment& request, const ExperimentProgress& progress = {});
/// Draws the outcome's figures into its directory with matplotlib (scripts/plot_experiment.py or
/// plot_faults.py); false when the script or matplotlib is missing or plotting failed (a one-line
/// note on standard error).
bool plot(const ExperimentOutcome& outcome);

}  // namespace rica::request
