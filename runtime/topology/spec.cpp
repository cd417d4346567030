// Spec-argument parsing for the topology registry.
#include <fmt/format.h>

#include <charconv>

#include "rica/registry.hpp"

namespace rica {
namespace {
const ParamDoc* find_doc(const std::vector<ParamDoc>* docs, const std::string& name) {
  if (!docs) return nullptr;
  for (const auto& d : *docs)
    if (d.name == name) return &d;
  return nullptr;
}
std::string param_names(const std::vector<ParamDoc>* docs) {
  if (!docs || docs->empty()) return "none";
  std::vector<std::string> k;
  for (const auto& p : *docs) k.push_back(p.name);
  return fmt::format("{}", fmt::join(k, ", "));
}
}  // namespace

std::string param_help(const std::vector<ParamDoc>& params, const std::string& positional) {
  std::string out;
  for (const auto& p : params)
    out += fmt::format("             {:<12} {:<28} {}{}{}\n", p.name, p.accepts, p.help,
                       p.default_value.empty() ? "" : fmt::format(" [default {}]", p.default_value),
                       p.name == positional ? " (may be given bare)" : "");
  return out;
}

void SpecArgs::parse(std::string_view rest, const std::string& positional) {
  bool first = true;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= rest.size(); ++i) {
    if (i < rest.size()) {
      if (rest[i] == '(') ++depth;
      if (rest[i] == ')') --depth;
      if (rest[i] != ',' || depth != 0) continue;
    }
    const std::string item(rest.substr(start, i - start));
    start = i + 1;
    const auto eq = item.find('=');
    if (eq == std::string::npos) {
      if (!first || positional.empty() || item.empty())
        throw usage_error(fmt::format("{}: '{}' must be key=value (parameters: {})", what_, item, param_names(docs)));
      values.emplace_back(positional, item);
    } else {
      const std::string key = item.substr(0, eq);
      if (!find_doc(docs, key))
        throw usage_error(fmt::format("{}: unknown parameter '{}'; accepted: {}", what_, key, param_names(docs)));
      if (has(key)) throw usage_error(fmt::format("{}: parameter '{}' given twice", what_, key));
      values.emplace_back(key, item.substr(eq + 1));
    }
    first = false;
  }
}

bool SpecArgs::has(const std::string& name) const {
  for (const auto& [k, v] : values)
    if (k == name) return true;
  return false;
}

std::string SpecArgs::text(const std::string& name) const {
  for (const auto& [k, v] : values)
    if (k == name) return v;
  const ParamDoc* d = find_doc(docs, name);
  if (d && !d->default_value.empty()) return d->default_value;
  throw usage_error(fmt::format("{}: parameter '{}' is required ({})", what_, name, d ? d->accepts : "a value"));
}

unsigned SpecArgs::uint(const std::string& name) const {
  const std::string t = text(name);
  unsigned v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || t.empty()) {
    const ParamDoc* d = find_doc(docs, name);
    throw usage_error(fmt::format("{}: parameter '{}' = '{}' is not a non-negative integer (accepted: {})", what_,
                                  name, t, d ? d->accepts : "an integer"));
  }
  return v;
}

Shape SpecArgs::shape(const std::string& name) const {
  const std::string t = text(name);
  Shape s;
  std::size_t pos = 0;
  while (true) {
    const std::size_t x = t.find('x', pos);
    const std::string part = t.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    unsigned v = 0;
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || p != part.data() + part.size())
      throw usage_error(fmt::format("{}: parameter '{}' = '{}' is not a shape like 32x32 or 8x8x16", what_, name, t));
    s.push_back(v);
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  return s;
}

std::size_t SpecArgs::choice(const std::string& name, const std::vector<std::string>& choices) const {
  const std::string t = text(name);
  for (std::size_t i = 0; i < choices.size(); ++i)
    if (choices[i] == t) return i;
  throw usage_error(fmt::format("{}: parameter '{}' = '{}' is not one of: {}", what_, name, t, fmt::join(choices, ", ")));
}

}  // namespace rica
