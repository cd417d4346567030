#pragma once
// Sub-commands of the rica CLI. Each registers itself on the CLI11 app; parse errors and
// rica::usage_error end the program with status 2 and a one-line message (see main.cpp).

#include <CLI/CLI.hpp>

namespace rica::cli {

/// `rica list`, `rica topo`, `rica route`.
void add_topology_commands(CLI::App& app);

}  // namespace rica::cli
