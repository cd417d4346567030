// One parser and one validation per option concept (options.hpp).
#include "options.hpp"
#include "rica/footprint.hpp"
#include "rica/faults.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <limits>
#include <numeric>
#include <chrono>
#include <cmath>
#include <ctime>
#include <iostream>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "rica/suggest.hpp"
#include "rica/version.hpp"

#include <oneapi/tbb/global_control.h>

#include "rica/core.hpp"
#include "rica/defaults.hpp"
#include "rica/io.hpp"
#include "rica/routing.hpp"
#include "sweep.hpp"

namespace rica::cli {
namespace {

/// The long name of a CLI11 name list ("--topology,-t" -> "--topology"); a positional is named
/// "<sub> <name>" ("experiment <name>").
std::string flag_of(const CLI::App* c, const std::string& names) {
  if (!names.starts_with("-")) return fmt::format("{} <{}>", c->get_name(), names);
  std::size_t start = 0;
  while (start <= names.size()) {
    const auto comma = names.find(',', start);
    const std::string n = names.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (n.starts_with("--")) return n;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return names;
}

std::string bounds(std::uint64_t lo, std::uint64_t hi) { return fmt::format("{}..{}", lo, hi); }

/// Comma-separated items; an empty item or an empty list is refused naming `flag`.
std::vector<std::string> split_list(const std::string& text, const std::string& flag, const std::string& accepted) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty())
      throw usage_error(text.empty() ? fmt::format("{}: empty; give {}", flag, accepted)
                                     : fmt::format("{}: '{}' has an empty element; give {}", flag, text, accepted));
    out.push_back(std::move(item));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

// ---- Generic kinds --------------------------------------------------------------------------

CLI::Option* add_uint(CLI::App* c, const std::string& name, std::uint64_t& target, std::uint64_t lo,
                      std::uint64_t hi, const std::string& help) {
  const std::string flag = flag_of(c, name);
  return c
      ->add_option_function<std::string>(
          name, [&target, flag, lo, hi](const std::string& s) { target = parse_uint(s, flag, lo, hi); },
          fmt::format("{} [{}]", help, bounds(lo, hi)))
      ->default_str(std::to_string(target))
      ->type_name("UINT");
}

CLI::Option* add_uint(CLI::App* c, const std::string& name, unsigned& target, std::uint64_t lo, std::uint64_t hi,
                      const std::string& help) {
  const std::string flag = flag_of(c, name);
  hi = std::min<std::uint64_t>(hi, std::numeric_limits<unsigned>::max());
  return c
      ->add_option_function<std::string>(
          name,
          [&target, flag, lo, hi](const std::string& s) { target = static_cast<unsigned>(parse_uint(s, flag, lo, hi)); },
          fmt::format("{} [{}]", help, bounds(lo, hi)))
      ->default_str(std::to_string(target))
      ->type_name("UINT");
}

CLI::Option* add_uint(CLI::App* c, const std::string& name, std::optional<std::uint64_t>& target, std::uint64_t lo,
                      std::uint64_t hi, const std::string& help) {
  const std::string flag = flag_of(c, name);
  return c
      ->add_option_function<std::string>(
          name, [&target, flag, lo, hi](const std::string& s) { target = parse_uint(s, flag, lo, hi); },
          fmt::format("{} [{}]", help, bounds(lo, hi)))
      ->type_name("UINT");
}

CLI::Option* add_uint_list(CLI::App* c, const std::string& name, std::vector<std::uint64_t>& target,
                           std::uint64_t lo, std::uint64_t hi, const std::string& help) {
  const std::string flag = flag_of(c, name);
  std::string shown;
  for (auto v : target) shown += (shown.empty() ? "" : ",") + std::to_string(v);
  return c
      ->add_option_function<std::string>(
          name,
          [&target, flag, lo, hi](const std::string& s) {
            std::vector<std::uint64_t> v;
            for (const auto& item : split_list(s, flag, fmt::format("integers in [{}, {}] separated by commas", lo, hi)))
              v.push_back(parse_uint(item, flag, lo, hi));
            target = std::move(v);
          },
          fmt::format("{} [each {}]", help, bounds(lo, hi)))
      ->default_str(shown)
      ->type_name("N,...");
}

CLI::Option* add_name_list(CLI::App* c, const std::string& name, std::vector<std::string>& target,
                           const std::string& help) {
  const std::string flag = flag_of(c, name);
  std::string shown;
  for (const auto& v : target) shown += (shown.empty() ? "" : ",") + v;
  auto* o = c->add_option_function<std::string>(
      name, [&target, flag](const std::string& s) { target = split_list(s, flag, "names separated by commas"); },
      help);
  o->type_name("NAME,...");
  if (!shown.empty()) o->default_str(shown);
  return o;
}

CLI::Option* add_text(CLI::App* c, const std::string& name, std::string& target, const std::string& help,
                      const std::string& accepted) {
  const std::string flag = flag_of(c, name);
  auto* o = c->add_option_function<std::string>(
      name,
      [&target, flag, accepted](const std::string& s) {
        if (s.empty()) throw usage_error(fmt::format("{}: empty; accepted: {}", flag, accepted));
        target = s;
      },
      help);
  if (!target.empty()) o->default_str(target);
  return o;
}

CLI::Option* add_text(CLI::App* c, const std::string& name, std::vector<std::string>& target,
                      const std::string& help, const std::string& accepted) {
  const std::string flag = flag_of(c, name);
  std::string shown;
  for (const auto& v : target) shown += (shown.empty() ? "" : " ") + v;
  auto* o = c->add_option_function<std::vector<std::string>>(
      name,
      [&target, flag, accepted](const std::vector<std::string>& v) {
        for (const auto& s : v)
          if (s.empty()) throw usage_error(fmt::format("{}: empty value; accepted: {}", flag, accepted));
        target = v;
      },
      help);
  if (!shown.empty()) o->default_str(shown);
  return o;
}

CLI::Option* add_output_file(CLI::App* c, const std::string& name, std::string& target, const std::string& help,
                             bool stdout_ok) {
  const std::string flag = flag_of(c, name);
  return c
      ->add_option_function<std::string>(
          name,
          [&target, flag, stdout_ok](const std::string& s) {
            if (s == "-" && !stdout_ok)
              throw usage_error(fmt::format("{}: '-' (standard output) is not accepted here; give a file name", flag));
            if (s != "-") check_output_file(s, flag);
            target = s;
          },
          stdout_ok ? help + " ('-' = standard output)" : help)
      ->type_name("FILE");
}

void check_distinct_outputs(const std::vector<Output>& outputs) {
  namespace fs = std::filesystem;
  // Each output's identity: "-" for standard output, else its resolved path; devices have none.
  std::vector<std::pair<const Output*, fs::path>> seen;
  for (const Output& out : outputs) {
    if (out.path.empty()) continue;
    std::error_code ec;
    if (out.path != "-" && fs::exists(out.path, ec) && !fs::is_regular_file(out.path, ec)) continue;
    fs::path id = out.path == "-" ? fs::path("-") : fs::weakly_canonical(fs::absolute(out.path, ec), ec);
    if (ec) id = fs::absolute(out.path, ec).lexically_normal();
    for (const auto& [other, other_id] : seen) {
      std::error_code eq;
      const bool same = id == other_id || (id != "-" && other_id != "-" && fs::equivalent(id, other_id, eq));
      if (!same) continue;
      if (id == "-")
        throw usage_error(fmt::format("{} and {} both write to standard output ('-'); give one of them a file",
                                      other->option, out.option));
      throw usage_error(fmt::format("{} and {} both name the file '{}'; give each output its own file",
                                    other->option, out.option, out.path));
    }
    seen.emplace_back(&out, id);
  }
}

std::vector<Output> dir_outputs(const std::string& dir, const std::vector<std::string>& files) {
  std::vector<Output> out;
  if (!dir.empty())
    for (const auto& f : files) out.push_back({fmt::format("--out ({})", f), dir + "/" + f});
  return out;
}

CLI::Option* add_output_dir(CLI::App* c, const std::string& name, std::string& target, const std::string& help) {
  const std::string flag = flag_of(c, name);
  auto* o = c->add_option_function<std::string>(
      name,
      [&target, flag](const std::string& s) {
        if (s.empty()) throw usage_error(fmt::format("{}: empty directory name; give a directory to write to", flag));
        std::error_code ec;
        if (std::filesystem::exists(s, ec) && !std::filesystem::is_directory(s, ec))
          throw usage_error(fmt::format("{}: '{}' exists and is not a directory", flag, s));
        target = s;
      },
      help);
  o->type_name("DIR");
  if (!target.empty()) o->default_str(target);
  return o;
}

// ---- Option concepts --------------------------------------------------------------------------

/// A named selector option (`parse` maps a name to the value, throwing usage_error naming the
/// option and the accepted names); the default shown is the current value's name.
template <class T, class Parse>
CLI::Option* add_selector(CLI::App* c, const std::string& name, T& target, Parse parse, const std::string& help,
                          const std::string& accepted) {
  return c
      ->add_option_function<std::string>(
          name, [&target, parse, name](const std::string& s) { target = parse(s, name); }, help)
      ->default_str(to_string(target))
      ->type_name(accepted);
}

CLI::Option* add_engine(CLI::App* c, EngineKind& target) {
  // Choices and help from the driver registry (rica/engine.hpp engines()).
  std::string help = "Engine: ", names;
  const std::vector<EngineInfo> all = engines();
  for (std::size_t i = 0; i < all.size(); ++i) {
    help += fmt::format("{}{} ({})", i == 0 ? "" : i + 1 == all.size() ? " or " : ", ", all[i].name, all[i].doc);
    names += (i ? "|" : "") + all[i].name;
  }
  return add_selector(c, "--engine", target, engine_kind_by_name, help, names);
}

CLI::Option* add_timing(CLI::App* c, Timing& target) {
  return add_selector(c, "--timing", target, timing_by_name,
                      "Cycle engine: vct (virtual cut-through) or saf (store-and-forward)", "vct|saf");
}

CLI::Option* add_arbitration(CLI::App* c, Arbitration& target) {
  return add_selector(c, "--arbitration", target, arbitration_by_name,
                      "Cycle engine: output arbitration, rr (round robin) or oldest", "rr|oldest");
}

CLI::Option* add_router_cycles(CLI::App* c, unsigned& target) {
  // No default shown: the key enters a run's configuration only when given (0 is today's model, so
  // runs without it keep their configuration byte for byte).
  return add_uint(c, "--router-cycles", target, 0, defaults::limits::router_cycles,
                  "Cycle engine: router pipeline per hop, cycles a head waits at each node it reaches "
                  "(default 0: none)")
      ->default_str("");
}

CLI::Option* add_routing(CLI::App* c, Routing& target) {
  return add_selector(c, "--routing", target, routing_by_name,
                      "Routing: deterministic (the topology's route), adaptive (candidates + escape), or the "
                      "dragonfly's valiant, ugal-l, ugal-g and par; `rica list` names the topologies that offer each",
                      "deterministic|adaptive|valiant|ugal-l|ugal-g|par");
}

CLI::Option* add_threads(CLI::App* c, unsigned& target, const std::string& help) {
  return add_uint(c, "--threads", target, 0, defaults::limits::threads, help);
}

CLI::Option* add_seed(CLI::App* c, std::uint64_t& target, const std::string& help) {
  return add_uint(c, "--seed", target, 0, std::numeric_limits<std::uint64_t>::max(), help);
}

CLI::Option* add_buffer_words(CLI::App* c, unsigned& target) {
  return add_uint(c, "--buffer-words", target, 1, defaults::limits::buffer_words,
                  "Words per input port and buffer class (at least the longest packet)");
}

CLI::Option* add_packet_words(CLI::App* c, EngineConfig& target) {
  return c
      ->add_option_function<std::string>(
          "--packet-words",
          [&target](const std::string& s) { experiments::set_packet_words(target, s, "--packet-words"); },
          fmt::format("Packet length MEAN[:SPREAD] in words, uniform in MEAN +- SPREAD [MEAN 1..{}, SPREAD < MEAN]",
                      defaults::limits::packet_words))
      ->default_str(fmt::format("{}:{}", target.packet_words, target.packet_spread))
      ->type_name("MEAN[:SPREAD]");
}

CLI::Option* add_link_cycles(CLI::App* c, EngineConfig& target) {
  return c
      ->add_option_function<std::string>(
          "--link-cycles",
          [&target](const std::string& s) { experiments::set_link_cycles(target, s, "--link-cycles"); },
          fmt::format("Cycle engine: cycles per packet per link: degree (sender's in + out degree), words, or N "
                      "[1..{}]",
                      defaults::limits::link_cycles))
      ->default_str(link_cycles_text(target))
      ->type_name("degree|words|N");
}

CLI::Option* add_batch(CLI::App* c, unsigned& target) {
  return add_uint(c, "--batch", target, 1, defaults::limits::batch, "Packet moves per PE activation");
}

CLI::Option* add_block(CLI::App* c, unsigned& target) {
  return c
      ->add_option_function<std::string>(
          "--block",
          [&target](const std::string& s) {
            const auto v = parse_uint(s, "--block", 1, defaults::limits::block);
            if (!std::has_single_bit(v))
              throw usage_error(fmt::format("--block: {} is not a power of two in [1, {}]", v, defaults::limits::block));
            target = static_cast<unsigned>(v);
          },
          fmt::format("PEs per scheduling block [a power of two, 1..{}]", defaults::limits::block))
      ->default_str(std::to_string(target))
      ->type_name("UINT");
}

CLI::Option* add_cycles(CLI::App* c, std::uint64_t& target, const std::string& help) {
  return add_uint(c, "--cycles", target, 1, defaults::limits::cycles, help);
}
CLI::Option* add_cycles(CLI::App* c, std::optional<std::uint64_t>& target, const std::string& help) {
  return add_uint(c, "--cycles", target, 1, defaults::limits::cycles, help);
}

CLI::Option* add_warmup(CLI::App* c, std::uint64_t& target) {
  return add_uint(c, "--warmup", target, 0, defaults::limits::cycles - 1,
                  "Cycle engine: packets generated before this cycle are not measured (below --cycles)");
}

CLI::Option* add_packets(CLI::App* c, std::optional<std::uint64_t>& target, const std::string& help) {
  return add_uint(c, "--packets", target, 1, defaults::limits::packets, help);
}
CLI::Option* add_packets(CLI::App* c, std::uint64_t& target, const std::string& help) {
  return add_uint(c, "--packets", target, 1, defaults::limits::packets, help);
}

CLI::Option* add_rate(CLI::App* c, double& target) {
  return c
      ->add_option_function<std::string>(
          "--rate", [&target](const std::string& s) { target = parse_real(s, "--rate", 0.0, 1.0, true); },
          "Injection probability per PE per opportunity (0..1]")
      ->default_str(fmt::format("{}", target))
      ->type_name("RATE");
}

CLI::Option* add_rates(CLI::App* c, const std::string& name, std::vector<double>& target, const std::string& help,
                       bool* auto_rates) {
  const std::string flag = flag_of(c, name);
  std::string shown;
  for (double r : target) shown += fmt::format("{}{:g}", shown.empty() ? "" : ",", r);
  return c
      ->add_option_function<std::string>(
          name,
          [&target, flag, auto_rates](const std::string& s) {
            if (auto_rates) *auto_rates = s == "auto";
            if (auto_rates && s == "auto") return;
            try {
              target = experiments::parse_rates(s, flag);
            } catch (const usage_error& e) {
              if (!auto_rates) throw;
              throw usage_error(std::string(e.what()) + ", or auto (placed by the channel-load bound)");
            }
          },
          fmt::format("{}: FROM:TO:STEP (at most {} points) or a comma list, each in (0, 1]{}", help,
                      defaults::limits::rates,
                      auto_rates ? "; auto = up to past the channel-load bound (rica bound), refined near the knee"
                                 : ""))
      ->default_str(shown)
      ->type_name("RATES");
}

CLI::Option* add_source_queue(CLI::App* c, unsigned& target) {
  return add_uint(c, "--source-queue", target, 0, defaults::traffic::source_queue_max,
                  "Open-loop sources stop generating while N of their packets wait to enter the network "
                  "(0 = unbounded, cycle engine only)");
}

CLI::Option* add_burst(CLI::App* c, double& on, double& off) {
  return c
      ->add_option_function<std::string>(
          "--burst",
          [&on, &off](const std::string& s) {
            const auto colon = s.find(':');
            if (colon == std::string::npos)
              throw usage_error(fmt::format("--burst: '{}' is not ON:OFF (mean on and off periods in cycles, each >= 1)", s));
            on = parse_real(s.substr(0, colon), "--burst ON", 1.0, 1e9, false);
            off = parse_real(s.substr(colon + 1), "--burst OFF", 1.0, 1e9, false);
          },
          "On/off (Markov-modulated) sources: mean on and off periods in injection opportunities, e.g. 20:80 "
          "(each 1..1e9; while on, inject with probability --rate)")
      ->type_name("ON:OFF");
}

CLI::Option* add_seeds(CLI::App* c, unsigned& target) {
  return add_uint(c, "--seeds", target, 1, 1000,
                  "Runs per point, seeds --seed .. --seed+K-1; figures as mean and 95% confidence interval");
}

void check_seeds(std::uint64_t seed, unsigned seeds) {
  if (seeds > 1 && seed > std::numeric_limits<std::uint64_t>::max() - (seeds - 1))
    throw usage_error(fmt::format("--seed/--seeds: --seed {} with --seeds {} runs past the largest seed {} (the "
                                  "last run would wrap to seed {}); give --seed at most {} or fewer --seeds",
                                  seed, seeds, std::numeric_limits<std::uint64_t>::max(), seed + (seeds - 1),
                                  std::numeric_limits<std::uint64_t>::max() - (seeds - 1)));
}

double student_t95(std::size_t df) {
  static constexpr double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                 2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                 2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  return df >= 1 && df <= 30 ? t[df - 1] : 1.96;
}

std::pair<double, double> mean_ci95(const std::vector<double>& v) {
  if (v.empty()) return {0.0, 0.0};
  const double n = static_cast<double>(v.size());
  double sum = 0;
  for (double x : v) sum += x;
  const double mean = sum / n;
  if (v.size() < 2) return {mean, 0.0};
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return {mean, student_t95(v.size() - 1) * std::sqrt(ss / (n - 1)) / std::sqrt(n)};
}

CLI::Option* add_telemetry(CLI::App* c, std::optional<std::uint64_t>& target) {
  return add_uint(c, "--telemetry", target, 1, defaults::limits::cycles,
                  fmt::format("Telemetry over time per window of W cycles (cycle engine) or W microseconds "
                              "(async engine, at least {}; the world stops at each window's end), e.g. {}: per "
                              "window injected, delivered, latency, occupancy, per link and class (CSV beside "
                              "--csv or --json; docs/runtime.md)",
                              defaults::telemetry::async_min_window_us, defaults::telemetry::window))
      ->type_name("W");
}

void check_telemetry(const std::optional<std::uint64_t>& window, EngineKind engine) {
  if (!window) return;
  require_trait(engine, &EngineTraits::windows, "--telemetry", "has no windows");
  if (!engine_traits(engine).virtual_clock && *window < defaults::telemetry::async_min_window_us)
    throw usage_error(fmt::format("--telemetry = {} is out of range on the {} engine: a window of W microseconds "
                                  "takes W in [{}, 2^31]",
                                  *window, to_string(engine), defaults::telemetry::async_min_window_us));
}

void add_trace_events(CLI::App* c, std::string& path, std::uint64_t& packets) {
  add_output_file(c, "--trace-events", path,
                  "Cycle engine: Chrome trace-event JSON of the run (Perfetto, chrome://tracing): sampled packets' "
                  "journeys as flows across nodes, OS halts and switches as slices (docs/runtime.md)");
  add_uint(c, "--trace-events-packets", packets, 1, defaults::trace_events::max_packets,
           "Packets --trace-events follows hop by hop: the first N to enter the network after the warm-up")
      ->type_name("N");
}

void check_trace_events(const std::string& path, EngineKind engine) {
  if (!path.empty()) require_trait(engine, &EngineTraits::virtual_clock, "--trace-events", "has no cycle-by-cycle view");
}

CLI::Option* add_jobs(CLI::App* c, unsigned& target, const std::string& help) {
  return add_uint(c, "--jobs", target, 0, defaults::limits::jobs, help);
}

// ---- Engine options ----------------------------------------------------------------------------

bool EngineOptions::given(const std::string& name) const {
  const auto it = declared.find(name);
  return it != declared.end() && it->second->count() > 0;
}

void add_engine_options(CLI::App* c, EngineOptions& o, unsigned which) {
  EngineConfig& cfg = o.cfg;
  auto keep = [&](const std::string& name, CLI::Option* opt) { o.declared[name] = opt; };
  if (which & opt_engine) keep("--engine", add_engine(c, cfg.engine));
  if (which & opt_window) {
    keep("--cycles", add_cycles(c, cfg.cycles, "Cycle engine: injection window in cycles"));
    keep("--warmup", add_warmup(c, cfg.warmup));
  }
  if (which & opt_link_cycles) keep("--link-cycles", add_link_cycles(c, cfg));
  if (which & opt_timing) {
    keep("--timing", add_timing(c, cfg.timing));
    keep("--arbitration", add_arbitration(c, cfg.arbitration));
    keep("--router-cycles", add_router_cycles(c, cfg.router_cycles));
  }
  if (which & opt_routing) keep("--routing", add_routing(c, cfg.routing));
  if (which & opt_threads) {
    keep("--threads", add_threads(c, cfg.threads));
    // No default shown: the key enters a run's configuration only when given (docs/distributed.md).
    keep("--rank-split",
         c->add_option_function<std::string>(
              "--rank-split", [&cfg](const std::string& s) { cfg.rank_split = rank_split_by_name(s, "--rank-split"); },
              "Under mpirun: nodes per rank as blocks of the node numbering (default) or a partition")
             ->type_name("blocks|partition"));
  }
  if (which & opt_seed) keep("--seed", add_seed(c, cfg.seed));
  if (which & opt_buffers) keep("--buffer-words", add_buffer_words(c, cfg.buffer_words));
  if (which & opt_packet_words) keep("--packet-words", add_packet_words(c, cfg));
  if (which & opt_classes)
    keep("--no-classes", c->add_flag("--no-classes", o.no_classes, "Disable buffer classes (deadlock demonstration)"));
  if (which & opt_schedule) {
    keep("--batch", add_batch(c, cfg.batch));
    keep("--block", add_block(c, cfg.block));
  }
  if (which & opt_faults)
    keep("--faults", c->add_option_function<std::string>(
                         "--faults",
                         [&o](const std::string& v) {
                           (void)parse_fault_spec(v);  // usage_error naming --faults and what it accepts
                           o.faults = v;
                         },
                         "Failed links and nodes (docs/faults.md): links=K, nodes=K (drawn from --seed), file:PATH, "
                         "at=CYCLE (cycle engine: they fail during the run); comma-separated, e.g. links=4,nodes=1"));
  if (which & opt_trace)
    keep("--trace", add_output_file(c, "--trace", cfg.trace,
                                    "CSV: one row per delivered packet (src,dst,seq,inject,deliver,hops)", true));
}

EngineConfig engine_config(const EngineOptions& o) {
  EngineConfig cfg = o.cfg;
  // Options only some engines read: refused with the others (the traits say which).
  for (const auto& [name, trait] : {std::pair{"--cycles", &EngineTraits::virtual_clock},
                                    std::pair{"--warmup", &EngineTraits::virtual_clock},
                                    std::pair{"--link-cycles", &EngineTraits::link_timing},
                                    std::pair{"--timing", &EngineTraits::link_timing},
                                    std::pair{"--arbitration", &EngineTraits::link_timing},
                                    std::pair{"--router-cycles", &EngineTraits::router_cycles}})
    if (o.given(name)) require_trait(cfg.engine, trait, name);
  if (cfg.threads == 0) cfg.threads = std::max(1u, std::thread::hardware_concurrency());
  cfg.classes = !o.no_classes;
  validate(cfg);
  return cfg;
}

Topology faulty_topology(const Topology& t, const EngineOptions& o, const EngineConfig& cfg) {
  if (o.faults.empty()) return t;
  if (cfg.routing != Routing::deterministic && parse_fault_spec(o.faults).at)
    throw usage_error(fmt::format("--faults: at=CYCLE with --routing {}: the routing changes at the failure and only "
                                  "the table rerouting follows it; drop at= or --routing {}",
                                  to_string(cfg.routing), to_string(cfg.routing)));
  if (parse_fault_spec(o.faults).at)
    require_trait(cfg.engine, &EngineTraits::timed_faults, "--faults at=CYCLE", "has no clock");
  return with_faults(t, o.faults, cfg.seed);
}

std::string link_cycles_text(const EngineConfig& cfg) { return experiments::link_cycles_text(cfg); }

std::string engine_echo(const EngineConfig& cfg) {
  std::string s = fmt::format("--engine {}", to_string(cfg.engine));
  const EngineTraits& traits = engine_traits(cfg.engine);
  if (traits.virtual_clock) s += fmt::format(" --cycles {} --warmup {}", cfg.cycles, cfg.warmup);
  if (traits.link_timing)
    s += fmt::format(" --link-cycles {} --timing {} --arbitration {}", link_cycles_text(cfg), to_string(cfg.timing),
                     to_string(cfg.arbitration));
  if (cfg.router_cycles != 0) s += fmt::format(" --router-cycles {}", cfg.router_cycles);
  s += fmt::format(" --threads {} --seed {} --buffer-words {} --packet-words {}:{} --batch {} --block {}", cfg.threads,
                   cfg.seed, cfg.buffer_words, cfg.packet_words, cfg.packet_spread, cfg.batch, cfg.block);
  if (!cfg.classes) s += " --no-classes";
  if (cfg.routing != Routing::deterministic) s += fmt::format(" --routing {}", to_string(cfg.routing));
  if (!cfg.trace.empty()) s += fmt::format(" --trace {}", cfg.trace);
  return s;
}

// ---- Runs over MPI ranks -----------------------------------------------------------------------

namespace {
template <class T>
T max_of(const std::vector<T>& v) {
  return v.empty() ? T{} : *std::max_element(v.begin(), v.end());
}
template <class T>
T sum_of(const std::vector<T>& v) {
  return std::accumulate(v.begin(), v.end(), T{});
}
}  // namespace

nlohmann::json distributed_json(const RunStats& st, const EngineConfig& cfg) {
  return {{"ranks", st.ranks},
          {"threads_per_rank", cfg.threads},
          {"split", st.rank_split},
          {"links", st.links},
          {"cut_links", st.cut_links},
          {"hops", st.hops},
          {"cross_rank_hops", st.cross_rank_hops},
          {"cross_rank_share", st.hops ? static_cast<double>(st.cross_rank_hops) / static_cast<double>(st.hops) : 0.0},
          {"batches", st.rank_batches},
          {"peak_rss_kb_per_rank", st.rank_peak_rss_kb},
          {"peak_rss_kb_max", max_of(st.rank_peak_rss_kb)},
          {"peak_rss_kb_sum", sum_of(st.rank_peak_rss_kb)},
          {"mpi_wait_share",
           {{"max", max_of(st.rank_mpi_wait_share)},
            {"mean", st.rank_mpi_wait_share.empty() ? 0.0
                                                     : sum_of(st.rank_mpi_wait_share) /
                                                           static_cast<double>(st.rank_mpi_wait_share.size())},
            {"per_rank", st.rank_mpi_wait_share}}}};
}

void print_distributed(const RunStats& st, const EngineConfig& cfg) {
  fmt::print("ranks         {} ranks x {} thread{} ({}); links cut {} of {} ({:.1f}%); hops across ranks {} of {} "
             "({:.1f}%)\n",
             st.ranks, cfg.threads, cfg.threads == 1 ? "" : "s", st.rank_split, st.cut_links, st.links,
             st.links ? 100.0 * static_cast<double>(st.cut_links) / static_cast<double>(st.links) : 0.0,
             st.cross_rank_hops, st.hops,
             st.hops ? 100.0 * static_cast<double>(st.cross_rank_hops) / static_cast<double>(st.hops) : 0.0);
  if (st.rank_batches)  // the async engine's bridges: packets and credits travel in batches per rank
    fmt::print("  batches     {} messages between ranks, {:.1f} packets each on average\n", st.rank_batches,
               static_cast<double>(st.cross_rank_hops) / static_cast<double>(st.rank_batches));
  const double n = static_cast<double>(std::max<std::size_t>(1, st.rank_mpi_wait_share.size()));
  fmt::print("ranks         time in MPI {:.1f}% max, {:.1f}% mean; peak RSS per rank {:.1f} MB max, {:.1f} MB "
             "all ranks\n",
             100.0 * max_of(st.rank_mpi_wait_share), 100.0 * sum_of(st.rank_mpi_wait_share) / n,
             static_cast<double>(max_of(st.rank_peak_rss_kb)) / 1024, static_cast<double>(sum_of(st.rank_peak_rss_kb)) / 1024);
}

// ---- Shared presentation options ---------------------------------------------------------------

namespace {
/// --quiet and --progress exclude each other: called with the one just declared.
CLI::Option* exclude_quiet_progress(CLI::App* c, CLI::Option* declared, const std::string& other) {
  if (CLI::Option* o = c->get_option_no_throw(other)) declared->excludes(o);
  return declared;
}
}  // namespace

CLI::Option* add_quiet(CLI::App* c, bool& target) {
  return exclude_quiet_progress(
      c, c->add_flag("--quiet", target, "No progress, configuration echo or header (results are still written)"),
      "--progress");
}

CLI::Option* add_json(CLI::App* c, std::string& target, const std::string& help) {
  const std::string flag = "--json";
  return c
      ->add_option_function<std::string>(
          flag,
          [&target, flag](const std::string& s) {
            if (s != "-") check_output_file(s, flag);
            target = s;
          },
          help + " ('-' = standard output)")
      ->type_name("FILE");
}

ThreadLimit::ThreadLimit(unsigned requested)
    : threads(requested ? requested : std::max(1u, std::thread::hardware_concurrency())),
      control_(new tbb::global_control(tbb::global_control::max_allowed_parallelism, threads)) {}
ThreadLimit::~ThreadLimit() { delete static_cast<tbb::global_control*>(control_); }

void write_json(const std::string& path, const nlohmann::json& j) {
  if (path == "-")
    std::cout << j.dump(2) << "\n";
  else
    write_text_file(path, j.dump(2) + "\n", "--json");
}

// ---- Memory guard -------------------------------------------------------------------------------------

// check_memory_for, check_run_memory: rica/footprint.hpp (runtime/machine/machine.cpp).

// ---- Progress ---------------------------------------------------------------------------------------

CLI::Option* add_progress(CLI::App* c, bool& target) {
  return exclude_quiet_progress(
      c, c->add_flag("--progress", target, "Show progress even when standard error is not a terminal"), "--quiet");
}

// ---- Provenance and configuration files ---------------------------------------------------------
namespace {
std::vector<std::string>& invocation_words() {
  static std::vector<std::string> words;
  return words;
}
std::string& invocation_time() {
  static std::string t;
  return t;
}

/// Options that are outputs or presentation, not configuration.
bool is_presentation(const std::string& key) {
  static const char* const keys[] = {"json", "csv", "trace", "dot", "out", "quiet", "progress", "no-plot", "config", "help",
                                     "telemetry", "trace-events", "trace-events-packets", "strict-config"};
  return std::find_if(std::begin(keys), std::end(keys), [&](const char* k) { return key == k; }) != std::end(keys);
}

/// The config key of an option: its first long name, or a positional's name.
std::string key_of(const CLI::Option* o) {
  if (!o->get_lnames().empty()) return o->get_lnames().front();
  return o->get_name();
}

/// A config value as JSON: digits -> integer, digits.digits -> decimal, else the text.
nlohmann::json typed(const std::string& v) {
  if (!v.empty() && v.size() <= 19 && std::all_of(v.begin(), v.end(), [](char ch) { return ch >= '0' && ch <= '9'; }) &&
      (v == "0" || v[0] != '0'))
    return std::stoull(v);
  const auto dot = v.find('.');
  if (dot != std::string::npos && dot > 0 && dot + 1 < v.size() && v.size() < 24 &&
      std::all_of(v.begin(), v.end(), [](char ch) { return (ch >= '0' && ch <= '9') || ch == '.'; }) &&
      v.find('.', dot + 1) == std::string::npos)
    return std::stod(v);
  return v;
}

/// The text of a config value for the command line.
std::string word_of(const nlohmann::json& v, const std::string& key) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_unsigned()) return std::to_string(v.get<std::uint64_t>());
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  if (v.is_number_float()) return v.dump();
  throw usage_error(fmt::format("--config: key '{}' has a {} value; give a string, a number, a boolean or an array",
                                key, v.type_name()));
}

/// The subcommand an argument list selects (nested: "app sort"), and where its arguments start.
std::pair<CLI::App*, std::size_t> selected_subcommand(CLI::App& app, const std::vector<std::string>& args) {
  CLI::App* cur = &app;
  std::size_t i = 0;
  while (i < args.size()) {
    CLI::App* sub = nullptr;
    try {
      sub = cur->get_subcommand(args[i]);
    } catch (const CLI::OptionNotFound&) {
      break;
    }
    if (sub == nullptr) break;
    cur = sub;
    ++i;
  }
  return {cur, i};
}
}  // namespace

