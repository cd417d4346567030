// The typed option table's machinery (option_table.hpp): registration, declaration on CLI11, the
// engine checks and the model line. The built-in entries are in engine_options.cpp.
#include "option_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <limits>
#include <thread>

#include "rica/assert.hpp"
#include "rica/core.hpp"
#include "rica/io.hpp"

namespace rica::cli {

bool has_virtual_clock(EngineKind k) { return engine_traits(k).virtual_clock; }

std::string EngineScope::only() const {
  if (trait == nullptr) return "every engine";
  const std::vector<std::string> with = engines_with(trait);
  return fmt::format("the {} engine{} only", fmt::join(with, ", "), with.size() == 1 ? "" : "s");
}

std::string EngineScope::refusal(const std::string& flag, const std::string& why) const {
  const std::vector<std::string> with = engines_with(trait);
  if (with.empty()) return fmt::format("{}: no registered engine offers it; drop {}", flag, flag);
  return fmt::format("{} applies to {}{}; add --engine {} or drop {}", flag, only(), why, with.front(), flag);
}

const char* to_string(OptionKind k) noexcept {
  switch (k) {
    case OptionKind::uint: return "uint";
    case OptionKind::choice: return "choice";
    case OptionKind::text: return "text";
    case OptionKind::file: return "file";
    case OptionKind::flag: return "flag";
  }
  return "text";
}

bool OptionDef::applies_to(const std::string& command) const {
  return std::find(commands.begin(), commands.end(), command) != commands.end();
}

std::string OptionDef::cli_names() const {
  std::string s = flag();
  for (const std::string& a : aliases) s += ",--" + a;
  return s;
}

namespace {
/// Registered entries; a deque keeps their addresses when one is added.
std::deque<OptionDef>& registered() {
  static std::deque<OptionDef> r;
  return r;
}
std::vector<const OptionDef*>& table() {
  static std::vector<const OptionDef*> t = [] {
    std::vector<const OptionDef*> v;
    for (const OptionDef& d : builtin_options()) v.push_back(&d);
    for (const OptionDef& d : command_options()) v.push_back(&d);
    return v;
  }();
  return t;
}

bool named(const OptionDef& d, const std::string& name) {
  return d.name == name || std::find(d.aliases.begin(), d.aliases.end(), name) != d.aliases.end();
}

/// Whether `a` and `b` share a name (or alias) and a subcommand.
bool clash(const OptionDef& a, const OptionDef& b) {
  bool shared_name = named(b, a.name);
  for (const std::string& n : a.aliases) shared_name = shared_name || named(b, n);
  if (!shared_name) return false;
  for (const std::string& c : a.commands)
    if (b.applies_to(c)) return true;
  return a.commands.empty() || b.commands.empty();
}
}  // namespace

bool register_option(OptionDef def) {
  RICA_ASSERT(!def.name.empty() && def.parse, "an option needs a name and a parser");
  for (const OptionDef* d : table())
    if (clash(*d, def)) {  // in every build: a second declaration is a program error
      std::fprintf(stderr, "rica: option --%s is declared twice (apps/cli/option_table.hpp)\n", def.name.c_str());
      std::abort();
    }
  registered().push_back(std::move(def));
  table().push_back(&registered().back());
  return true;
}

const std::vector<const OptionDef*>& option_table() { return table(); }

const OptionDef* find_option(const std::string& name, const std::string& command) {
  for (const OptionDef* d : table())
    if (named(*d, name) && (command.empty() || d->applies_to(command))) return d;
  return nullptr;
}

bool EngineOptions::given(const std::string& name) const {
  const auto it = declared.find(name);
  return it != declared.end() && it->second->count() > 0;
}

std::string command_path(const CLI::App* c) {
  const CLI::App* parent = c->get_parent();
  return parent != nullptr && parent->get_parent() != nullptr ? parent->get_name() + " " + c->get_name()
                                                               : c->get_name();
}

void add_engine_options(CLI::App* c, EngineOptions& o) {
  for (OptionGroup g : {OptionGroup::workload, OptionGroup::machine, OptionGroup::outputs, OptionGroup::kernel})
    add_engine_options(c, o, g);
}

void add_engine_options(CLI::App* c, EngineOptions& o, OptionGroup group) {
  const std::string path = command_path(c);
  o.command = path;
  for (const OptionDef* d : option_table()) {
    if (!d->applies_to(path) || d->group != group) continue;
    const auto own = d->command_defaults.find(path);
    const bool has_own = own != d->command_defaults.end();
    if (has_own && own->second.set) own->second.set(o);
    const std::string& help = has_own && !own->second.help.empty() ? own->second.help : d->help;
    CLI::Option* opt = nullptr;
    if (d->kind == OptionKind::flag) {
      opt = c->add_flag_callback(d->cli_names(), [&o, d] { d->parse(o, "true"); }, help);
    } else {
      opt = c->add_option_function<std::string>(d->cli_names(), [&o, d](const std::string& s) { d->parse(o, s); },
                                                help);
      if (!d->type_name.empty()) opt->type_name(d->type_name);
      if (d->shows_default && d->show) {
        const std::string shown = d->show(o);
        if (!shown.empty()) opt->default_str(shown);
      }
    }
    o.declared[d->flag()] = opt;
  }
}

void check_not_with(const EngineOptions& o) {
  for (const OptionDef* d : not_applying(o))
    if (o.given(d->flag()))
      throw usage_error(fmt::format("{} does not apply to --{} runs; drop {} or --{}", d->flag(), d->not_with,
                                    d->flag(), d->not_with));
}

std::vector<const OptionDef*> not_applying(const EngineOptions& o) {
  std::vector<const OptionDef*> out;
  for (const OptionDef* d : option_table())
    if (!d->not_with.empty() && d->applies_to(o.command) && o.given("--" + d->not_with)) out.push_back(d);
  return out;
}

EngineConfig engine_config(const EngineOptions& o) {
  EngineConfig cfg = o.cfg;
  EngineOptions derived;  // the command's own defaults of options not given, from the parsed values
  derived.cfg = o.cfg;
  derived.values = o.values;
  for (const OptionDef* d : option_table()) {
    const auto own = d->command_defaults.find(o.command);
    if (own != d->command_defaults.end() && own->second.set && d->applies_to(o.command) && !o.given(d->flag()))
      own->second.set(derived);
  }
  cfg = derived.cfg;
  for (const OptionDef* d : option_table())
    if (!d->engines(cfg.engine) && o.given(d->flag())) throw usage_error(d->engines.refusal(d->flag()));
  if (cfg.threads == 0) cfg.threads = std::max(1u, std::thread::hardware_concurrency());
  cfg.classes = !o.no_classes;
  validate(cfg);
  return cfg;
}

std::string model_line(const EngineConfig& cfg, const Topology* t, bool window) {
  const ModelContext ctx{t, window};
  std::vector<std::pair<int, std::string>> phrases;
  for (const OptionDef* d : option_table()) {
    if (!d->model || !d->engines(cfg.engine)) continue;
    std::string p = d->model(cfg, ctx);
    if (!p.empty()) phrases.emplace_back(d->model_place, std::move(p));
  }
  std::stable_sort(phrases.begin(), phrases.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string s;
  for (const auto& [place, p] : phrases) s += (s.empty() ? "" : ", ") + p;
  return s;
}

}  // namespace rica::cli

namespace rica::cli {

// ---- Entry builders ---------------------------------------------------------------------------

namespace {
/// The fields every unsigned entry shares; the caller adds its parser and its shown default.
OptionDef uint_def(std::string name, std::uint64_t lo, std::uint64_t hi, const std::string& help,
                   std::vector<std::string> commands) {
  OptionDef d;
  d.name = std::move(name);
  d.kind = OptionKind::uint;
  d.type_name = "UINT";
  d.lo = lo;
  d.hi = hi;
  d.commands = std::move(commands);
  d.help = fmt::format("{} [{}..{}]", help, lo, hi);
  return d;
}
}  // namespace

OptionDef uint_value(std::string name, unsigned CommandValues::*field, std::uint64_t lo, std::uint64_t hi,
                     std::string help, std::vector<std::string> commands) {
  OptionDef d = uint_def(std::move(name), lo, std::min<std::uint64_t>(hi, std::numeric_limits<unsigned>::max()), help,
                         std::move(commands));
  d.parse = [field, flag = d.flag(), lo, hi = d.hi](EngineOptions& o, const std::string& s) {
    o.values.*field = static_cast<unsigned>(parse_uint(s, flag, lo, hi));
  };
  d.show = [field](const EngineOptions& o) { return std::to_string(o.values.*field); };
  return d;
}

OptionDef uint_value(std::string name, std::uint64_t CommandValues::*field, std::uint64_t lo, std::uint64_t hi,
                     std::string help, std::vector<std::string> commands) {
  OptionDef d = uint_def(std::move(name), lo, hi, help, std::move(commands));
  d.parse = [field, flag = d.flag(), lo, hi](EngineOptions& o, const std::string& s) {
    o.values.*field = parse_uint(s, flag, lo, hi);
  };
  d.show = [field](const EngineOptions& o) { return std::to_string(o.values.*field); };
  return d;
}

OptionDef uint_value(std::string name, std::optional<std::uint64_t> CommandValues::*field, std::uint64_t lo,
                     std::uint64_t hi, std::string help, std::vector<std::string> commands) {
  OptionDef d = uint_def(std::move(name), lo, hi, help, std::move(commands));
  d.parse = [field, flag = d.flag(), lo, hi](EngineOptions& o, const std::string& s) {
    o.values.*field = parse_uint(s, flag, lo, hi);
  };
  d.show = [field](const EngineOptions& o) {
    return o.values.*field ? std::to_string(*(o.values.*field)) : std::string();
  };
  return d;
}

OptionDef text_value(std::string name, std::string CommandValues::*field, std::string help, std::string accepted,
                     std::vector<std::string> commands) {
  OptionDef d;
  d.name = std::move(name);
  d.kind = OptionKind::text;
  d.type_name = "TEXT";
  d.commands = std::move(commands);
  d.help = std::move(help);
  d.parse = [field, flag = d.flag(), accepted](EngineOptions& o, const std::string& s) {
    if (s.empty()) throw usage_error(fmt::format("{}: empty; accepted: {}", flag, accepted));
    o.values.*field = s;
  };
  d.show = [field](const EngineOptions& o) { return o.values.*field; };
  return d;
}

OptionDef file_value(std::string name, std::string CommandValues::*field, std::string help,
                     std::vector<std::string> commands, bool stdout_ok) {
  OptionDef d;
  d.name = std::move(name);
  d.kind = OptionKind::file;
  d.type_name = "FILE";
  d.commands = std::move(commands);
  d.configuration = false;
  d.shows_default = false;
  d.help = stdout_ok ? help + " ('-' = standard output)" : std::move(help);
  d.parse = [field, flag = d.flag(), stdout_ok](EngineOptions& o, const std::string& s) {
    if (s == "-" && !stdout_ok)
      throw usage_error(fmt::format("{}: '-' (standard output) is not accepted here; give a file name", flag));
    if (s != "-") check_output_file(s, flag);
    o.values.*field = s;
  };
  return d;
}

}  // namespace rica::cli
