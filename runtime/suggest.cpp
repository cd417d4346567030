// The nearest-name rule of every refusal of an unknown name (rica/suggest.hpp).
#include "rica/suggest.hpp"

#include <algorithm>

namespace rica {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string nearest_name(std::string_view given, const std::vector<std::string>& candidates) {
  if (std::find(candidates.begin(), candidates.end(), given) != candidates.end()) return "";
  std::string best;
  std::size_t best_d = std::min<std::size_t>(3, std::max<std::size_t>(1, given.size() / 3)) + 1;
  for (const std::string& c : candidates) {
    const std::size_t d = edit_distance(given, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best;
}

std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates) {
  const std::string n = nearest_name(given, candidates);
  return n.empty() ? std::string() : "; did you mean '" + n + "'?";
}

std::string valid_names_tail(std::string_view given, const std::vector<std::string>& candidates,
                             std::string_view valid) {
  const std::string hint = did_you_mean(given, candidates);
  return (hint.empty() ? std::string("; valid: ") : hint + " valid: ") + std::string(valid);
}

}  // namespace rica