void set_invocation(int argc, char** argv) {
  auto& w = invocation_words();
  w.assign(argv, argv + argc);
  if (!w.empty()) w[0] = "rica";
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  invocation_time() = buf;
}

std::string shell_quote(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=:,./@%") ==
                           std::string::npos)
    return word;
  std::string q = "'";
  for (char ch : word) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

std::string command_line() {
  std::string s;
  for (const auto& w : invocation_words()) {
    if (!s.empty()) s.push_back(' ');
    s.append(shell_quote(w));
  }
  return s;
}

std::string start_time() { return invocation_time(); }

CLI::Option* add_config(CLI::App* c) {
  c->add_flag("--strict-config")->description(
      "With --config: refuse keys this command does not take (by default they are listed on stderr and "
      "skipped, so any command's JSON report seeds any other)");
  return c
      ->add_option_function<std::string>(
          "--config", [](const std::string&) {},
          "JSON (or .toml) file of options (keys = option names without leading dashes, dashed or snake_case; "
          "any rica JSON report's 'config' works); the command line overrides it")
      ->type_name("FILE");
}

namespace {
void (*command_table)(CLI::App&, int&) = nullptr;  // set once, before main (cli_main.cpp)

std::vector<std::string> collect_config_keys() {
  if (command_table == nullptr) return {};
  CLI::App app{"rica"};
  int status = 0;
  command_table(app, status);
  std::vector<std::string> keys;
  std::vector<CLI::App*> todo{&app};
  while (!todo.empty()) {
    CLI::App* a = todo.back();
    todo.pop_back();
    for (CLI::App* sub : a->get_subcommands([](CLI::App*) { return true; })) todo.push_back(sub);
    for (const CLI::Option* o : a->get_options()) keys.push_back(key_of(o));
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}
}  // namespace

bool set_command_table(void (*add_all)(CLI::App&, int&)) {
  command_table = add_all;
  return true;
}

const std::vector<std::string>& config_keys() {
  static const std::vector<std::string> keys = collect_config_keys();  // thread-safe once
  return keys;
}

std::vector<std::string> apply_config(CLI::App& app, std::vector<std::string> args) {
  auto [sub, start] = selected_subcommand(app, args);
  std::string file;
  bool found = false;
  for (std::size_t i = start; i < args.size(); ++i) {
    if (args[i] == "--config") {
      if (i + 1 >= args.size()) throw usage_error("--config: give a JSON file of options");
      file = args[i + 1];
      found = true;
    } else if (args[i].starts_with("--config=")) {
      file = args[i].substr(9);
      found = true;
    }
  }
  if (!found) return args;
  if (sub == &app) throw usage_error("--config: name a subcommand first, e.g. rica run --config FILE");
  if (file.empty()) throw usage_error("--config: empty file name; give a JSON file of options");
  const std::string text = read_text_file(file, "--config", {std::uint64_t{64} << 20, std::uint64_t{64} << 20});
  nlohmann::json j;
  if (file.ends_with(".toml")) {
    // TOML (CLI11's reader): top-level `key = value` lines; arrays as [a, b]; sections refused.
    std::istringstream in(text);
    std::vector<CLI::ConfigItem> items;
    try {
      items = CLI::ConfigTOML().from_config(in);
    } catch (const CLI::Error& e) {
      throw usage_error(fmt::format("--config: '{}' is not TOML ({})", file, e.what()));
    }
    j = nlohmann::json::object();
    for (const auto& item : items) {
      if (item.name == "++" || item.name == "--") continue;
      if (!item.parents.empty())
        throw usage_error(fmt::format("--config: '{}': section [{}] is not accepted; give top-level keys", file,
                                      fmt::join(item.parents, ".")));
      if (item.inputs.size() == 1 && (item.inputs[0] == "true" || item.inputs[0] == "false"))
        j[item.name] = item.inputs[0] == "true";
      else if (item.inputs.size() == 1)
        j[item.name] = item.inputs[0];
      else
        j[item.name] = item.inputs;
    }
  } else {
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      std::string why = e.what();
      throw usage_error(fmt::format("--config: '{}' is not JSON ({})", file, why.substr(0, why.find('\n'))));
    }
  }
  if (j.is_object() && j.contains("config") && j.contains("rica_version")) {
    // A report of a command without --engine (sweep: the cycle engine always) names its engine in
    // "model": it seeds --engine of a command that has one.
    const nlohmann::json model = j.value("model", nlohmann::json::object());
    j = nlohmann::json(j["config"]);
    if (j.is_object() && !j.contains("engine") && model.is_object() && model.contains("engine") &&
        model["engine"].is_string())
      j["engine"] = model["engine"];
  }
  if (!j.is_object()) throw usage_error(fmt::format("--config: '{}' is not a JSON object of options", file));
  const std::string path = sub->get_parent() && sub->get_parent()->get_parent()
                               ? sub->get_parent()->get_name() + " " + sub->get_name()
                               : sub->get_name();
  // Words of the command line after the subcommand: which options and positionals it gives.
  std::vector<std::string> tail(args.begin() + static_cast<std::ptrdiff_t>(start), args.end());
  auto given_option = [&](const CLI::Option* o) {
    for (const auto& w : tail) {
      for (const auto& l : o->get_lnames())
        if (w == "--" + l || w.starts_with("--" + l + "=")) return true;
      for (const auto& sn : o->get_snames())
        if (w == "-" + sn || (w.size() > 2 && w.starts_with("-" + sn) && w[1] != '-')) return true;
    }
    return false;
  };
  std::size_t free_words = 0;
  for (std::size_t i = 0; i < tail.size(); ++i) {
    const std::string& w = tail[i];
    if (w.size() > 1 && w[0] == '-') {
      if (w.find('=') != std::string::npos) continue;
      const CLI::Option* o = nullptr;
      try {
        o = sub->get_option_no_throw(w);
      } catch (...) {
        o = nullptr;
      }
      if (o && o->get_expected_max() > 0) ++i;  // its value
      continue;
    }
    ++free_words;
  }
  const bool strict = std::find(tail.begin(), tail.end(), "--strict-config") != tail.end();
  std::vector<std::string> positional, named, skipped;
  for (const auto& [key, value] : j.items()) {
    if (value.is_null()) continue;
    // Dashed and snake_case keys alike: "buffer_words" is --buffer-words.
    std::string dashed = key;
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    const CLI::Option* o = sub->get_option_no_throw("--" + dashed);
    // The topology positional is "topology" (run, sweep, os, bound) or "spec" (topo, route,
    // partition): either name fills either.
    const std::string other_name = dashed == "topology" ? "spec" : dashed == "spec" ? "topology" : "";
    const bool is_pos = o == nullptr &&
                        ((o = sub->get_option_no_throw(key)) != nullptr || (o = sub->get_option_no_throw(dashed)) != nullptr ||
                         (!other_name.empty() && (o = sub->get_option_no_throw(other_name)) != nullptr)) &&
                        o->get_lnames().empty() && o->get_snames().empty();
    const bool reserved = dashed == "config" || dashed == "help" || dashed == "strict-config";
    if (o == nullptr || reserved) {
      // A key another subcommand takes (a report of another command seeds this one) is skipped,
      // listed below; a key no subcommand takes, or any with --strict-config, is refused.
      const std::vector<std::string>& everywhere = config_keys();
      const bool elsewhere =
          !reserved && std::find(everywhere.begin(), everywhere.end(), dashed) != everywhere.end();
      if (!elsewhere || strict) {
        std::vector<std::string> mine;
        for (const CLI::Option* x : sub->get_options()) mine.push_back(key_of(x));
        throw usage_error(fmt::format("--config: '{}' is not an option of 'rica {}'{}{} (see rica {} --help)", key, path,
                                      did_you_mean(dashed, mine), strict && elsewhere ? " (--strict-config)" : "",
                                      path));
      }
      skipped.push_back(key);
      continue;
    }
    if (is_pos) {
      if (free_words > 0) continue;  // the command line gives the positionals
      if (value.is_array())
        for (const auto& v : value) positional.push_back(word_of(v, key));
      else
        positional.push_back(word_of(value, key));
      continue;
    }
    if (given_option(o)) continue;
    const std::string flag = "--" + dashed;
    if (value.is_boolean()) {
      if (o->get_expected_max() != 0)
        throw usage_error(fmt::format("--config: '{}' takes a value, not true/false", key));
      if (value.get<bool>()) named.push_back(flag);
      continue;
    }
    if (o->get_expected_max() == 0)
      throw usage_error(fmt::format("--config: '{}' is a switch; give true or false", key));
    if (value.is_array()) {
      for (const auto& v : value) {
        named.push_back(flag);
        named.push_back(word_of(v, key));
      }
    } else {
      named.push_back(flag);
      named.push_back(word_of(value, key));
    }
  }
  if (!skipped.empty())
    std::fprintf(stderr, "rica: --config: skipped %zu key%s that 'rica %s' does not take: %s (--strict-config refuses "
                 "them)\n", skipped.size(), skipped.size() == 1 ? "" : "s", path.c_str(),
                 fmt::format("{}", fmt::join(skipped, ", ")).c_str());
  std::vector<std::string> out(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(start));
  out.insert(out.end(), positional.begin(), positional.end());
  out.insert(out.end(), tail.begin(), tail.end());
  out.insert(out.end(), named.begin(), named.end());
  return out;
}

