#pragma once
// What a job of `rica os` and `rica os-stream` runs: a traffic pattern or a registered application
// (rica/request/os.hpp, os_stream.hpp). Internal to rica::experiments (not installed).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rica/app.hpp"
#include "rica/topology.hpp"

namespace rica::experiments {

/// The names a job may run: the traffic patterns, then the applications, in registration order.
std::vector<std::string> job_names();
/// Refuses (usage_error naming `option`, the nearest name suggested) a job spec whose name is
/// neither a traffic pattern nor an application: "'x' is neither a traffic pattern (...) nor an
/// application (...)".
void check_job_name(const std::string& spec, const std::string& option);
/// The job's application on `pes` PEs of local shape `shape`: a traffic pattern at `rate` with
/// `packets` per PE and `seed`, or the application `spec` (AppRegistry, which refuses a bad one).
std::unique_ptr<App> make_job(const std::string& spec, const Topology& topology, const Shape& shape, double rate,
                              std::uint64_t packets, std::uint64_t seed);

}  // namespace rica::experiments
