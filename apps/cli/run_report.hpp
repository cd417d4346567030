#pragma once
// What `rica run` and `rica app` share: the per-run report (JSON
// figures, per-PE and per-link CSV), so that both write the same keys and files.

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "rica/engine.hpp"
#include "rica/topology.hpp"

namespace rica::cli {

/// The figures of one run as `rica run --json` writes them: the machine, the configuration, the
/// packet accounting, hops, latency, throughput, link loads, memory and the verdicts.
nlohmann::json stats_json(const Topology& t, const EngineConfig& cfg, const RunStats& st);
/// Per-PE CSV at `path` (pe,label,injected,delivered,forwarded,blocked) and per-link CSV at
/// path's .links.csv (node,port,peer,packets). usage_error when a file cannot be written
/// (every write checked: rica/io.hpp write_text_file).
void write_pe_csv(const std::string& path, const Topology& t, const RunStats& st);

}  // namespace rica::cli
