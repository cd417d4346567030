#pragma once
// Repeated runs: the seeds of --seeds K and the mean and 95% confidence interval of their figures.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "sweep.hpp"

namespace rica::cli {

/// --seed/--seeds past 2^64 refused: the library's (apps/experiments/sweep.hpp), shared with the requests.
using experiments::check_seeds;
/// The two-sided 95% Student t quantile for `df` degrees of freedom (df >= 1; 1.96 beyond 30).
double student_t95(std::size_t df);
/// Mean and 95% confidence half-width (Student t) of `v` (half-width 0 for fewer than 2 values).
std::pair<double, double> mean_ci95(const std::vector<double>& v);

}  // namespace rica::cli