nlohmann::json option_config(const CLI::App* c) {
  nlohmann::json j = nlohmann::json::object();
  for (const CLI::Option* o : c->get_options()) {
    const std::string key = key_of(o);
    if (is_presentation(key) || key.empty()) continue;
    if (o->get_expected_max() == 0) {  // a flag
      j[key] = o->count() > 0;
      continue;
    }
    std::vector<std::string> values;
    if (o->count() > 0)
      values = o->results();
    else if (!o->get_default_str().empty())
      values = {o->get_default_str()};
    if (values.empty()) continue;
    if (values.size() == 1 && !(o->get_lnames().empty() && o->get_expected_max() > 1)) {
      j[key] = typed(values.front());
    } else {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& v : values) a.push_back(typed(v));
      j[key] = a;
    }
  }
  return j;
}

std::string echo_command(const CLI::App* c, const nlohmann::json& config) {
  std::string s = "rica";
  if (c->get_parent() && c->get_parent()->get_parent()) s += " " + c->get_parent()->get_name();
  s += " " + c->get_name();
  std::string named;
  for (const CLI::Option* o : c->get_options()) {
    const std::string key = key_of(o);
    if (!config.contains(key) || config[key].is_null()) continue;
    const auto& v = config[key];
    const bool pos = o->get_lnames().empty() && o->get_snames().empty();
    auto add = [&](const nlohmann::json& x) {
      if (pos)
        s += " " + shell_quote(word_of(x, key));
      else
        named += " --" + key + " " + shell_quote(word_of(x, key));
    };
    if (v.is_boolean()) {
      if (v.get<bool>()) named += " --" + key;
    } else if (v.is_array()) {
      for (const auto& x : v) add(x);
    } else {
      add(v);
    }
  }
  return s + named;
}

