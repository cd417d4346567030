#pragma once
// What request::run (rica/request/experiment.hpp) runs: an experiment planned by its kind — a
// set-up's sweeps (experiment_request.cpp) or the faults experiment (faults_experiment.cpp) — and
// how its files are made from the points. The request runs the plan: one directory, points.csv
// written first (a write failure found before the runs), the runs, then every file through
// rica::write_text_file. Internal to rica::experiments.

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/engine.hpp"
#include "rica/request/experiment.hpp"
#include "sweep.hpp"

namespace rica::experiments {

/// The files, report and figures of an experiment, made from its points.
struct Made {
  std::string points;  ///< points.csv, its header included
  std::vector<std::pair<std::string, std::string>> files;  ///< the other files: (name, text), in write order
  nlohmann::json config, table;  ///< config.json and table.json as written
  nlohmann::json report;         ///< what --json writes
  std::string text;              ///< the table in Markdown and where it was written
  std::string plot_script;
  std::vector<std::string> plot_args;
};

/// An experiment checked and, when planned, ready to run.
struct Plan {
  EngineConfig cfg;        ///< resolved: cycles, threads per run, seed (rica::validate passed)
  unsigned parallel = 1;   ///< runs at once
  std::string scope;       ///< "2 networks x 2 patterns", "45 network states"
  std::string points_header;
  std::vector<SweepJob> jobs;  ///< empty until planned
  /// The files from the points (job order), the seconds the runs took, the directory and the
  /// caller's provenance block. Set when planned.
  std::function<Made(const std::vector<SweepPoint>& points, double wall, const std::string& out,
                     const nlohmann::json& provenance)>
      make;
};

/// `cfg` with the request's window (`cycles` when it gives none), threads per run (0 = the host's
/// cores) and seed; not yet validated.
void resolve_run(EngineConfig& cfg, const request::Experiment& r, std::uint64_t cycles);
/// Runs at once: the request's --jobs, or the host's cores over the threads per run.
unsigned runs_at_once(const request::Experiment& r, const EngineConfig& cfg);

namespace faults {
/// The faults experiment: its name in `rica experiment faults` and its --list entry.
inline constexpr const char* name = "faults";
std::string list_entry();
/// The files it writes into its directory.
std::vector<std::string> files();
/// Its checks (validate()): --networks, --patterns, --seeds and --faults do not apply; the engine
/// configuration. With `planned`, also its runs and files (the fault draws; run()).
Plan prepare(const request::Experiment& r, bool planned);
}  // namespace faults

namespace kernels {
/// The kernels experiment (kernels_experiment.cpp): the HPC kernels and the collectives on ~1,024-PE
/// networks, one run each until the program is done.
inline constexpr const char* name = "kernels";
std::string list_entry();
std::vector<std::string> files();
/// Its checks: --seeds, --faults and --cycles do not apply; --networks picks networks, --patterns
/// programs (a label, or every algorithm of a collective by its name); every program must fit every
/// network. With `planned`, its runs and files.
Plan prepare(const request::Experiment& r, bool planned);
}  // namespace kernels

}  // namespace rica::experiments
