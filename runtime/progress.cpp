// Progress (rica/progress.hpp).
#include "rica/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace rica {

std::string duration_text(double s) {
  const auto t = static_cast<long>(s + 0.5);
  return t >= 60 ? fmt::format("{}m{:02d}s", t / 60, t % 60) : fmt::format("{}s", t);
}

Progress::Progress(std::string unit, std::size_t total, bool quiet, bool forced)
    : unit_(std::move(unit)), total_(total), tty_(isatty(STDERR_FILENO) != 0), t0_(std::chrono::steady_clock::now()) {
  enabled_ = !quiet && (tty_ || forced);
}

void Progress::update(std::size_t done, const std::string& note) {
  if (!enabled_) return;
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  const double rate = el > 0 ? static_cast<double>(done) / el : 0.0;
  const bool known = total_ > 0 && done <= total_;
  const std::string eta =
      known && done > 0 && done < total_
          ? ", ETA " + duration_text(el / static_cast<double>(done) * static_cast<double>(total_ - done))
          : "";
  const std::string count = known ? fmt::format("{}/{}", done, total_) : fmt::format("{}", done);
  const std::string line = fmt::format("[{} {}] {:.2f} {}/s, {} elapsed{}{}{}", count, unit_, rate, unit_,
                                       duration_text(el), eta, note.empty() ? "" : "  ", note);
  if (tty_) {
    std::fprintf(stderr, "\r  %s\033[K", line.c_str());
    shown_ = true;
    return;
  }
  if (!known) return;  // off a terminal: tenths of a known total only
  if (done * 10 / total_ > last_tenth_ || done == total_) {
    if (done == total_ && last_tenth_ == 10) return;
    last_tenth_ = done * 10 / total_;
    std::fprintf(stderr, "  %s\n", line.c_str());
  }
}

void Progress::finish() {
  if (enabled_ && tty_ && shown_) std::fprintf(stderr, "\n");
}

}  // namespace rica
