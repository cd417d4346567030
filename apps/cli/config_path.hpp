#pragma once
// The --config file of this process's command line (config_file.cpp sets it in apply_config;
// options.cpp defines it):
// an input no output may overwrite (check_distinct_outputs, options.cpp, adds it to every
// command's planned outputs). One process, one command line: set once, before the command runs.
#include <string>

namespace rica::cli {
/// The --config file apply_config read; "" before it ran, or without --config.
std::string& config_file_path();
}  // namespace rica::cli
