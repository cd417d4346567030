#pragma once
// What `rica run` and `rica app` share: engine option parsing and the per-run report (JSON
// figures, per-PE and per-link CSV), so that both write the same keys and files.

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "rica/engine.hpp"
#include "rica/topology.hpp"

namespace rica::cli {

/// --packet-words: "3:1" -> mean 3, spread 1; "4" -> 4, 0. usage_error otherwise.
std::pair<unsigned, unsigned> parse_packet_words(const std::string& s);
/// --link-cycles: "degree" (in + out degree), "words" (one cycle per word) or N >= 1, into cfg.
/// usage_error otherwise.
void apply_link_cycles(const std::string& s, EngineConfig& cfg);
/// The figures of one run as `rica run --json` writes them: the machine, the configuration, the
/// packet accounting, hops, latency, throughput, link loads, memory and the verdicts.
nlohmann::json stats_json(const Topology& t, const EngineConfig& cfg, const RunStats& st);
/// Per-PE CSV at `path` (pe,label,injected,delivered,forwarded,blocked) and per-link CSV at
/// path's .links.csv (node,port,peer,packets). usage_error when a file cannot be written.
void write_pe_csv(const std::string& path, const Topology& t, const RunStats& st);

}  // namespace rica::cli
