#pragma once
// Stopping a run from outside it (Ctrl-C under Python, a signal handler of an embedding program):
// one process-wide flag. request_interrupt() is async-signal-safe (a lock-free atomic store), so a
// SIGINT handler may call it (`rica` installs one; so does the Python module during a call).
// Who looks at it (one process, not under mpirun: ranks would wait for each other):
// - the cycle engine once per cycle, the async engine once per block run: set, the run ends and
//   rica::run throws `interrupted` before it writes anything (no trace file, no partial result);
// - the analyses (metrics, channel load, partition, embed) once per source, destination or
//   batch of guest arcs, through check_interrupt().
// A caller that writes files catches `interrupted` only to remove what it had begun.

#include <stdexcept>

namespace rica {

/// Thrown by rica::run (rica/engine.hpp) when a run stopped because request_interrupt() was called.
class interrupted : public std::runtime_error {
 public:
  interrupted() : std::runtime_error("interrupted") {}
};

/// Asks every running cycle-engine run to stop. Async-signal-safe; any thread.
void request_interrupt() noexcept;
/// Whether request_interrupt() was called since the last clear_interrupt(). Any thread.
[[nodiscard]] bool interrupt_requested() noexcept;
/// Forgets a request (before a new run). Any thread.
void clear_interrupt() noexcept;
/// Throws `interrupted` when a stop was requested: the analyses' outer loops call it (one relaxed
/// load). Any thread; inside a oneTBB loop the exception cancels the loop and reaches its caller.
inline void check_interrupt() {
  if (interrupt_requested()) throw interrupted();
}

}  // namespace rica
