#pragma once
// Runs over MPI ranks in the reports: the JSON block and the console lines (docs/distributed.md).

#include <nlohmann/json.hpp>

#include "rica/engine.hpp"

namespace rica::cli {

// ---- Runs over MPI ranks (docs/distributed.md) ---------------------------------------------------
/// The "distributed" block of a run's JSON: ranks, threads per rank, the split, links cut
/// between ranks and the hops over them. Only for runs over more than one rank (RunStats::ranks).
nlohmann::json distributed_json(const RunStats& st, const EngineConfig& cfg);
/// The same as a console line: "ranks         R ranks x T threads, ...".
void print_distributed(const RunStats& st, const EngineConfig& cfg);

}  // namespace rica::cli
