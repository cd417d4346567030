// The contract of runtime/machine/tsan.hpp under ThreadSanitizer, one scenario per run (tests/CMakeLists.txt
// registers it in the TSan preset only). Threads stand for a loop's caller and bodies; relaxed
// atomics order them in time without a happens-before edge TSan would see, so the only edges are
// thread creation (all threads are created before any access to `shared`) and the annotations.
//   fork, join                 an edge the annotations state: must run without a report.
//   siblings, nested_fork,     no edge (two bodies of one loop, one starting after the other ends;
//   nested_join                a nested loop's fork or join in between): TSan must report the race.
//                              A single token shared by forks and joins (the annotation before
//                              issue 28) ordered these and hid the race.
// Exit status: 0 when the scenario ran to its end (then it prints "no report"); TSan exits earlier
// (halt_on_error=1) when it reports.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>

#include "../runtime/machine/tsan.hpp"

namespace {

using rica::detail::TsanLoop;
using rica::detail::TsanTask;

int shared = 0;  // the plain variable that races, or not
std::atomic<int> stage{0};

/// Relaxed on purpose: orders in time, not in TSan's happens-before.
void advance(int s) { stage.store(s, std::memory_order_relaxed); }
void wait_for(int s) {
  while (stage.load(std::memory_order_relaxed) < s) std::this_thread::yield();
}
[[gnu::noinline]] void write(int v) { shared = v; }
[[gnu::noinline]] int read() { return shared; }

/// The caller's set-up happens before a body: no report.
int fork_edge() {
  TsanLoop loop;
  int seen = -1;
  std::thread body([&] {
    wait_for(1);
    const TsanTask task(loop);
    seen = read();
  });
  write(1);
  loop.fork();
  advance(1);
  body.join();
  return seen == 1 ? 0 : 1;
}

/// A body happens before the caller's code after the join: no report.
int join_edge() {
  TsanLoop loop;
  loop.fork();
  std::thread body([&] {
    {
      const TsanTask task(loop);
      write(1);
    }
    advance(1);
  });
  wait_for(1);
  loop.join();
  const int seen = read();
  body.join();
  return seen == 1 ? 0 : 1;
}

/// Body b starts after body a has ended: still unordered, a race.
int siblings() {
  TsanLoop loop;
  std::thread a([&] {
    wait_for(1);
    {
      const TsanTask task(loop);
      write(1);
    }
    advance(2);
  });
  std::thread b([&] {
    wait_for(2);
    const TsanTask task(loop);
    write(2);
  });
  loop.fork();
  advance(1);
  a.join();
  b.join();
  loop.join();
  return 0;
}

/// Body a writes, then forks a nested loop (its inner body runs on thread c); sibling b starts after
/// that fork: the fork orders a's write before the inner body only, not before b. A race.
int nested_fork() {
  TsanLoop outer, inner;  // inner: the loop body a runs (declared here so that c can name it)
  std::thread a([&] {
    wait_for(1);
    const TsanTask task(outer);
    write(1);
    inner.fork();
    advance(2);
    wait_for(4);  // the inner body and b are done
    inner.join();
  });
  std::thread c([&] {
    wait_for(2);
    { const TsanTask task(inner); }
    advance(3);
  });
  std::thread b([&] {
    wait_for(3);
    {
      const TsanTask task(outer);
      write(2);
    }
    advance(4);
  });
  outer.fork();
  advance(1);
  a.join();
  b.join();
  c.join();
  outer.join();
  return 0;
}

/// Bodies a and b run together; b writes and ends; then a joins a nested loop: that join orders a
/// after its inner body only, not after b. A race.
int nested_join() {
  TsanLoop outer, inner;
  std::thread b([&] {
    wait_for(1);
    {
      const TsanTask task(outer);
      write(2);
    }
    advance(2);
  });
  std::thread a([&] {
    wait_for(1);
    const TsanTask task(outer);
    wait_for(2);  // b has ended
    inner.fork();
    advance(3);
    wait_for(4);  // the inner body has ended
    inner.join();
    write(1);
  });
  std::thread c([&] {
    wait_for(3);
    { const TsanTask task(inner); }
    advance(4);
  });
  outer.fork();
  advance(1);
  a.join();
  b.join();
  c.join();
  outer.join();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s fork|join|siblings|nested_fork|nested_join\n", argv[0]);
    return 2;
  }
  const char* m = argv[1];
  int rc = 2;
  if (!std::strcmp(m, "fork"))
    rc = fork_edge();
  else if (!std::strcmp(m, "join"))
    rc = join_edge();
  else if (!std::strcmp(m, "siblings"))
    rc = siblings();
  else if (!std::strcmp(m, "nested_fork"))
    rc = nested_fork();
  else if (!std::strcmp(m, "nested_join"))
    rc = nested_join();
  else
    std::fprintf(stderr, "unknown scenario '%s'\n", m);
  if (rc == 0) std::printf("%s: no report\n", m);
  return rc;
}
