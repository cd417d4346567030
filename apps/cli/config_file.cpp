// Provenance, configuration files, the recorded configuration and the echo (config_file.hpp).
#include "config_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <cstdio>
#include <ctime>
#include <map>
#include <sstream>

#include "config_path.hpp"
#include "option_table.hpp"
#include "rica/core.hpp"
#include "rica/io.hpp"
#include "rica/suggest.hpp"
#include "rica/version.hpp"

namespace rica::cli {
namespace {
std::vector<std::string>& invocation_words() {
  static std::vector<std::string> words;
  return words;
}
std::string& invocation_time() {
  static std::string t;
  return t;
}

/// Options that are outputs or presentation, not configuration: the option table says so for its
/// entries; these are the others.
bool is_presentation(const std::string& key) {
  if (const OptionDef* d = find_option(key)) return !d->configuration;
  static const char* const keys[] = {"json", "csv", "dot", "out", "quiet", "progress", "no-plot", "config", "help",
                                     "telemetry", "telemetry-links", "trace-events", "trace-events-packets", "strict-config"};
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

/// A --config file's TOML (the subset rica's options need, read strictly): `key = value` lines at the
/// top level, '#' comments and blank lines; a key bare ([A-Za-z0-9_-]+) or quoted; a value a string
/// ("..." with TOML's escapes, or '...'), an integer or decimal (underscores between digits
/// allowed), true/false, or an array of those on one line. Anything else is refused with one line
/// naming the file, the line and what is wrong: an unquoted word (`engine = cycle`), a section, a
/// key given twice. Numbers are kept as their text (the option parses them).
nlohmann::json parse_toml(const std::string& text, const std::string& file) {
  nlohmann::json j = nlohmann::json::object();
  std::size_t lineno = 0, start = 0;
  auto fail = [&](const std::string& why) {
    throw usage_error(fmt::format("--config: '{}' line {}: {} (TOML: key = \"text\", number, true/false or [a, b])",
                                  file, lineno, why));
  };
  while (start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(start, nl - start);
    start = nl + 1;
    ++lineno;
    std::size_t i = 0;
    auto blank = [&] {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    };
    auto at_end = [&] {
      blank();
      return i >= line.size() || line[i] == '#';
    };
    if (at_end()) {
      if (nl == text.size()) break;
      continue;
    }
    if (line[i] == '[') fail("sections are not accepted; give top-level keys");
    auto quoted = [&](char q) {  // line[i] == q
      std::string out;
      for (++i; i < line.size() && line[i] != q; ++i) {
        if (q == '"' && line[i] == '\\') {
          if (++i >= line.size()) fail("a string ends in a backslash");
          switch (line[i]) {
            case 'n': out += '\n'; break;
            case 't': out += '\t'; break;
            case '"': case '\\': out += line[i]; break;
            default: fail(fmt::format("unknown escape \\{} in a string", line[i]));
          }
        } else if (static_cast<unsigned char>(line[i]) < 0x20 && line[i] != '\t') {
          fail("a control character in a string");
        } else {
          out += line[i];
        }
      }
      if (i >= line.size()) fail("a string is not closed on its line");
      ++i;
      return out;
    };
    std::string key;
    if (line[i] == '"' || line[i] == '\'') {
      key = quoted(line[i]);
    } else {
      while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_' || line[i] == '-'))
        key += line[i++];
    }
    if (key.empty()) fail(fmt::format("expected a key, got {}", quote_input(line.substr(i, 20))));
    blank();
    if (i >= line.size() || line[i] != '=') fail(fmt::format("expected '=' after the key '{}'", key));
    ++i;
    std::function<nlohmann::json()> value = [&]() -> nlohmann::json {
      blank();
      if (i >= line.size()) fail(fmt::format("key '{}' has no value", key));
      const char c = line[i];
      if (c == '"' || c == '\'') return quoted(c);
      if (c == '[') {
        nlohmann::json a = nlohmann::json::array();
        ++i;
        blank();
        if (i < line.size() && line[i] == ']') return ++i, a;
        for (;;) {
          nlohmann::json v = value();
          if (v.is_array()) fail(fmt::format("key '{}': nested arrays are not accepted", key));
          a.push_back(std::move(v));
          blank();
          if (i < line.size() && line[i] == ',') {
            ++i;
            blank();
            if (i < line.size() && line[i] == ']') return ++i, a;  // a trailing comma
            continue;
          }
          if (i < line.size() && line[i] == ']') return ++i, a;
          fail(fmt::format("key '{}': an array is not closed on its line (expected ',' or ']')", key));
        }
      }
      std::string word;
      while (i < line.size() && line[i] != ',' && line[i] != ']' && line[i] != '#' && line[i] != ' ' && line[i] != '\t' &&
             line[i] != '\r')
        word += line[i++];
      if (word == "true" || word == "false") return word == "true";
      // An integer or decimal: [+-]digits[.digits][e[+-]digits], '_' only between two digits.
      bool digit = false, ok = !word.empty();
      std::string number;
      for (std::size_t k = 0; k < word.size() && ok; ++k) {
        const char ch = word[k];
        if (ch == '_') {
          ok = k > 0 && k + 1 < word.size() && std::isdigit(static_cast<unsigned char>(word[k - 1])) &&
               std::isdigit(static_cast<unsigned char>(word[k + 1]));
          continue;
        }
        digit = digit || std::isdigit(static_cast<unsigned char>(ch));
        ok = std::isdigit(static_cast<unsigned char>(ch)) || ch == '.' || ch == 'e' || ch == 'E' || ch == '+' || ch == '-';
        number += ch;
      }
      if (!ok || !digit)
        fail(fmt::format("key '{}': {} is not a TOML value; quote text (\"{}\")", key, quote_input(word), word));
      return number;
    };
    nlohmann::json v = value();
    if (!at_end()) fail(fmt::format("key '{}': unexpected {} after the value", key, quote_input(line.substr(i, 20))));
    if (j.contains(key)) fail(fmt::format("key '{}' is given twice; give each key once", key));
    j[key] = std::move(v);
    if (nl == text.size()) break;
  }
  return j;
}

/// A --config file's JSON; a key repeated in one object (which nlohmann::json would silently take the
/// last of) is refused naming it.
nlohmann::json parse_json_config(const std::string& text, const std::string& file) {
  std::vector<std::vector<std::string>> keys;  // per open object, the keys seen
  const nlohmann::json::parser_callback_t check = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) keys.emplace_back();
    else if (event == E::object_end && !keys.empty()) keys.pop_back();
    else if (event == E::key && !keys.empty()) {
      const std::string k = parsed.get<std::string>();
      if (std::find(keys.back().begin(), keys.back().end(), k) != keys.back().end())
        throw usage_error(fmt::format("--config: '{}': key '{}' is given twice in one object; give each key once",
                                      file, k));
      keys.back().push_back(k);
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text, check);
  } catch (const nlohmann::json::exception& e) {
    std::string why = e.what();
    throw usage_error(fmt::format("--config: '{}' is not JSON ({})", file, why.substr(0, why.find('\n'))));
  }
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
  config_file_path() = file;
  const std::string text = read_text_file(file, "--config", {std::uint64_t{64} << 20, std::uint64_t{64} << 20});
  nlohmann::json j = file.ends_with(".toml") ? parse_toml(text, file) : parse_json_config(text, file);
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
  std::vector<std::size_t> free_at;  // where the command line's positional words are in `tail`
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
    free_at.push_back(i);
  }
  const std::size_t free_words = free_at.size();
  const bool strict = std::find(tail.begin(), tail.end(), "--strict-config") != tail.end();
  std::vector<std::string> positional, named, skipped;
  std::map<const CLI::Option*, std::vector<std::string>> positional_of;  // the config's, per positional
  std::map<std::string, std::string> spelled;  // dashed key -> the key as the file spells it
  for (const auto& [key, value] : j.items()) {
    if (value.is_null()) continue;
    // Dashed and snake_case keys alike: "buffer_words" is --buffer-words.
    std::string dashed = key;
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    if (const auto [it, fresh] = spelled.emplace(dashed, key); !fresh)
      throw usage_error(fmt::format("--config: '{}': keys '{}' and '{}' are one option; give it once", file,
                                    it->second, key));
    const CLI::Option* o = sub->get_option_no_throw("--" + dashed);
    // A positional topology ("spec", "host") seeds the option --topology (app sort, stencil, run).
    if (o == nullptr && (dashed == "spec" || dashed == "host")) o = sub->get_option_no_throw("--topology");
    // The topology positional is "topology" (run, sweep, os, bound), "spec" (topo, route,
    // partition) or "host" (embed): each name fills the others.
    auto topology_alias = [&]() -> const CLI::Option* {
      if (dashed != "topology" && dashed != "spec" && dashed != "host") return nullptr;
      for (const char* name : {"topology", "spec", "host"})
        if (const CLI::Option* x = sub->get_option_no_throw(name)) return x;
      return nullptr;
    };
    const bool is_pos = o == nullptr &&
                        ((o = sub->get_option_no_throw(key)) != nullptr || (o = sub->get_option_no_throw(dashed)) != nullptr ||
                         (o = topology_alias()) != nullptr) &&
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
      std::vector<std::string>& words = positional_of[o];
      if (value.is_array())
        for (const auto& v : value) words.push_back(word_of(v, key));
      else
        words.push_back(word_of(value, key));
      continue;
    }
    if (given_option(o)) continue;
    const std::string flag = "--" + key_of(o);
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
  // The positionals, in their order: with no positional word on the command line, the config's;
  // when the command line gives exactly those the config lacks (`route 0 5` seeded with a
  // topology), the config's in their places and the command line's words in the others;
  // otherwise the command line gives them all.
  std::vector<const CLI::Option*> slots;
  for (const CLI::Option* x : sub->get_options())
    if (x->get_lnames().empty() && x->get_snames().empty() && x->get_expected_max() > 0) slots.push_back(x);
  const bool one_each = std::all_of(slots.begin(), slots.end(), [&](const CLI::Option* x) {
    const auto it = positional_of.find(x);
    return x->get_expected_max() == 1 && (it == positional_of.end() || it->second.size() == 1);
  });
  bool interleave = false;
  if (free_words > 0 && one_each && !positional_of.empty())
    interleave = free_words + positional_of.size() == slots.size();
  if (free_words == 0 || interleave) {
    std::size_t next = 0;
    for (const CLI::Option* x : slots) {
      if (const auto it = positional_of.find(x); it != positional_of.end())
        positional.insert(positional.end(), it->second.begin(), it->second.end());
      else if (interleave)
        positional.push_back(tail[free_at[next++]]);
    }
  }
  if (interleave)  // the command line's positional words now stand in `positional`
    for (auto i = free_at.rbegin(); i != free_at.rend(); ++i) tail.erase(tail.begin() + static_cast<std::ptrdiff_t>(*i));
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

nlohmann::json option_docs(const std::string& command) {
  if (command_table == nullptr) return nlohmann::json::array();
  CLI::App app{"rica"};
  int status = 0;
  command_table(app, status);
  CLI::App* sub = &app;
  std::istringstream words(command);
  for (std::string w; words >> w;) {
    CLI::App* next = nullptr;
    try {
      next = sub->get_subcommand(w);
    } catch (const CLI::OptionNotFound&) {
      next = nullptr;
    }
    if (next == nullptr) throw usage_error(fmt::format("options: '{}' is not a rica subcommand", command));
    sub = next;
  }
  if (sub == &app || !sub->get_subcommands([](CLI::App*) { return true; }).empty())
    throw usage_error(fmt::format("options: '{}' is not a rica subcommand that runs (give e.g. 'run' or 'app sort')",
                                  command));
  nlohmann::json out = nlohmann::json::array();
  for (const CLI::Option* o : sub->get_options()) {
    const std::string key = key_of(o);
    if (key == "help") continue;
    const bool positional = o->get_lnames().empty() && o->get_snames().empty();
    std::string keyword = key;
    std::replace(keyword.begin(), keyword.end(), '-', '_');
    const OptionDef* d = positional ? nullptr : find_option(key, command);
    nlohmann::json e = {{"keyword", keyword},
                        {"option", positional ? key : "--" + key},
                        {"positional", positional},
                        {"flag", o->get_expected_max() == 0},
                        {"type", o->get_type_name()},
                        {"default", o->get_default_str()},
                        {"help", o->get_description()},
                        {"configuration", !is_presentation(key)},
                        {"engines", d != nullptr ? d->engines.only() : "every engine"},
                        {"table", d != nullptr}};
    if (d != nullptr) e["kind"] = to_string(d->kind);
    out.push_back(std::move(e));
  }
  return out;
}

nlohmann::json provenance(const nlohmann::json& config, std::uint64_t seed, unsigned threads) {
  return {{"rica_version", version_string()}, {"command_line", command_line()}, {"start_time", start_time()},
          {"seed", seed}, {"threads", threads}, {"config", config}};
}


}  // namespace rica::cli
