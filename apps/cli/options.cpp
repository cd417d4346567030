// The generic option kinds, the option concepts shared by several subcommands outside the option
// table (option_table.hpp), and the shared presentation options (options.hpp).
#include "options.hpp"
#include "config_path.hpp"
#include "rica/output_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <limits>
#include <thread>

#include <oneapi/tbb/global_control.h>

#include "rica/core.hpp"
#include "rica/defaults.hpp"
#include "rica/io.hpp"
#include "rica/request/run.hpp"
#include "rica/routing_names.hpp"
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

std::string& config_file_path() {  // config_path.hpp; here, beside its reader, for the builds without config_file.cpp
  static std::string path;
  return path;
}

void check_distinct_outputs(const std::vector<Output>& outputs) {
  // Every file the command writes (its caller lists the derived ones too), and its --config file,
  // read and never to be written (rica/output_plan.hpp).
  OutputPlan plan;
  plan.input("--config", config_file_path());
  for (const Output& out : outputs) plan.add(out.option, out.path);
  plan.check();
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

CLI::Option* add_routing(CLI::App* c, Routing& target) {
  return add_selector(c, "--routing", target, routing_by_name, routing_help(), routing_choices());
}

CLI::Option* add_threads(CLI::App* c, unsigned& target, const std::string& help) {
  return add_uint(c, "--threads", target, 0, defaults::limits::threads, help);
}

CLI::Option* add_seed(CLI::App* c, std::uint64_t& target, const std::string& help) {
  return add_uint(c, "--seed", target, 0, std::numeric_limits<std::uint64_t>::max(), help);
}

CLI::Option* add_cycles(CLI::App* c, std::optional<std::uint64_t>& target, const std::string& help) {
  return add_uint(c, "--cycles", target, 1, defaults::limits::cycles, help);
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

void check_telemetry(const std::optional<std::uint64_t>& window, EngineKind engine) {
  request::check_telemetry(window, engine);
}

void add_trace_events(CLI::App* c, std::string& path, std::uint64_t& packets) {
  add_output_file(c, "--trace-events", path,
                  "Cycle engine: Chrome trace-event JSON of the run (Perfetto, chrome://tracing): sampled packets' "
                  "journeys as flows across nodes, OS halts and switches as slices (docs/runtime.md)");
  add_uint(c, "--trace-events-packets", packets, 1, defaults::trace_events::max_packets,
           "Packets --trace-events follows hop by hop: the first N to enter the network after the warm-up")
      ->type_name("N");
}

void check_trace_events(const std::string& path, EngineKind engine) { request::check_trace_events(path, engine); }

CLI::Option* add_jobs(CLI::App* c, unsigned& target, const std::string& help) {
  return add_uint(c, "--jobs", target, 0, defaults::limits::jobs, help);
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

// ---- Progress ---------------------------------------------------------------------------------------

CLI::Option* add_progress(CLI::App* c, bool& target) {
  return exclude_quiet_progress(
      c, c->add_flag("--progress", target, "Show progress even when standard error is not a terminal"), "--quiet");
}

std::string registered(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string s;
  for (const auto& e : entries) s += (s.empty() ? "" : ", ") + e.first;
  return s;
}

}  // namespace rica::cli
