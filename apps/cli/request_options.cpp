// request_options.hpp: a request's declared options on a CLI11 subcommand, through the shared
// parsers of options.hpp (their refusals are the ones rica/request/fields.hpp check_field repeats).
#include "request_options.hpp"

#include <fmt/format.h>

#include "options.hpp"
#include "rica/assert.hpp"

namespace rica::cli {

using request::FieldKind;

namespace {
CLI::Option* required(CLI::Option* o, const request::FieldInfo& f) { return f.required ? o->required() : o; }
}  // namespace

CLI::Option* add_field(CLI::App* c, const request::FieldInfo& f, std::string& target) {
  RICA_ASSERT(f.kind == FieldKind::text, "a text option fills a std::string");
  return required(add_text(c, f.name, target, f.help_text(), f.accepted), f);
}

CLI::Option* add_field(CLI::App* c, const request::FieldInfo& f, std::vector<std::string>& target) {
  RICA_ASSERT(f.kind == FieldKind::texts || f.kind == FieldKind::names, "a list of names or texts");
  return required(f.kind == FieldKind::names ? add_name_list(c, f.name, target, f.help_text())
                                             : add_text(c, f.name, target, f.help_text(), f.accepted),
                  f);
}

CLI::Option* add_field(CLI::App* c, const request::FieldInfo& f, std::uint64_t& target) {
  RICA_ASSERT(f.kind == FieldKind::uint || f.kind == FieldKind::packets, "an unsigned integer");
  return required(f.kind == FieldKind::packets ? add_packets(c, target, f.help_text())
                                               : add_uint(c, f.name, target, f.lo, f.hi, f.help_text()),
                  f);
}

CLI::Option* add_field(CLI::App* c, const request::FieldInfo& f, unsigned& target) {
  RICA_ASSERT(f.kind == FieldKind::uint, "an unsigned integer");
  return required(add_uint(c, f.name, target, f.lo, f.hi, f.help_text()), f);
}

CLI::Option* add_field(CLI::App* c, const request::FieldInfo& f, std::vector<std::uint64_t>& target) {
  RICA_ASSERT(f.kind == FieldKind::uint_list, "a list of unsigned integers");
  return required(add_uint_list(c, f.name, target, f.lo, f.hi, f.help_text()), f);
}

CLI::Option* add_field(CLI::App* c, const request::FieldInfo& f, double& target) {
  RICA_ASSERT(f.kind == FieldKind::rate || f.kind == FieldKind::real, "a number");
  if (f.kind == FieldKind::rate) return required(add_rate(c, target), f);
  const std::string flag = f.name;
  const double lo = static_cast<double>(f.lo), hi = static_cast<double>(f.hi);
  return required(c->add_option_function<std::string>(
                        f.name, [&target, flag, lo, hi](const std::string& s) { target = parse_real(s, flag, lo, hi, true); },
                        f.help_text())
                      ->default_str(fmt::format("{:g}", target)),
                  f);
}

CLI::Option* add_field(CLI::App* c, const request::FieldInfo& f, std::vector<double>& target) {
  RICA_ASSERT(f.kind == FieldKind::rates, "a rate grid");
  return required(add_rates(c, f.name, target, f.help_text()), f);
}

CLI::Option* add_field(CLI::App* c, const request::FieldInfo& f, bool& target) {
  RICA_ASSERT(f.kind == FieldKind::flag, "a switch");
  return c->add_flag(f.name, target, f.help_text());
}

}  // namespace rica::cli
