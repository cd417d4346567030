#pragma once
// Progress: the one progress display of every long-running command and engine run.
#include <chrono>
#include <cstddef>
#include <string>

namespace rica {

/// A one-line display on stderr: "[done/total <unit>] <rate> <unit>/s, <elapsed> elapsed, ETA 1m05s
/// <note>". On a terminal it redraws one line; with `forced` off a terminal it prints a line per
/// tenth of the work (never more); silent when `quiet`, or when stderr is not a terminal and not
/// `forced`. total 0: unknown (no ETA, "[done <unit>]"); done may pass total (an engine draining
/// after its window): then no ETA either. update() is called from one thread at a time.
class Progress {
 public:
  Progress(std::string unit, std::size_t total, bool quiet, bool forced);
  void update(std::size_t done, const std::string& note = "");
  /// Ends the line (terminal) — called once after the last update.
  void finish();
  bool enabled() const noexcept { return enabled_; }

 private:
  std::string unit_;
  std::size_t total_;
  bool enabled_, tty_;
  std::size_t last_tenth_ = 0;
  bool shown_ = false;
  std::chrono::steady_clock::time_point t0_;
};
/// "1m05s" / "42s".
std::string duration_text(double seconds);

}  // namespace rica
