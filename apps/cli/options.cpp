// One parser and one validation per option concept (options.hpp).
#include "options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <limits>
#include <thread>

#include "rica/core.hpp"
#include "rica/defaults.hpp"
#include "rica/io.hpp"
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

CLI::Option* add_output_file(CLI::App* c, const std::string& name, std::string& target, const std::string& help) {
  const std::string flag = flag_of(c, name);
  return c
      ->add_option_function<std::string>(
          name,
          [&target, flag](const std::string& s) {
            check_output_file(s, flag);
            target = s;
          },
          help)
      ->type_name("FILE");
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
  return add_selector(c, "--engine", target, engine_kind_by_name,
                      "Engine: async (real threads, ns) or cycle (deterministic virtual clock, cycles)", "async|cycle");
}

CLI::Option* add_timing(CLI::App* c, Timing& target) {
  return add_selector(c, "--timing", target, timing_by_name,
                      "Cycle engine: vct (virtual cut-through) or saf (store-and-forward)", "vct|saf");
}

CLI::Option* add_arbitration(CLI::App* c, Arbitration& target) {
  return add_selector(c, "--arbitration", target, arbitration_by_name,
                      "Cycle engine: output arbitration, rr (round robin) or oldest", "rr|oldest");
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

CLI::Option* add_rates(CLI::App* c, const std::string& name, std::vector<double>& target, const std::string& help) {
  const std::string flag = flag_of(c, name);
  std::string shown;
  for (double r : target) shown += fmt::format("{}{:g}", shown.empty() ? "" : ",", r);
  return c
      ->add_option_function<std::string>(
          name, [&target, flag](const std::string& s) { target = experiments::parse_rates(s, flag); },
          fmt::format("{}: FROM:TO:STEP (at most {} points) or a comma list, each in (0, 1]", help,
                      defaults::limits::rates))
      ->default_str(shown)
      ->type_name("RATES");
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
  }
  if (which & opt_threads) keep("--threads", add_threads(c, cfg.threads));
  if (which & opt_seed) keep("--seed", add_seed(c, cfg.seed));
  if (which & opt_buffers) keep("--buffer-words", add_buffer_words(c, cfg.buffer_words));
  if (which & opt_packet_words) keep("--packet-words", add_packet_words(c, cfg));
  if (which & opt_classes)
    keep("--no-classes", c->add_flag("--no-classes", o.no_classes, "Disable buffer classes (deadlock demonstration)"));
  if (which & opt_schedule) {
    keep("--batch", add_batch(c, cfg.batch));
    keep("--block", add_block(c, cfg.block));
  }
  if (which & opt_trace)
    keep("--trace", add_output_file(c, "--trace", cfg.trace,
                                    "CSV: one row per delivered packet (src,dst,seq,inject,deliver,hops)"));
}

EngineConfig engine_config(const EngineOptions& o) {
  EngineConfig cfg = o.cfg;
  if (cfg.engine == EngineKind::async)
    for (const char* name : {"--cycles", "--warmup", "--link-cycles", "--timing", "--arbitration"})
      if (o.given(name))
        throw usage_error(fmt::format("{} applies to the cycle engine only; add --engine cycle or drop {}", name, name));
  if (cfg.threads == 0) cfg.threads = std::max(1u, std::thread::hardware_concurrency());
  cfg.classes = !o.no_classes;
  validate(cfg);
  return cfg;
}

std::string link_cycles_text(const EngineConfig& cfg) { return experiments::link_cycles_text(cfg); }

std::string engine_echo(const EngineConfig& cfg) {
  std::string s = fmt::format("--engine {}", to_string(cfg.engine));
  if (cfg.engine == EngineKind::cycle)
    s += fmt::format(" --cycles {} --warmup {} --link-cycles {} --timing {} --arbitration {}", cfg.cycles, cfg.warmup,
                     link_cycles_text(cfg), to_string(cfg.timing), to_string(cfg.arbitration));
  s += fmt::format(" --threads {} --seed {} --buffer-words {} --packet-words {}:{} --batch {} --block {}", cfg.threads,
                   cfg.seed, cfg.buffer_words, cfg.packet_words, cfg.packet_spread, cfg.batch, cfg.block);
  if (!cfg.classes) s += " --no-classes";
  if (!cfg.trace.empty()) s += fmt::format(" --trace {}", cfg.trace);
  return s;
}

}  // namespace rica::cli
