// Raw cost of the link buffer's building block, for comparison with rica's hop rate:
// boost::lockfree::spsc_queue<Packet> (capacity 17, as a default 32-word link buffer) with the
// producer and the consumer on two threads (two cores), streaming; and on one thread.
#include <benchmark/benchmark.h>

#include <atomic>
#include <boost/lockfree/spsc_queue.hpp>
#include <thread>

#include "rica/link_buffer.hpp"
#include "rica/packet.hpp"

namespace {

void bm_spsc_cross_core(benchmark::State& state) {
  boost::lockfree::spsc_queue<rica::Packet> q(17);
  const std::int64_t n = 1 << 22;
  for (auto _ : state) {
    std::thread consumer([&] {
      rica::Packet p;
      std::int64_t got = 0;
      while (got < n)
        if (q.pop(p)) ++got;
    });
    rica::Packet p;
    for (std::int64_t i = 0; i < n;) {
      p.seq = static_cast<std::uint32_t>(i);
      if (q.push(p)) ++i;
    }
    consumer.join();
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(bm_spsc_cross_core)->Unit(benchmark::kMillisecond)->UseRealTime();

void bm_spsc_same_thread(benchmark::State& state) {
  boost::lockfree::spsc_queue<rica::Packet> q(17);
  rica::Packet p;
  for (auto _ : state) {
    q.push(p);
    q.pop(p);
    benchmark::DoNotOptimize(p);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_spsc_same_thread);

void bm_link_buffer_cross_core(benchmark::State& state) {
  // The same stream through rica::LinkBuffer (word credits, wake-up flag, slot pool), 3-word packets.
  rica::LinkBufferSet set(1, 32, 2);
  rica::LinkBuffer& b = set[0];
  const std::int64_t n = 1 << 22;
  for (auto _ : state) {
    std::thread consumer([&] {
      rica::SlotCache cache(set.pool());
      std::int64_t got = 0;
      while (got < n)
        if (!b.empty()) {
          b.pop_and_check(cache);
          ++got;
        }
    });
    rica::LinkBuffer::Credit c;
    rica::SlotCache cache(set.pool());
    rica::Packet p;
    p.words = 3;
    for (std::int64_t i = 0; i < n;)
      if (b.fits(c, 3)) {
        b.push(c, p, cache);
        ++i;
      }
    consumer.join();
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(bm_link_buffer_cross_core)->Unit(benchmark::kMillisecond)->UseRealTime();

void bm_atomic_rmw(benchmark::State& state) {
  std::atomic<std::uint64_t> w{0};
  std::uint64_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(w.fetch_or(++i & 63, std::memory_order_acq_rel));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_atomic_rmw);

}  // namespace

BENCHMARK_MAIN();
