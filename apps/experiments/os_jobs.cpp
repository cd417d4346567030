// os_jobs.hpp: what a job of rica os and rica os-stream runs.
#include "os_jobs.hpp"

#include <fmt/format.h>

#include <cmath>

#include "app_registry.hpp"
#include "solo_job.hpp"
#include "rica/suggest.hpp"
#include "traffic.hpp"

namespace rica::experiments {

namespace {
bool is_pattern(const std::string& name) {
  for (const TrafficEntry& e : TrafficRegistry::available())
    if (e.name == name) return true;
  return false;
}
}  // namespace

std::vector<std::string> job_names() {
  std::vector<std::string> names;
  for (const TrafficEntry& e : TrafficRegistry::available()) names.push_back(e.name);
  for (const AppEntry& e : AppRegistry::available()) names.push_back(e.name);
  return names;
}

void check_job_name(const std::string& spec, const std::string& option) {
  const std::string name = spec.substr(0, spec.find(':'));
  std::string patterns, apps;
  bool known = false;
  for (const TrafficEntry& e : TrafficRegistry::available()) {
    known = known || e.name == name;
    patterns += (patterns.empty() ? "" : ", ") + e.name;
  }
  for (const AppEntry& e : AppRegistry::available()) {
    known = known || e.name == name;
    apps += (apps.empty() ? "" : ", ") + e.name;
  }
  if (!known)
    throw usage_error(fmt::format("{}: '{}' is neither a traffic pattern ({}) nor an application ({}){}", option, spec,
                                  patterns, apps, did_you_mean(name, job_names())));
}

std::unique_ptr<App> make_job(const std::string& spec, const Topology& topology, const Shape& shape, double rate,
                              std::uint64_t packets, std::uint64_t seed) {
  if (!is_pattern(spec.substr(0, spec.find(':')))) return AppRegistry::make(spec, topology);
  if (shape_size(shape) == 1)  // no other PE to send to: the job holds its PE for its traffic's cycles
    return make_solo_job(spec, static_cast<std::uint64_t>(std::llround(static_cast<double>(packets) / rate)));
  TrafficOptions opt;
  opt.rate = rate;
  opt.packets = packets;
  opt.seed = seed;
  return TrafficRegistry::make(spec, traffic::PeSpace::of_shape(shape), opt);
}

}  // namespace rica::experiments
