#pragma once
// The contract every fuzz target of tests/fuzz checks (docs/reference.md, "Fuzzing"): an input is
// accepted, or refused with rica::usage_error (the CLI's exit 2, one line); any other exception,
// a crash, a sanitizer report, a hang or an allocation above the run's limit is a finding.
//
// A target is one file, fuzz_<name>.cpp, defining LLVMFuzzerTestOneInput with rica::fuzz::refused_or_ok
// around the parser it drives, and one line in tests/fuzz/CMakeLists.txt (rica_fuzz_target); its
// seed corpus is tests/fuzz/<name>/ (one input a file; every crash found is added there, so the
// replay test below keeps it fixed). Built with clang's libFuzzer (-DRICA_FUZZ=ON, the `fuzz`
// preset) it fuzzes; in any other build replay_main.cpp runs the corpus through it as a ctest
// regression test (fuzz_replay_<name>).
//
// Thread-safety: one input at a time (libFuzzer's model); the helpers below keep no state but the
// scratch file's name.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "rica/core.hpp"

namespace rica::fuzz {

/// The input as text.
inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// Runs `parse`; a usage_error is the accepted refusal, anything else escapes (libFuzzer reports
/// an uncaught exception as a crash: the finding).
template <class F>
void refused_or_ok(F&& parse) {
  try {
    parse();
  } catch (const usage_error&) {
  }
}

/// A per-process scratch file holding `text` (file readers are fuzzed through their real entry
/// point, rica::read_text_file included); `ext` ends its name (".toml" selects TOML in --config).
/// Returns the path; the file is rewritten on every call.
inline std::string scratch_file(std::string_view text, const char* ext) {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/rica-fuzz-" + std::to_string(::getpid()) + ext;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::terminate();  // not an input's fault: stop the run loudly
  if (!text.empty() && std::fwrite(text.data(), 1, text.size(), f) != text.size()) std::terminate();
  if (std::fclose(f) != 0) std::terminate();
  return path;
}

/// The input split at its first newline: two fields of one case (a spec and a topology, ...).
inline std::pair<std::string, std::string> split_first_line(const std::string& s) {
  const auto nl = s.find('\n');
  if (nl == std::string::npos) return {s, ""};
  return {s.substr(0, nl), s.substr(nl + 1)};
}

}  // namespace rica::fuzz
