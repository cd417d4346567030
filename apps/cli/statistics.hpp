#pragma once
// Repeated runs: the seeds of --seeds K and the mean and 95% confidence interval of their figures,
// the library's (apps/experiments/run_statistics.hpp), under the CLI's names.

#include "run_statistics.hpp"

namespace rica::cli {
using experiments::check_seeds;
using experiments::mean_ci95;
using experiments::student_t95;
}  // namespace rica::cli
