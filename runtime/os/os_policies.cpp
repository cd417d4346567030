// The registry of context-switch policies (rica/os.hpp SwitchPolicy; rica/os_policy.hpp).
// Built-ins are listed here; user code adds its own with register_switch_policy().
#include <fmt/format.h>

#include <mutex>

#include "os_policy.hpp"
#include "rica/registry.hpp"
#include "rica/suggest.hpp"

namespace rica {
namespace detail {
namespace {
struct Entry {
  std::string name, doc;
  SwitchPolicyFactory make;
};
std::vector<Entry>& registry() {
  static std::vector<Entry> r = {
      {"drain", "RWC-1: freeze with neighbour handshakes, save each router's packets at its own PE, re-inject on resume",
       make_drain_policy},
      {"flush", "deliver every floating packet to its destination (saved there), detect emptiness by counting waves",
       make_flush_policy},
      {"drain-pe", "drain, but a switch with no PE of its own sends its packets to the nearest PE of the partition",
       make_drain_pe_policy},
  };
  return r;
}
}  // namespace

std::unique_ptr<SwitchPolicyImpl> make_switch_policy(SwitchPolicy p) {
  auto& r = registry();
  if (p.id() >= r.size()) throw usage_error(fmt::format("os: no switch policy number {}", p.id()));
  return r[p.id()].make();
}
}  // namespace detail

SwitchPolicy register_switch_policy(const std::string& name, const std::string& doc, SwitchPolicyFactory make) {
  check_registered_name(name, "switch policy");
  if (!make) throw usage_error(fmt::format("os: switch policy '{}': no factory", name));
  auto& r = detail::registry();
  for (const detail::Entry& e : r)
    if (e.name == name) throw usage_error(fmt::format("os: switch policy '{}' is already registered", name));
  r.push_back({name, doc, std::move(make)});
  return SwitchPolicy(static_cast<std::uint16_t>(r.size() - 1));
}

const char* policy_name(SwitchPolicy p) {
  auto& r = detail::registry();
  return p.id() < r.size() ? r[p.id()].name.c_str() : "?";
}

SwitchPolicy policy_by_name(const std::string& name) {
  auto& r = detail::registry();
  std::string valid;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (r[i].name == name) return SwitchPolicy(static_cast<std::uint16_t>(i));
    valid += (i ? ", " : "") + r[i].name;
    names.push_back(r[i].name);
  }
  throw usage_error(fmt::format("--policy: unknown switch policy '{}'{}", name, valid_names_tail(name, names, valid)));
}

std::vector<std::pair<std::string, std::string>> switch_policies() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : detail::registry()) out.emplace_back(e.name, e.doc);
  return out;
}

}  // namespace rica
