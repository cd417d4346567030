// `rica replay ARCHIVE SPEC [options]` (docs/replay.md): the closed-loop replay of a recorded MPI
// program on an emulated network. A thin front of `rica run SPEC --app replay:trace=ARCHIVE,...`:
// the replay's own options become the application's parameters, every other option (the machine,
// --threads, --seed, --json, --csv, --quiet, --config, --telemetry, --trace-events, ...) is run's,
// with run's checks, and the injection window stays open until the program ends (--cycles bounds it).
#include <fmt/format.h>

#include <memory>

#include "api.hpp"
#include "commands.hpp"
#include "mpi_replay.hpp"
#include "options.hpp"
#include "rica/core.hpp"

namespace rica::cli {
namespace {

struct ReplayOptions {
  std::string archive, topology;
  replay::ReplayConfig cfg;
  std::string eager, packet, scale;  ///< as given ("" = the default)
  std::vector<std::string> rest;     ///< run's options, passed through
};

/// The application spec of the options: replay:trace=...,eager_bytes=...,...
std::string app_spec(const ReplayOptions& o) {
  if (o.archive.find_first_of(",=()") != std::string::npos)
    throw usage_error(fmt::format("rica replay: ARCHIVE {}: a path with ',', '=' or parentheses cannot be passed to "
                                  "the application; rename it",
                                  quote_input(o.archive)));
  std::string s = "replay:trace=" + o.archive;
  if (!o.eager.empty())
    s += ",eager_bytes=" + std::to_string(parse_uint(o.eager, "--eager-bytes", 0, std::uint64_t{1} << 40));
  if (!o.packet.empty())
    s += ",packet_bytes=" + std::to_string(parse_uint(o.packet, "--packet-bytes", 1, std::uint64_t{1} << 30));
  if (!o.scale.empty()) s += fmt::format(",compute_scale={}", parse_real(o.scale, "--compute-scale", 0, 1e15));
  if (o.cfg.map != "identity") {
    if (o.cfg.map.find_first_of(",=()") != std::string::npos)
      throw usage_error(fmt::format("--map {}: not {} (a file name without ',', '=' or parentheses)",
                                    quote_input(o.cfg.map), replay::map_names));
    s += ",map=" + o.cfg.map;
  }
  if (!o.cfg.collectives.empty()) {
    std::string c;
    for (const auto& [k, a] : replay::parse_collectives(o.cfg.collectives)) c += (c.empty() ? "" : ",") + k + "=" + a;
    s += ",collectives=(" + c + ")";
  }
  return s;
}

}  // namespace

void add_replay_command(CLI::App& app, int& status) {
  auto o = std::make_shared<ReplayOptions>();
  auto* c = app.add_subcommand(
      "replay",
      "Replay a recorded MPI program (an OTF2 archive, see 'rica record') closed-loop on an emulated network");
  c->add_option("archive", o->archive, "The OTF2 archive: its anchor file (NAME.otf2) or the directory holding it")
      ->required();
  c->add_option("topology", o->topology, "Topology spec (see 'rica list'), with at least as many PEs as ranks")
      ->required();
  c->add_option("--eager-bytes", o->eager,
                fmt::format("Standard sends above this many bytes use the rendezvous protocol (default {})",
                            o->cfg.eager_bytes))
      ->type_name("BYTES");
  c->add_option("--packet-bytes", o->packet,
                fmt::format("Message bytes per packet (default {}: the two 64-bit payload words)", o->cfg.packet_bytes))
      ->type_name("BYTES");
  c->add_option("--compute-scale", o->scale,
                fmt::format("Cycles per recorded second of compute between calls; 0 drops the gaps (default {:g})",
                            o->cfg.compute_scale))
      ->type_name("CYCLES_PER_S");
  c->add_option("--map", o->cfg.map, "Ranks to PEs: identity, random (the seed), embed (greedy by traffic) or a file "
                                     "(line i: the PE of rank i)")
      ->type_name("identity|random|embed|FILE");
  c->add_option("--collectives", o->cfg.collectives,
                "Collective algorithms, e.g. allreduce=ring,bcast=binomial (default: by message size)")
      ->type_name("KIND=ALG,...");
  c->allow_extras();
  c->footer("Every other option is rica run's (see 'rica run --help'): --engine, --threads, --seed, --json, --csv, "
            "--quiet, --config, --telemetry, --trace-events, --cycles (default: until the program ends), ...");
  c->callback([o, c, &status] {
    o->rest = c->remaining();
    std::vector<std::string> args = {"run", o->topology, "--app", app_spec(*o)};
    args.insert(args.end(), o->rest.begin(), o->rest.end());
    status = run_command(args);
  });
}

}  // namespace rica::cli
