#pragma once
// What the typed requests (include/rica/request/) share: the thread-count check and the
// parallelism limit of one request's run. Internal (not installed).

#include <fmt/format.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cstdint>
#include <thread>

#include "rica/core.hpp"
#include "rica/defaults.hpp"

namespace rica::request::detail {

/// Refuses a value outside [lo, hi] with the CLI's words for a refused integer option
/// ("--samples: '0' is not an integer in [1, 1048576]"), naming `option`.
inline void check_range(const char* option, std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
  if (v < lo || v > hi) throw usage_error(fmt::format("{}: '{}' is not an integer in [{}, {}]", option, v, lo, hi));
}
/// --threads: [0, defaults::limits::threads] (0 = all cores), as the CLI's add_threads.
inline void check_threads(unsigned threads) { check_range("--threads", threads, 0, defaults::limits::threads); }

/// oneTBB's parallelism for one request's run: `requested` threads, 0 = all cores. Main thread.
struct Parallelism {
  explicit Parallelism(unsigned requested)
      : threads(requested ? requested : std::max(1u, std::thread::hardware_concurrency())),
        control(tbb::global_control::max_allowed_parallelism, threads) {}
  unsigned threads;  ///< resolved (>= 1)
  tbb::global_control control;
};

}  // namespace rica::request::detail
