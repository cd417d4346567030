#pragma once
// Provenance and configuration files: the recorded invocation, --config FILE (JSON or TOML, any
// report's "config"), the configuration a command records and the echo that reproduces it, and the
// option documentation the Python keywords come from.

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rica::cli {

// ---- Provenance and configuration files (docs: docs/reference.md "Configuration and provenance") -------
/// Records the command line and the start time; main calls it once, before parsing.
void set_invocation(int argc, char** argv);
/// The command line as given, each word shell-quoted ("rica run torus:4x4 --rate 0.1").
std::string command_line();
/// When set_invocation ran, ISO 8601 UTC ("2026-11-23T07:37:23Z").
std::string start_time();
/// `word` quoted for a POSIX shell when it needs it.
std::string shell_quote(const std::string& word);

/// --config FILE and --strict-config on c. The file is read by apply_config() before parsing; this
/// declaration documents the options.
CLI::Option* add_config(CLI::App* c);
/// `args` (argv without the program) with the options of `--config FILE` added that the command
/// line does not give (the command line overrides the file). FILE is JSON (or TOML when it ends in
/// .toml: top-level `key = value` lines, the same keys): an object whose keys
/// are the subcommand's option names without the leading dashes, dashed or snake_case
/// ("buffer-words" or "buffer_words"; positionals by name), or a rica JSON report of any
/// subcommand (its "config" object is used). Keys another subcommand takes are listed on one stderr
/// line and skipped; with --strict-config on the command line they are refused. A value is a string, a number, a boolean (flags) or an array
/// (a repeated option, or several positionals); null is skipped. Unknown keys, non-JSON text and
/// other value kinds are refused (usage_error naming --config and the key, with the nearest key).
std::vector<std::string> apply_config(CLI::App& app, std::vector<std::string> args);
/// Every option key of every subcommand (long names without dashes, positional names), sorted:
/// apply_config skips a key of another subcommand (listed on stderr) and refuses one no
/// subcommand takes. Built once from the command table (set_command_table), thread-safe; empty
/// without one (then every key a command does not take is refused).
const std::vector<std::string>& config_keys();
/// The function that declares every subcommand (add_all_commands, commands.hpp), for
/// config_keys(); cli_main.cpp sets it during static initialisation. Returns true.
bool set_command_table(void (*add_all)(CLI::App&, int&));
/// The configuration of parsed subcommand `c`: every option that shapes the result, keyed as for
/// --config, the given value or the default (options without a default and not given are left
/// out). Outputs and presentation (--json, --csv, --trace, --telemetry, --dot, --out, --quiet, --progress,
/// --no-plot, --config) are not configuration. Integers and decimals become JSON numbers.
nlohmann::json option_config(const CLI::App* c);
/// The command line that runs `c` with `config`: "rica <path> <positionals> --key value ...".
std::string echo_command(const CLI::App* c, const nlohmann::json& config);
/// The options of subcommand `command` ("run", "app sort"), in --help's order, for the Python
/// keywords and their docs: keyword (snake_case), option ("--buffer-words", or a positional's
/// name), positional, flag, type, default, help, configuration (recorded in the report), engines
/// ("every engine" or the option table's scope), table (declared in the option table), kind.
/// usage_error for a name that is not a leaf subcommand.
nlohmann::json option_docs(const std::string& command);
/// The provenance block every JSON report carries: rica_version, command_line, start_time,
/// seed, threads (host threads actually used) and config.
nlohmann::json provenance(const nlohmann::json& config, std::uint64_t seed, unsigned threads);

}  // namespace rica::cli
