// The built-in command-specific entries of the option table (option_table.hpp): the workload of
// rica run and demo (traffic or an application, rate, packets, sources, seeds), their outputs beside
// the report (telemetry, trace events), sweep's grid, and the application kernels' parameters,
// each declared once. Values go to CommandValues (option_table.hpp), whose initialisers come from
// include/rica/defaults.hpp; a subcommand's own default is the entry's command_defaults.
#include <fmt/format.h>

#include "option_table.hpp"
#include "rica/core.hpp"
#include "rica/defaults.hpp"
#include "rica/routing_names.hpp"
#include "sweep.hpp"

namespace rica::cli {
namespace {

using Commands = std::vector<std::string>;

OptionDef in(OptionDef d, OptionGroup group, std::string not_with = "") {
  d.group = group;
  d.not_with = std::move(not_with);
  return d;
}

std::vector<OptionDef> make_command_options() {
  const Commands runs = {"run", "demo"};
  const Commands kernels = {"app sort", "app stencil"};
  std::vector<OptionDef> v;

  // ---- rica run, demo: the workload (the traffic options do not apply to --app runs) ----------
  v.push_back(in(text_value("traffic", &CommandValues::traffic,
                            "Traffic: a pattern (see 'rica list'), matrix:FILE or trace:FILE (docs/traffic.md)",
                            "a traffic pattern (see 'rica list'), matrix:FILE or trace:FILE", runs),
                 OptionGroup::workload, "app"));
  // rica sweep: its own help (its "mesh" is the paced emulation); here for --help's order.
  v.push_back(in(text_value("traffic", &CommandValues::traffic,
                            "Traffic pattern (mesh, mesh:wrap=0: paced mesh emulation, rate = round-start probability)",
                            "a traffic pattern (see 'rica list')", {"sweep"}),
                 OptionGroup::workload));

  v.push_back(in(text_value("app", &CommandValues::app, "Run an application instead of traffic, e.g. reduce:rounds=5",
                            "an application spec such as reduce:rounds=5 (see 'rica list')", runs),
                 OptionGroup::workload));

  OptionDef rate;
  rate.name = "rate";
  rate.kind = OptionKind::text;
  rate.type_name = "RATE";
  rate.commands = runs;
  rate.help = "Injection probability per PE per opportunity (0..1]";
  rate.parse = [](EngineOptions& o, const std::string& s) { o.values.rate = parse_real(s, "--rate", 0.0, 1.0, true); };
  rate.show = [](const EngineOptions& o) { return fmt::format("{}", o.values.rate); };
  v.push_back(in(std::move(rate), OptionGroup::workload, "app"));

  // rica sweep: a grid of rates under the same name (--rate, --rates).
  OptionDef rates;
  rates.name = "rate";
  rates.aliases = {"rates"};
  rates.kind = OptionKind::text;
  rates.type_name = "RATES";
  rates.commands = {"sweep"};
  rates.help = fmt::format("Offered loads: FROM:TO:STEP (at most {} points) or a comma list, each in (0, 1]; auto = up "
                           "to past the channel-load bound (rica bound), refined near the knee",
                           defaults::limits::rates);
  rates.command_defaults["sweep"] = {
      [](EngineOptions& o) {
        if (o.values.rates.empty()) o.values.rates = experiments::parse_rates(defaults::sweep::rates);
      },
      ""};
  rates.parse = [](EngineOptions& o, const std::string& s) {
    o.values.auto_rates = s == "auto";
    if (o.values.auto_rates) return;
    try {
      o.values.rates = experiments::parse_rates(s, "--rate");
    } catch (const usage_error& e) {
      throw usage_error(std::string(e.what()) + ", or auto (placed by the channel-load bound)");
    }
  };
  rates.show = [](const EngineOptions& o) {
    std::string shown;
    for (double r : o.values.rates) shown += fmt::format("{}{:g}", shown.empty() ? "" : ",", r);
    return shown;
  };
  v.push_back(in(std::move(rates), OptionGroup::workload));

  // rica sweep: routings as a dimension (--routing A,B,...): one series per (network, routing),
  // each with its own bound (rica bound --routing); the first is the configuration's routing.
  OptionDef routings;
  routings.name = "routing";
  routings.kind = OptionKind::text;
  routings.type_name = "ROUTING[,ROUTING...]";
  routings.commands = {"sweep", "bound"};
  routings.help = fmt::format("Routing, or a comma list of routings: sweep runs each as its own series, bound bounds "
                              "each ({}; `rica list` names the topologies that offer each)",
                              routing_choices(", "));  // generated: never drifts from the declarations
  routings.parse = [](EngineOptions& o, const std::string& s) {
    o.values.routings = experiments::parse_routings(s, "--routing");
    o.cfg.routing = o.values.routings.front();
  };
  routings.show = [](const EngineOptions& o) {
    return experiments::routings_text(o.values.routings.empty() ? std::vector<Routing>{o.cfg.routing} : o.values.routings);
  };
  v.push_back(in(std::move(routings), OptionGroup::machine));

  v.push_back(in(uint_value("packets", &CommandValues::packets, 1, defaults::limits::packets,
                            fmt::format("Packets per PE (mesh: 4 per iteration) [default: {} async; the window, cycle]",
                                        defaults::traffic::packets),
                            runs),
                 OptionGroup::workload, "app"));

  // Sweeps take it too (open-loop sources); sweep has no --app.
  v.push_back(in(uint_value("source-queue", &CommandValues::source_queue, 0, defaults::traffic::source_queue_max,
                            "Open-loop sources stop generating while N of their packets wait to enter the network "
                            "(0 = unbounded, cycle engine only)",
                            {"run", "demo", "sweep"}),
                 OptionGroup::workload, "app"));

  OptionDef burst;
  burst.name = "burst";
  burst.kind = OptionKind::text;
  burst.type_name = "ON:OFF";
  burst.commands = runs;
  burst.shows_default = false;
  burst.help = "On/off (Markov-modulated) sources: mean on and off periods in injection opportunities, e.g. 20:80 "
               "(each 1..1e9; while on, inject with probability --rate)";
  burst.parse = [](EngineOptions& o, const std::string& s) {
    const auto colon = s.find(':');
    if (colon == std::string::npos)
      throw usage_error(fmt::format("--burst: '{}' is not ON:OFF (mean on and off periods in cycles, each >= 1)", s));
    o.values.burst_on = parse_real(s.substr(0, colon), "--burst ON", 1.0, 1e9, false);
    o.values.burst_off = parse_real(s.substr(colon + 1), "--burst OFF", 1.0, 1e9, false);
  };
  v.push_back(in(std::move(burst), OptionGroup::workload, "app"));

  v.push_back(in(uint_value("seeds", &CommandValues::seeds, 1, 1000,
                            "Runs per point, seeds --seed .. --seed+K-1; figures as mean and 95% confidence interval",
                            {"run", "demo", "sweep"}),
                 OptionGroup::workload));

  // ---- rica run, demo: outputs beside the report ------------------------------------------------
  OptionDef telemetry = uint_value(
      "telemetry", &CommandValues::telemetry, 1, defaults::limits::cycles,
      fmt::format("Telemetry over time per window of W cycles (cycle engine) or W microseconds (async engine, at least "
                  "{}; the world stops at each window's end), e.g. {} cycles or {} us: per window injected, "
                  "delivered, latency, occupancy, per buffer class (CSV beside --csv or --json; docs/runtime.md)",
                  defaults::telemetry::async_min_window_us, defaults::telemetry::window,
                  defaults::telemetry::async_window_us),
      {"run", "demo", "os"});
  telemetry.type_name = "W";
  telemetry.configuration = false;
  v.push_back(in(std::move(telemetry), OptionGroup::outputs));

  OptionDef links;
  links.name = "telemetry-links";
  links.kind = OptionKind::flag;
  links.commands = {"run", "demo", "os"};
  links.configuration = false;
  links.help = "With --telemetry: also the per-link table (packets and words held per window and link; most of a "
               "window's cost)";
  links.parse = [](EngineOptions& o, const std::string&) { o.values.telemetry_links = true; };
  v.push_back(in(std::move(links), OptionGroup::outputs));

  v.push_back(in(file_value("trace-events", &CommandValues::trace_events,
                            "Cycle engine: Chrome trace-event JSON of the run (Perfetto, chrome://tracing): sampled "
                            "packets' journeys as flows across nodes, OS halts and switches as slices (docs/runtime.md)",
                            runs),
                 OptionGroup::outputs));
  OptionDef te_packets =
      uint_value("trace-events-packets", &CommandValues::trace_events_packets, 1, defaults::trace_events::max_packets,
                 "Packets --trace-events follows hop by hop: the first N to enter the network after the warm-up", runs);
  te_packets.type_name = "N";
  te_packets.configuration = false;
  v.push_back(in(std::move(te_packets), OptionGroup::outputs));

  // ---- rica app sort, stencil: the map, then each kernel's parameters ---------------------------
  v.push_back(in(text_value("map", &CommandValues::map,
                            "Ranks to PEs: identity, embed (topology-aware where known) or random",
                            "identity, embed, random", kernels),
                 OptionGroup::workload));
  v.push_back(in(text_value("algorithm", &CommandValues::algorithm, "bitonic, shear (on the process grid) or sample",
                            "bitonic, shear, sample", {"app sort"}),
                 OptionGroup::kernel));
  v.push_back(in(uint_value("keys", &CommandValues::keys, 1, defaults::limits::keys,
                            "Keys in all, spread over the PEs (generated from the seed)", {"app sort"}),
                 OptionGroup::kernel));
  v.push_back(in(text_value("keys-file", &CommandValues::keys_file,
                            "Read the keys from FILE (a regular file; whitespace-separated unsigned 32-bit)",
                            "a readable regular file", {"app sort"}),
                 OptionGroup::kernel));
  v.push_back(in(text_value("distribution", &CommandValues::distribution,
                            "Generated keys: uniform, few (16 values), sorted, reversed", "uniform, few, sorted, reversed",
                            {"app sort"}),
                 OptionGroup::kernel));
  v.push_back(in(uint_value("keys-per-packet", &CommandValues::keys_per_packet, 1, 3,
                            "Keys per packet (32-bit keys + a 32-bit header)", {"app sort"}),
                 OptionGroup::kernel));
  v.push_back(in(uint_value("samples", &CommandValues::samples, 1, 1 << 16, "Sample sort: samples per PE", {"app sort"}),
                 OptionGroup::kernel));
  v.push_back(in(text_value("pgrid", &CommandValues::pgrid, "Shear sort: process grid PXxPY (default: the most square)",
                            "PXxPY, e.g. 4x4", {"app sort"}),
                 OptionGroup::kernel));
  v.push_back(in(text_value("grid", &CommandValues::grid, "Cells GXxGY, block-decomposed over the process grid",
                            "GXxGY, e.g. 256x256", {"app stencil"}),
                 OptionGroup::kernel));
  v.push_back(in(uint_value("points", &CommandValues::points, 5, 9, "Stencil: 5 (4 neighbours) or 9 (8 neighbours)",
                            {"app stencil"}),
                 OptionGroup::kernel));
  v.push_back(in(uint_value("iterations", &CommandValues::iterations, 1, 1 << 24, "Jacobi iterations", {"app stencil"}),
                 OptionGroup::kernel));
  v.push_back(in(uint_value("values-per-packet", &CommandValues::values_per_packet, 1, 2, "Halo doubles per packet",
                            {"app stencil"}),
                 OptionGroup::kernel));
  v.push_back(in(text_value("boundary", &CommandValues::boundary, "periodic (wraps) or fixed (0 outside)",
                            "periodic, fixed", {"app stencil"}),
                 OptionGroup::kernel));
  v.push_back(in(text_value("pgrid", &CommandValues::pgrid, "Process grid PXxPY (default: the most square)",
                            "PXxPY, e.g. 4x4", {"app stencil"}),
                 OptionGroup::kernel));
  return v;
}

}  // namespace

const std::vector<OptionDef>& command_options() {
  static const std::vector<OptionDef> v = make_command_options();
  return v;
}

}  // namespace rica::cli
