#pragma once
// Stepping a list of nodes in order while their state is fetched ahead in stages (both drivers:
// runtime/machine/driver_cycle.cpp over a chunk's active nodes, runtime/machine/async_core.hpp over a block
// round's). Stage k of item t runs ahead[k] steps before step(t), so a stage may read what an
// earlier (farther) stage fetched, and no step waits on a chain of cold lines.
#include <algorithm>
#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace rica::detail {

/// Calls step(j) for j = 0 .. n-1 in order; before step(j), fetch(j + ahead[k], k) for every stage
/// k with j + ahead[k] < n. Every item gets every stage: those that no step precedes by ahead[k]
/// get it before the first step, stages in order. ahead[k] > 0, stages listed farthest first; fetch
/// must be a hint only (no effect on what the steps compute). Cost per item: K tests, K fetches.
template <std::size_t K, class Fetch, class Step>
void run_staged(std::size_t n, const std::array<std::size_t, K>& ahead, Fetch&& fetch, Step&& step) {
  // The stage is a compile-time constant at every call of fetch (unrolled), so a fetch that
  // switches on it is specialised per stage.
  [&]<std::size_t... k>(std::index_sequence<k...>) {
    ((([&] {
       for (std::size_t t = 0; t < std::min(ahead[k], n); ++t) fetch(t, std::integral_constant<std::size_t, k>{});
     })()),
     ...);
    for (std::size_t j = 0; j < n; ++j) {
      ((j + ahead[k] < n ? fetch(j + ahead[k], std::integral_constant<std::size_t, k>{}) : void()), ...);
      step(j);
    }
  }(std::make_index_sequence<K>{});
}

}  // namespace rica::detail
