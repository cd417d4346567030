#pragma once
// `rica experiment faults` (apps/cli/faults_experiment.cpp, docs/faults.md).
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace rica::cli {

struct FaultsExperimentOptions {
  CLI::App* cmd = nullptr;     ///< the experiment subcommand (its configuration goes into config.json)
  std::string out, json;       ///< out: default out/experiments/faults
  bool quick = false, no_plot = false, quiet = false, progress = false;
  std::optional<std::uint64_t> cycles;  ///< default 2,000 (quick: 1,000)
  unsigned jobs = 0, threads = 1;
  std::uint64_t seed = 1;
};

/// Runs the experiment and writes points.csv, table.{md,json}, config.json and the figures.
void faults_experiment(const FaultsExperimentOptions& o);

}  // namespace rica::cli
