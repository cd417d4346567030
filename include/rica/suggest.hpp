#pragma once
// "Did you mean ...?": the one nearest-name rule of every refusal of an unknown name — the CLI's
// subcommands and options, and every registry (topology family, traffic pattern, application,
// switch policy, experiment). Pure functions, thread-safe.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rica {

/// Edit distance between a and b: insertions, deletions, substitutions and swaps of two adjacent
/// characters, each 1 (optimal string alignment).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate nearest to `given` when it is near enough to be a typo: at most a third of
/// `given`'s length in edits (at least 1, at most 3); the first such candidate on a tie; "" when
/// none is near (or `given` is itself a candidate).
std::string nearest_name(std::string_view given, const std::vector<std::string>& candidates);

/// "; did you mean 'x'?" for nearest_name(given, candidates), "" when none is near: the clause
/// every "unknown <kind> 'given'" refusal carries before its list of accepted names.
std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates);

/// The tail of an "unknown <kind> 'given'" refusal: "; did you mean 'x'? valid: <valid>" when a
/// candidate is near, else "; valid: <valid>".
std::string valid_names_tail(std::string_view given, const std::vector<std::string>& candidates,
                             std::string_view valid);

}  // namespace rica
