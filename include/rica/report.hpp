#pragma once
// Reports of a run, written the same way by every front end (the rica CLI, bindings): the JSON
// summary of a RunStats, the per-PE and per-link CSV tables, and the one CSV writer/reader they
// use. Pure functions of their arguments (no CLI types, no global state); the write_* functions
// check every write (rica/io.hpp) and throw usage_error naming `what` on failure.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/engine.hpp"
#include "rica/topology.hpp"

namespace rica::report {

// ---- CSV (RFC 4180): the only CSV writer of rica ----------------------------------------------
/// One field: as is, or in double quotes (inner quotes doubled) when it holds a comma, a quote,
/// a CR or LF, or leading/trailing blanks. csv_parse(csv_row({x})) gives back {x} for any x.
std::string csv_field(std::string_view text);
/// Fields joined by commas, each through csv_field, ending in "\n".
std::string csv_row(const std::vector<std::string>& fields);
/// The rows of CSV text (quoted fields may hold commas, quotes and newlines; CRLF accepted). A
/// quote left open, or a quote in the middle of an unquoted field, throws usage_error naming
/// `what` and the line.
std::vector<std::vector<std::string>> csv_parse(std::string_view text, const std::string& what = "CSV");

// ---- One run -------------------------------------------------------------------------------
/// The figures of one run: the machine, the model configuration, the packet accounting, hops,
/// latency, throughput, link loads, memory and the verdicts (keys documented in docs/reference.md).
nlohmann::json run_summary(const Topology& t, const EngineConfig& cfg, const RunStats& st);
/// A run's "latency_distribution" (run_summary, and each run of rica os): {total, network}, and
/// with several buffer classes "classes": [{class, total, network}], in an OS run "jobs": [{job,
/// total, network}] (groups with measured deliveries only), each a latency_distribution().
nlohmann::json latency_distributions(const RunStats& st);
/// A latency histogram (RunStats::latency_histogram) as JSON columns over its non-empty buckets:
/// low, high (bucket b holds [low, high), in `unit`), count, and cdf (the share of deliveries
/// below high); plus "unit" and "total". Empty buckets are left out; an empty histogram gives
/// empty columns.
nlohmann::json latency_distribution(const std::vector<std::uint64_t>& histogram, const std::string& unit);
/// Per-PE table: pe,label,injected,delivered,forwarded,blocked (one row per node; router-only
/// nodes inject and deliver 0).
std::string pe_csv(const Topology& t, const RunStats& st);
/// Per-link table: node,port,peer,packets (one row per present out-link).
std::string link_csv(const Topology& t, const RunStats& st);
/// The per-link file beside a per-PE file: "r.csv" -> "r.links.csv", "r" -> "r.links.csv".
std::string link_csv_path(const std::string& pe_csv_path);
/// Writes pe_csv to `path` and link_csv to link_csv_path(path).
void write_run_csv(const std::string& path, const Topology& t, const RunStats& st, const std::string& what = "--csv");

}  // namespace rica::report
