#pragma once
// Stopping a run from outside it (Ctrl-C under Python, a signal handler of an embedding program):
// one process-wide flag. request_interrupt() is async-signal-safe (a lock-free atomic store), so a
// SIGINT handler may call it. The cycle engine looks at the flag once per cycle (one process, not
// under mpirun): set, the run ends at that cycle and rica::run throws `interrupted` before it
// writes anything (no trace file, no partial result). The async engine and the analysis commands
// do not look at it.

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

}  // namespace rica
