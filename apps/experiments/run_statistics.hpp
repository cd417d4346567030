#pragma once
// Repeated runs: the seeds of --seeds K and the mean and 95% confidence interval of their figures.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace rica::experiments {

/// Refuses (usage_error naming --seed/--seeds) seeds whose last, seed + seeds - 1, does not fit in
/// 64 bits: the runs would wrap to seed 0. Every command with --seeds calls it before its runs.
void check_seeds(std::uint64_t seed, unsigned seeds);
/// The two-sided 95% Student t quantile for `df` degrees of freedom (df >= 1; 1.96 beyond 30).
double student_t95(std::size_t df);
/// Mean and 95% confidence half-width (Student t) of `v` (half-width 0 for fewer than 2 values).
std::pair<double, double> mean_ci95(const std::vector<double>& v);

}  // namespace rica::experiments
