#pragma once
// Bounded, checked file input and output for user-named files (topology files, key files, every
// report the CLI writes). Every failure is a usage_error naming `what` (the option or spec that
// named the file) and the reason, on one line.

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace rica {

/// Limits of one read: the file may hold at most `max_bytes` bytes and no line longer than
/// `max_line` bytes (newline excluded).
struct ReadLimits {
  std::uint64_t max_bytes;
  std::uint64_t max_line;
};

/// The whole content of the regular file `path`. Refuses, without blocking or reading further:
/// a missing or unreadable file, anything but a regular file (FIFOs, devices such as /dev/zero,
/// directories), a file above limits.max_bytes, a line above limits.max_line. Messages read
/// "<what>: <reason>".
std::string read_text_file(const std::string& path, const std::string& what, const ReadLimits& limits);

/// Writes `text` to `path` (created or replaced whole: a regular file is written to a hidden sibling
/// and renamed over it, so no reader or interruption sees half a file); every step checked (open, write,
/// flush, close), so a full device or a vanished directory is an error: "<what>: cannot write
/// '<path>': <reason>". Missing parent directories are created first (every output option, as --out).
void write_text_file(const std::string& path, const std::string& text, const std::string& what);

/// Writes `path` as write_text_file does (a regular file replaced whole through a hidden sibling,
/// open, flush and close checked, the sibling removed on failure), its content streamed by `fill`
/// into the open file; `fill` returns false when one of its writes failed. For outputs too large to
/// hold as one string (a run's packet trace). Same messages as write_text_file.
void write_file_streamed(const std::string& path, const std::function<bool(std::FILE*)>& fill,
                         const std::string& what);

/// Checks, before any work, that `path` can be written by write_text_file: non-empty, not a
/// directory, in a writable directory (or an existing writable file); a missing directory must be
/// creatable (its nearest existing ancestor a writable directory). Creates nothing.
void check_output_file(const std::string& path, const std::string& what);

/// Makes sure `dir` is a writable directory, creating it (and its parents) when missing.
/// Refuses an empty path, a path that exists and is not a directory, and an unwritable one.
void prepare_output_dir(const std::string& dir, const std::string& what);

}  // namespace rica
