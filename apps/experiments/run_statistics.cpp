// Seeds and confidence intervals of repeated runs (run_statistics.hpp).
#include "run_statistics.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "rica/core.hpp"

namespace rica::experiments {

void check_seeds(std::uint64_t seed, unsigned seeds) {
  if (seeds > 1 && seed > std::numeric_limits<std::uint64_t>::max() - (seeds - 1))
    throw usage_error(fmt::format("--seed/--seeds: --seed {} with --seeds {} runs past the largest seed {} (the "
                                  "last run would wrap to seed {}); give --seed at most {} or fewer --seeds",
                                  seed, seeds, std::numeric_limits<std::uint64_t>::max(), seed + (seeds - 1),
                                  std::numeric_limits<std::uint64_t>::max() - (seeds - 1)));
}

double student_t95(std::size_t df) {
  static constexpr double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                 2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                 2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  return df >= 1 && df <= 30 ? t[df - 1] : 1.96;
}

std::pair<double, double> mean_ci95(const std::vector<double>& v) {
  if (v.empty()) return {0.0, 0.0};
  const double n = static_cast<double>(v.size());
  double sum = 0;
  for (double x : v) sum += x;
  const double mean = sum / n;
  if (v.size() < 2) return {mean, 0.0};
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return {mean, student_t95(v.size() - 1) * std::sqrt(ss / (n - 1)) / std::sqrt(n)};
}

}  // namespace rica::experiments
