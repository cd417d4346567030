#pragma once
// A job of one PE running a traffic pattern (rica os, rica os-stream): a pattern needs a second PE
// to send to, so the job sends nothing; it holds its PE for the cycles its traffic would have
// taken (its packets at its rate) and then finishes. It is scheduled, allocated, switched and
// measured like any other job. Internal to rica::experiments (not installed).

#include <cstdint>
#include <memory>
#include <string>

#include "rica/app.hpp"

namespace rica::experiments {

/// `pattern` on one PE for `cycles` injection opportunities (>= 1), nothing sent.
std::unique_ptr<App> make_solo_job(const std::string& pattern, std::uint64_t cycles);

}  // namespace rica::experiments
