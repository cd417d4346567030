// The typed option table's machinery (option_table.hpp): registration, declaration on CLI11, the
// engine checks and the model line. The built-in entries are in engine_options.cpp.
#include "option_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <thread>

#include "rica/assert.hpp"
#include "rica/core.hpp"

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
    return v;
  }();
  return t;
}
}  // namespace

bool register_option(OptionDef def) {
  RICA_ASSERT(!def.name.empty() && def.parse, "an option needs a name and a parser");
  if (find_option(def.name) != nullptr) {  // in every build: a second declaration is a program error
    std::fprintf(stderr, "rica: option --%s is declared twice (apps/cli/option_table.hpp)\n", def.name.c_str());
    std::abort();
  }
  registered().push_back(std::move(def));
  table().push_back(&registered().back());
  return true;
}

const std::vector<const OptionDef*>& option_table() { return table(); }

const OptionDef* find_option(const std::string& name) {
  for (const OptionDef* d : table())
    if (d->name == name) return d;
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
  const std::string path = command_path(c);
  for (const OptionDef* d : option_table()) {
    if (!d->applies_to(path)) continue;
    CLI::Option* opt = nullptr;
    if (d->kind == OptionKind::flag) {
      opt = c->add_flag_callback(d->flag(), [&o, d] { d->parse(o, "true"); }, d->help);
    } else {
      opt = c->add_option_function<std::string>(d->flag(), [&o, d](const std::string& s) { d->parse(o, s); },
                                                d->help);
      if (!d->type_name.empty()) opt->type_name(d->type_name);
      if (d->shows_default && d->show) {
        const std::string shown = d->show(o);
        if (!shown.empty()) opt->default_str(shown);
      }
    }
    o.declared[d->flag()] = opt;
  }
}

EngineConfig engine_config(const EngineOptions& o) {
  EngineConfig cfg = o.cfg;
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
