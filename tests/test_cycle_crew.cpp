// The cycle driver's stepping crew (runtime/machine/cycle_crew.hpp): in every generation each chunk runs
// exactly once and run_all() returns only after all have; a helper that gets no thread holds up no
// generation (the main thread steps its chunk); stop() returns every helper, also from sleep.
#include <gtest/gtest.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "../runtime/machine/cycle_crew.hpp"

namespace {

using rica::detail::CycleCrew;

/// `generations` generations of `chunks` chunks with `helpers` helpers in an arena of `slots`
/// worker slots; checks each generation's runs before the next starts.
void exercise(unsigned chunks, unsigned helpers, int slots, int generations, bool pause_between) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(slots) + 1);
  tbb::task_arena arena(slots + 1, 1);  // one slot for the main thread, as the cycle driver's
  std::vector<std::atomic<int>> runs(chunks);
  std::vector<int> plain(chunks, 0);  // written by whichever thread runs the chunk: ordered by the crew
  std::atomic<int> wrong{0};
  {
    CycleCrew crew;
    int gen = 0;
    crew.start(arena, chunks, helpers, [&](unsigned k) {
      if (plain[k] != gen - 1) ++wrong;  // the previous generation's run of k happened before this one
      plain[k] = gen;
      runs[k].fetch_add(1, std::memory_order_relaxed);
    });
    for (gen = 1; gen <= generations; ++gen) {
      arena.execute([&] { crew.run_all(); });
      for (unsigned k = 0; k < chunks; ++k) ASSERT_EQ(runs[k].load(), gen) << "chunk " << k << ", generation " << gen;
      if (pause_between && gen % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // helpers sleep
    }
    crew.stop();
  }
  EXPECT_EQ(wrong.load(), 0);
}

TEST(CycleCrew, EveryChunkRunsOncePerGeneration) {
  for (unsigned helpers : {0u, 1u, 2u, 3u}) exercise(helpers + 1, helpers, static_cast<int>(helpers), 2000, false);
}

TEST(CycleCrew, MoreChunksThanThreads) { exercise(7, 2, 2, 1000, false); }

TEST(CycleCrew, HelpersSleepBetweenGenerationsAndWake) { exercise(2, 1, 1, 300, true); }

TEST(CycleCrew, AHelperWithoutAThreadHoldsUpNoGeneration) {
  // Three helpers, one worker slot: two helpers wait for it until stop(); the main thread and the
  // one running helper step every chunk meanwhile.
  exercise(4, 3, 1, 500, false);
}

TEST(CycleCrew, StopWithoutAnyGeneration) {
  tbb::task_arena arena(2, 1);
  CycleCrew crew;
  std::atomic<int> runs{0};
  crew.start(arena, 2, 1, [&](unsigned) { ++runs; });
  crew.stop();
  crew.stop();  // idempotent
  EXPECT_EQ(runs.load(), 0);
}

}  // namespace
