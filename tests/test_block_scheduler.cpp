// The async engine's block scheduler (runtime/machine/block_scheduler.hpp): every post is run exactly
// once, by its owner or a thief; a range whose worker never starts is still run; stop() returns
// every worker, also from sleep; pause() parks every worker between blocks, and what they wrote
// before is the pausing thread's to read (ThreadSanitizer checks it in the sanitizer subset).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <chrono>
#include <thread>
#include <vector>

#include "../runtime/machine/block_scheduler.hpp"

namespace {

using rica::detail::BlockScheduler;

/// Waits (up to 60 s) until pred() holds.
template <class P>
bool eventually(P pred) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

TEST(BlockScheduler, EveryPostRunsExactlyOnceAndRepostsFromWorkersAreNotLost) {
  constexpr std::size_t blocks = 300;  // ranges of 150 blocks: three bitmap words each
  constexpr int reposts = 50;          // each block re-posts itself from its run this many times
  for (unsigned workers : {1u, 2u, 3u}) {
    BlockScheduler s;
    s.init(blocks, workers);
    std::vector<std::atomic<int>> runs(blocks);
    std::vector<std::atomic<int>> inside(blocks);  // a block is never run twice at once
    std::atomic<int> overlap{0};
    std::vector<std::thread> ts;
    for (unsigned w = 0; w < workers; ++w)
      ts.emplace_back([&] {
        s.work([&](std::size_t b) {
          if (inside[b].fetch_add(1) != 0) ++overlap;
          const int n = runs[b].fetch_add(1) + 1;
          inside[b].fetch_sub(1);
          if (n <= reposts) s.post(b);  // still scheduled: posted again (at most one post pending)
        });
      });
    for (std::size_t b = 0; b < blocks; ++b) s.post(b);
    ASSERT_TRUE(eventually([&] {
      for (auto& r : runs)
        if (r.load() < reposts + 1) return false;
      return true;
    })) << workers << " workers";
    s.stop();
    for (auto& t : ts) t.join();
    for (std::size_t b = 0; b < blocks; ++b) EXPECT_EQ(runs[b].load(), reposts + 1) << "block " << b;
    EXPECT_EQ(overlap.load(), 0);
  }
}

TEST(BlockScheduler, PauseParksEveryWorkerBetweenBlocks) {
  constexpr std::size_t blocks = 64;
  for (unsigned workers : {1u, 2u, 3u}) {
    BlockScheduler s;
    s.init(blocks, workers);
    std::vector<std::uint64_t> runs(blocks, 0);  // plain memory: written by workers, read while paused
    std::atomic<int> inside{0};                  // blocks being run now
    std::atomic<bool> more{true};
    std::vector<std::thread> ts;
    for (unsigned w = 0; w < workers; ++w)
      ts.emplace_back([&] {
        s.work([&](std::size_t b) {
          inside.fetch_add(1);
          ++runs[b];
          inside.fetch_sub(1);
          if (more.load()) s.post(b);  // always busy: a pause must stop running workers
        });
      });
    for (std::size_t b = 0; b < blocks; ++b) s.post(b);
    std::uint64_t last = 0;
    for (int k = 0; k < 50; ++k) {
      s.pause();
      EXPECT_EQ(inside.load(), 0) << "a block ran while paused";
      std::uint64_t total = 0;
      for (std::uint64_t r : runs) total += r;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      std::uint64_t again = 0;
      for (std::uint64_t r : runs) again += r;
      EXPECT_EQ(total, again) << "nothing runs while paused";
      EXPECT_GE(total, last);
      last = total;
      s.resume();
      std::this_thread::sleep_for(std::chrono::microseconds(200));  // the workers run on a while
    }
    // Idle workers (asleep on the futex) park too.
    more.store(false);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    s.pause();
    s.resume();
    s.stop();
    for (auto& t : ts) t.join();
    EXPECT_GT(last, 0u);
  }
}

// A worker stops the world between two blocks (pause_from_worker, as the async driver's windows
// do) while the main thread stops it too: one holder at a time, no block runs while a stop is
// held, plain memory written by the workers is read by the holder (ThreadSanitizer checks the
// ordering in the sanitizer subset), and every worker goes on after each stop.
TEST(BlockScheduler, WorkersAndTheMainThreadStopTheWorldOneAtATime) {
  constexpr std::size_t blocks = 64;
  for (unsigned workers : {1u, 2u, 3u}) {
    BlockScheduler s;
    s.init(blocks, workers);
    std::vector<std::uint64_t> runs(blocks, 0);  // plain memory: written by workers, read by holders
    std::atomic<int> inside{0}, holders{0};
    std::atomic<bool> more{true};
    std::atomic<std::uint64_t> worker_stops{0};
    std::atomic<unsigned> tick{0};
    const auto held = [&] {  // the holder's reads: nothing else runs or holds
      EXPECT_EQ(holders.fetch_add(1), 0) << "two holders at once";
      EXPECT_EQ(inside.load(), 0) << "a block ran while stopped";
      std::uint64_t total = 0;
      for (std::uint64_t r : runs) total += r;
      std::this_thread::sleep_for(std::chrono::microseconds(20));
      std::uint64_t again = 0;
      for (std::uint64_t r : runs) again += r;
      EXPECT_EQ(total, again) << "nothing runs while stopped";
      holders.fetch_sub(1);
    };
    std::vector<std::thread> ts;
    for (unsigned w = 0; w < workers; ++w)
      ts.emplace_back([&] {
        s.work(
            [&](std::size_t b) {
              inside.fetch_add(1);
              ++runs[b];
              inside.fetch_sub(1);
              if (more.load()) s.post(b);
            },
            [&] {
              if (tick.fetch_add(1) % 97 != 0 || !more.load()) return;
              if (!s.pause_from_worker()) return;  // the main thread holds it: park instead
              held();
              worker_stops.fetch_add(1);
              s.resume();
            });
      });
    for (std::size_t b = 0; b < blocks; ++b) s.post(b);
    for (int k = 0; k < 30; ++k) {
      s.pause();
      held();
      s.resume();
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    const std::uint64_t stops = worker_stops.load();
    EXPECT_TRUE(eventually([&] { return worker_stops.load() > stops + 3; })) << "the workers go on after each stop";
    more.store(false);
    s.stop();
    for (auto& t : ts) t.join();
    EXPECT_GT(worker_stops.load(), 0u);
  }
}

TEST(BlockScheduler, ARangeWhoseWorkerNeverStartsIsStolen) {
  BlockScheduler s;
  s.init(64, 4);  // four ranges, one worker running
  std::atomic<int> runs{0};
  std::thread t([&] { s.work([&](std::size_t) { ++runs; }); });
  for (std::size_t b = 0; b < 64; ++b) s.post(b);
  EXPECT_TRUE(eventually([&] { return runs.load() == 64; }));
  s.stop();
  t.join();
  EXPECT_EQ(runs.load(), 64);
}

TEST(BlockScheduler, SleepingWorkersWakeForAPostAndForStop) {
  BlockScheduler s;
  s.init(8, 2);
  std::atomic<int> runs{0};
  std::vector<std::thread> ts;
  for (int w = 0; w < 2; ++w) ts.emplace_back([&] { s.work([&](std::size_t) { ++runs; }); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // both spin out and sleep
  s.post(7);
  EXPECT_TRUE(eventually([&] { return runs.load() == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  s.stop();
  for (auto& t : ts) t.join();
  EXPECT_EQ(runs.load(), 1);
}

}  // namespace
