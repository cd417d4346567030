// The built-in entries of the option table (option_table.hpp): every option of the emulated
// machine, declared once. Defaults come from the EngineConfig being filled (include/rica/engine.hpp,
// whose members default to include/rica/defaults.hpp), limits from defaults::limits.
#include <fmt/format.h>

#include <bit>
#include <limits>

#include "option_table.hpp"
#include "rica/channel_load.hpp"
#include "rica/core.hpp"
#include "rica/defaults.hpp"
#include "rica/io.hpp"
#include "rica/request/run.hpp"
#include "rica/routing.hpp"
#include "rica/routing_names.hpp"
#include "sweep.hpp"

namespace rica::cli {
namespace {

using Commands = std::vector<std::string>;
Commands with(Commands a, const Commands& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// ---- Entry builders -------------------------------------------------------------------------------
std::string range(std::uint64_t lo, std::uint64_t hi) { return fmt::format("{}..{}", lo, hi); }

/// An unsigned member of EngineConfig in [lo, hi]; help gets " [lo..hi]".
template <class T>
OptionDef uint_field(std::string name, T EngineConfig::*member, std::uint64_t lo, std::uint64_t hi, std::string help,
                     Commands commands, EngineScope engines = every_engine) {
  hi = std::min<std::uint64_t>(hi, std::numeric_limits<T>::max());
  OptionDef d;
  d.name = name;
  d.kind = OptionKind::uint;
  d.type_name = "UINT";
  d.lo = lo;
  d.hi = hi;
  d.commands = std::move(commands);
  d.engines = engines;
  d.help = fmt::format("{} [{}]", help, range(lo, hi));
  d.parse = [member, flag = "--" + name, lo, hi](EngineOptions& o, const std::string& s) {
    o.cfg.*member = static_cast<T>(parse_uint(s, flag, lo, hi));
  };
  d.show = [member](const EngineOptions& o) { return std::to_string(o.cfg.*member); };
  return d;
}

/// A named selector member of EngineConfig: `by_name` maps a name to the value (usage_error naming
/// the option and the accepted names otherwise); the default shown is the current value's name.
template <class T>
OptionDef choice_field(std::string name, T EngineConfig::*member, T (*by_name)(const std::string&, const std::string&),
                       std::string accepted, std::string help, Commands commands, EngineScope engines = every_engine) {
  OptionDef d;
  d.name = name;
  d.kind = OptionKind::choice;
  d.type_name = std::move(accepted);
  d.commands = std::move(commands);
  d.engines = engines;
  d.help = std::move(help);
  d.parse = [member, by_name, flag = "--" + name](EngineOptions& o, const std::string& s) {
    o.cfg.*member = by_name(s, flag);
  };
  d.show = [member](const EngineOptions& o) { return std::string(to_string(o.cfg.*member)); };
  return d;
}

std::string classes_text(const EngineConfig& cfg, const ModelContext& ctx) {
  if (!cfg.classes) return "off (1)";
  if (ctx.topology == nullptr) return "each topology's own";
  const Topology& t = *ctx.topology;
  return fmt::format("{}", offers(t, cfg.routing) ? routing_classes(t, cfg.routing) : t.buffer_classes());
}

std::vector<OptionDef> make_builtin() {
  // Which subcommands take which options (locals: the table may be built during static
  // initialisation, from a file that registers an option).
  const Commands apps = {"app sort", "app stencil", "app run"};
  /// Commands that run machines with a traffic pattern or an application and choose the engine.
  const Commands engine_choosers = with({"run", "demo"}, apps);
  /// Every command that runs machines (sweep, os and os-stream: the cycle engine).
  const Commands machines = with({"run", "demo", "sweep", "os", "os-stream"}, apps);

  std::vector<OptionDef> v;

  // Choices and help from the driver registry (rica/engine.hpp engines()).
  std::string engine_help = "Engine: ", engine_names;
  const std::vector<EngineInfo> all = engines();
  for (std::size_t i = 0; i < all.size(); ++i) {
    engine_help += fmt::format("{}{} ({})", i == 0 ? "" : i + 1 == all.size() ? " or " : ", ", all[i].name, all[i].doc);
    engine_names += (i ? "|" : "") + all[i].name;
  }
  OptionDef engine = choice_field("engine", &EngineConfig::engine, &engine_kind_by_name, engine_names, engine_help,
                                  engine_choosers);
  engine.model = [](const EngineConfig& c, const ModelContext&) { return fmt::format("engine {}", to_string(c.engine)); };
  engine.model_place = 0;
  // rica app compares networks on one kernel: in cycles (deterministic, host-independent) unless
  // asked otherwise; the async engine's host nanoseconds vary with the host's load.
  for (const std::string& a : apps)
    engine.command_defaults[a] = {[](EngineOptions& o) { o.cfg.engine = EngineKind::cycle; },
                                  engine_help + " (rica app's default: cycle, so its comparison is in cycles)"};
  v.push_back(std::move(engine));

  OptionDef cycles = uint_field("cycles", &EngineConfig::cycles, 1, defaults::limits::cycles,
                                "Cycle engine: injection window in cycles", {"run", "demo", "sweep"}, clocked_engines);
  cycles.model = [](const EngineConfig& c, const ModelContext& ctx) {
    return ctx.window ? fmt::format("window {} cycles (warm-up {})", c.cycles, c.warmup) : std::string();
  };
  cycles.model_place = 5;
  v.push_back(std::move(cycles));

  // A sweep leaves a tenth of its window out unless given (the network fills before it is
  // measured): with the default window --help shows 1000, and --cycles 20000 makes it 2000.
  OptionDef warmup = uint_field("warmup", &EngineConfig::warmup, 0, defaults::limits::cycles - 1,
                                "Cycle engine: packets generated before this cycle are not measured (below --cycles)",
                                {"run", "demo", "sweep"}, clocked_engines);
  warmup.command_defaults["sweep"] = {
      [](EngineOptions& o) { o.cfg.warmup = o.cfg.cycles / defaults::sweep::warmup_divisor; },
      fmt::format("Cycle engine: packets generated before this cycle are not measured (below --cycles; default: "
                  "--cycles / {}) [0..{}]",
                  defaults::sweep::warmup_divisor, defaults::limits::cycles - 1)};
  v.push_back(std::move(warmup));

  OptionDef link;
  link.name = "link-cycles";
  link.kind = OptionKind::text;
  link.type_name = "degree|words|N";
  link.lo = 1;
  link.hi = defaults::limits::link_cycles;
  link.commands = with(machines, {"bound"});
  link.engines = link_timed_engines;
  link.help = fmt::format("Cycle engine: cycles per packet per link: degree (pin-limited: the sender's in + out degree), words or N (equal link bandwidth) [1..{}]",
                          defaults::limits::link_cycles);
  link.parse = [](EngineOptions& o, const std::string& s) { experiments::set_link_cycles(o.cfg, s, "--link-cycles"); };
  link.show = [](const EngineOptions& o) { return link_cycles_text(o.cfg); };
  link.model = [](const EngineConfig& c, const ModelContext& ctx) {
    return "link time " + link_model_text(c, ctx.topology);
  };
  link.model_place = 2;
  v.push_back(std::move(link));

  OptionDef timing = choice_field("timing", &EngineConfig::timing, &timing_by_name, "vct|saf",
                                  "Cycle engine: vct (virtual cut-through) or saf (store-and-forward)", machines,
                                  link_timed_engines);
  timing.model = [](const EngineConfig& c, const ModelContext&) { return fmt::format("timing {}", to_string(c.timing)); };
  timing.model_place = 1;
  v.push_back(std::move(timing));

  OptionDef arbitration = choice_field("arbitration", &EngineConfig::arbitration, &arbitration_by_name, "rr|oldest",
                                       "Cycle engine: output arbitration, rr (round robin) or oldest", machines,
                                       link_timed_engines);
  arbitration.model = [](const EngineConfig& c, const ModelContext&) {
    return fmt::format("arbitration {}", to_string(c.arbitration));
  };
  arbitration.model_place = 3;
  v.push_back(std::move(arbitration));

  // No default shown: the key enters a run's configuration only when given (0 is the model without
  // a router pipeline, so runs without it keep their configuration byte for byte). rica bound takes
  // it for the zero-load latency (the bound itself is a link's load).
  OptionDef router = uint_field("router-cycles", &EngineConfig::router_cycles, 0, defaults::limits::router_cycles,
                                "Cycle engine: router pipeline per hop, cycles a head waits at each node it reaches "
                                "(default 0: none)",
                                with(machines, {"bound"}), router_engines);
  router.shows_default = false;
  router.model = [](const EngineConfig& c, const ModelContext&) {
    return c.router_cycles != 0 ? fmt::format("router {} cycles per hop", c.router_cycles) : std::string();
  };
  router.model_place = 4;
  v.push_back(std::move(router));

  // Whether the topology offers it is checked when the machine is built (usage_error naming the
  // routings it offers).
  // Names and help generated from the routing declarations (all_routings, rica/engine.hpp).
  OptionDef routing = choice_field("routing", &EngineConfig::routing, &routing_by_name, routing_choices(),
                                   routing_help(),
                                   with({"run", "demo", "os", "os-stream"}, apps));  // sweep, bound: a list (command_options.cpp)
  routing.model = [](const EngineConfig& c, const ModelContext&) {
    return c.routing != Routing::deterministic ? fmt::format("routing {}", to_string(c.routing)) : std::string();
  };
  routing.model_place = 6;
  v.push_back(std::move(routing));

  v.push_back(uint_field("threads", &EngineConfig::threads, 0, defaults::limits::threads,
                         "Worker threads (0 = all cores)", with(machines, {"bound"})));

  // No default shown: the key enters a run's configuration only when given (docs/distributed.md).
  OptionDef split = choice_field("rank-split", &EngineConfig::rank_split, &rank_split_by_name, "blocks|partition",
                                 "Under mpirun: nodes per rank as blocks of the node numbering (default) or a partition",
                                 machines);
  split.shows_default = false;
  v.push_back(std::move(split));

  v.push_back(uint_field("seed", &EngineConfig::seed, 0, std::numeric_limits<std::uint64_t>::max(),
                         "Seed of every random choice", with(machines, {"bound", "embed"})));

  OptionDef buffers = uint_field("buffer-words", &EngineConfig::buffer_words, 1, defaults::limits::buffer_words,
                                 "Words per input port and buffer class (at least the longest packet)", machines);
  buffers.model = [](const EngineConfig& c, const ModelContext&) {
    return fmt::format("buffers {} words/port/class", c.buffer_words);
  };
  buffers.model_place = 7;
  v.push_back(std::move(buffers));

  OptionDef words;
  words.name = "packet-words";
  words.kind = OptionKind::text;
  words.type_name = "MEAN[:SPREAD]";
  words.lo = 1;
  words.hi = defaults::limits::packet_words;
  words.commands = with(machines, {"bound"});
  words.help = fmt::format("Packet length MEAN[:SPREAD] in words, uniform in MEAN +- SPREAD [MEAN 1..{}, SPREAD < MEAN]",
                           defaults::limits::packet_words);
  words.parse = [](EngineOptions& o, const std::string& s) { experiments::set_packet_words(o.cfg, s, "--packet-words"); };
  words.show = [](const EngineOptions& o) { return fmt::format("{}:{}", o.cfg.packet_words, o.cfg.packet_spread); };
  words.model = [](const EngineConfig& c, const ModelContext&) {
    return fmt::format("packets {}+-{} words", c.packet_words, c.packet_spread);
  };
  words.model_place = 8;
  v.push_back(std::move(words));

  OptionDef classes;
  classes.name = "no-classes";
  classes.kind = OptionKind::flag;
  classes.commands = {"run", "demo"};
  classes.help = "Disable buffer classes (deadlock demonstration)";
  classes.parse = [](EngineOptions& o, const std::string&) { o.no_classes = true; };
  classes.model = [](const EngineConfig& c, const ModelContext& ctx) { return "classes " + classes_text(c, ctx); };
  classes.model_place = 9;
  v.push_back(std::move(classes));

  v.push_back(uint_field("batch", &EngineConfig::batch, 1, defaults::limits::batch, "Packet moves per PE activation",
                         with({"run", "demo"}, apps)));

  OptionDef block = uint_field("block", &EngineConfig::block, 1, defaults::limits::block, "", with({"run", "demo"}, apps));
  block.help = fmt::format("PEs per scheduling block [a power of two, 1..{}]", defaults::limits::block);
  block.parse = [](EngineOptions& o, const std::string& s) {
    const auto b = parse_uint(s, "--block", 1, defaults::limits::block);
    if (!std::has_single_bit(b))
      throw usage_error(fmt::format("--block: {} is not a power of two in [1, {}]", b, defaults::limits::block));
    o.cfg.block = static_cast<unsigned>(b);
  };
  v.push_back(std::move(block));

  // Parsed once here into the typed spec (rica/faults.hpp); the text is kept for the reports.
  OptionDef faults;
  faults.name = "faults";
  faults.kind = OptionKind::text;
  faults.type_name = "TEXT";
  faults.commands = with({"run", "demo", "sweep", "os", "embed", "experiment"}, apps);
  faults.help = "Failed links and nodes (docs/faults.md): links=K, nodes=K (drawn from --seed), file:PATH, at=CYCLE "
                "(cycle engine: they fail during the run); comma-separated, e.g. links=4,nodes=1. An indirect "
                "network's links=K are drawn among switch-to-switch links (a fault file may name a terminal link)";
  faults.parse = [](EngineOptions& o, const std::string& s) {
    o.fault_spec = parse_fault_spec(s);  // usage_error naming --faults and what it accepts
    o.faults = s;
  };
  faults.show = [](const EngineOptions& o) { return o.faults; };
  v.push_back(std::move(faults));

  OptionDef trace;
  trace.name = "trace";
  trace.kind = OptionKind::file;
  trace.type_name = "FILE";
  trace.commands = {"run", "demo"};
  trace.configuration = false;
  trace.help = fmt::format("CSV: one row per delivered packet ({}) ('-' = standard output)", trace_header());
  trace.parse = [](EngineOptions& o, const std::string& s) {
    if (s != "-") check_output_file(s, "--trace");
    o.cfg.trace = s;
  };
  v.push_back(std::move(trace));
  return v;
}

}  // namespace

const std::vector<OptionDef>& builtin_options() {
  static const std::vector<OptionDef> v = make_builtin();
  return v;
}

Topology faulty_topology(const Topology& t, const EngineOptions& o, const EngineConfig& cfg) {
  return request::with_checked_faults(t, o.fault_spec, cfg);
}

std::string link_cycles_text(const EngineConfig& cfg) { return experiments::link_cycles_text(cfg); }

}  // namespace rica::cli