nlohmann::json provenance(const nlohmann::json& config, std::uint64_t seed, unsigned threads) {
  return {{"rica_version", version_string()}, {"command_line", command_line()}, {"start_time", start_time()},
          {"seed", seed}, {"threads", threads}, {"config", config}};
}

std::string model_line(const EngineConfig& cfg, const Topology* t, bool window) {
  std::string s = fmt::format("engine {}", to_string(cfg.engine));
  const EngineTraits& traits = engine_traits(cfg.engine);  // the options the engine reads
  if (traits.link_timing) {
    const std::string link = cfg.link_cycles_words ? "1 cycle per word"
                             : cfg.link_cycles == 0 ? "degree (in + out degree cycles per packet)"
                                                    : fmt::format("{} cycles per packet", cfg.link_cycles);
    s += fmt::format(", timing {}, link time {}, arbitration {}", to_string(cfg.timing), link,
                     to_string(cfg.arbitration));
  }
  if (traits.router_cycles && cfg.router_cycles != 0) s += fmt::format(", router {} cycles per hop", cfg.router_cycles);
  if (traits.virtual_clock && window) s += fmt::format(", window {} cycles (warm-up {})", cfg.cycles, cfg.warmup);
  if (cfg.routing != Routing::deterministic) s += fmt::format(", routing {}", to_string(cfg.routing));
  s += fmt::format(", buffers {} words/port/class, packets {}+-{} words, classes {}", cfg.buffer_words,
                   cfg.packet_words, cfg.packet_spread,
                   !cfg.classes ? std::string("off (1)")
                   : t          ? fmt::format("{}", offers(*t, cfg.routing) ? routing_classes(*t, cfg.routing)
                                                                            : t->buffer_classes())
                                : std::string("each topology's own"));
  return s;
}

}  // namespace rica::cli
