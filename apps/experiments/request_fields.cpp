// rica/request/fields.hpp: a request's own options checked with the CLI's words
// (apps/cli/options.cpp reads the same values from the command line).
#include "rica/request/fields.hpp"

#include <fmt/format.h>

#include "rica/core.hpp"
#include "rica/defaults.hpp"
#include "sweep.hpp"

namespace rica::request {

std::string FieldInfo::flag(const std::string& command) const {
  return positional() ? fmt::format("{} <{}>", command, name) : std::string(name);
}

std::string FieldInfo::help_text() const {
  if (registry == nullptr) return help;
  std::string names;
  for (const auto& entry : registry()) names += (names.empty() ? "" : ", ") + entry.first;
  return fmt::format(fmt::runtime(help), names);
}

void check_field(const FieldInfo& f, const std::string& command, const std::string& value) {
  if (value.empty() && !f.may_be_empty)
    throw usage_error(fmt::format("{}: empty; accepted: {}", f.flag(command), f.accepted));
}

void check_field(const FieldInfo& f, const std::string& command, const std::vector<std::string>& value) {
  const std::string flag = f.flag(command);
  if (f.kind == FieldKind::texts) {
    for (const std::string& v : value)
      if (v.empty()) throw usage_error(fmt::format("{}: empty value; accepted: {}", flag, f.accepted));
    return;
  }
  // names: a comma list on the command line
  std::string text;
  bool empty_element = false;
  for (std::size_t i = 0; i < value.size(); ++i) {
    text += (i ? "," : "") + value[i];
    empty_element = empty_element || value[i].empty();
  }
  if (value.empty()) throw usage_error(fmt::format("{}: empty; give names separated by commas", flag));
  if (empty_element)
    throw usage_error(fmt::format("{}: '{}' has an empty element; give names separated by commas", flag, text));
}

void check_field(const FieldInfo& f, const std::string& command, std::uint64_t value) {
  const std::uint64_t lo = f.kind == FieldKind::packets ? 1 : f.lo;
  const std::uint64_t hi = f.kind == FieldKind::packets ? defaults::limits::packets : f.hi;
  (void)parse_uint(std::to_string(value), f.flag(command), lo, hi);
}

void check_field(const FieldInfo& f, const std::string& command, const std::vector<std::uint64_t>& value) {
  if (value.empty())
    throw usage_error(
        fmt::format("{}: empty; give integers in [{}, {}] separated by commas", f.flag(command), f.lo, f.hi));
  for (std::uint64_t v : value) (void)parse_uint(std::to_string(v), f.flag(command), f.lo, f.hi);
}

void check_field(const FieldInfo& f, const std::string& command, double value) {
  if (f.kind == FieldKind::rate)
    (void)parse_real(fmt::format("{}", value), f.flag(command), 0.0, 1.0, true);
  else
    (void)parse_real(fmt::format("{}", value), f.flag(command), static_cast<double>(f.lo), static_cast<double>(f.hi),
                     true);
}

void check_field(const FieldInfo& f, const std::string& command, const std::vector<double>& value) {
  std::string text;
  for (double v : value) text += fmt::format("{}{}", text.empty() ? "" : ",", v);
  (void)experiments::parse_rates(text, f.flag(command));
}

}  // namespace rica::request
