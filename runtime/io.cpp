// Bounded, checked file input and output (rica/io.hpp).
#include "rica/io.hpp"
#include "rica/distributed.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "rica/core.hpp"
#include "rica/interrupt.hpp"

namespace rica {
namespace {

std::string errno_text(int e) { return std::strerror(e); }

/// Closes a descriptor on every path out of read_text_file.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string parent_of(const std::string& path) {
  const std::filesystem::path p(path);
  const auto parent = p.parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

/// The nearest ancestor of the missing directory `dir` that exists (lstat succeeds), "." for a
/// relative path none of whose components exist.
std::string existing_ancestor(const std::string& dir) {
  std::filesystem::path up = std::filesystem::path(dir).lexically_normal();
  struct stat st {};
  while (up.has_parent_path() && up != up.root_path()) {
    up = up.parent_path();
    if (::lstat(up.c_str(), &st) == 0) return up.string();
  }
  return up.is_absolute() ? up.string() : std::string(".");
}

/// Creates the missing parent directories of the output file `path` (every output option creates
/// them, as --out creates its directory); check_output_file has already said they can be.
void make_parent_dirs(const std::string& path, const std::string& what) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return;
  struct stat st {};
  if (::stat(parent.c_str(), &st) == 0) return;
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) throw usage_error(fmt::format("{}: cannot create directory '{}': {}", what, parent.string(), ec.message()));
}

}  // namespace

std::string read_text_file(const std::string& path, const std::string& what, const ReadLimits& limits) {
  if (path.empty()) throw usage_error(fmt::format("{}: empty file name", what));
  // O_NONBLOCK: opening a FIFO without a writer must not block; the type check below refuses it.
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) throw usage_error(fmt::format("{}: cannot read '{}': {}", what, path, errno_text(errno)));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0)
    throw usage_error(fmt::format("{}: cannot read '{}': {}", what, path, errno_text(errno)));
  if (!S_ISREG(st.st_mode))
    throw usage_error(fmt::format("{}: '{}' is not a regular file (devices, FIFOs and directories are refused)",
                                  what, path));
  if (static_cast<std::uint64_t>(st.st_size) > limits.max_bytes)
    throw usage_error(fmt::format("{}: '{}' has {} bytes; at most {} are accepted", what, path, st.st_size,
                                  limits.max_bytes));
  // Regular files do not block; clear O_NONBLOCK anyway so that read() semantics are the usual.
  ::fcntl(f.fd, F_SETFL, ::fcntl(f.fd, F_GETFL) & ~O_NONBLOCK);
  std::string text;
  char buf[1 << 16];
  std::uint64_t line = 0, lineno = 1;
  for (;;) {
    const ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw usage_error(fmt::format("{}: cannot read '{}': {}", what, path, errno_text(errno)));
    }
    if (n == 0) break;
    // The size seen by fstat may be stale (a growing file, /proc): the bound holds on what is read.
    if (text.size() + static_cast<std::uint64_t>(n) > limits.max_bytes)
      throw usage_error(fmt::format("{}: '{}' has more than {} bytes; at most {} are accepted", what, path,
                                    limits.max_bytes, limits.max_bytes));
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] == '\n') {
        line = 0;
        ++lineno;
      } else if (++line > limits.max_line) {
        throw usage_error(fmt::format("{}: '{}' line {} is longer than {} bytes", what, path, lineno,
                                      limits.max_line));
      }
    }
    text.append(buf, static_cast<std::size_t>(n));
  }
  // A UTF-8 byte order mark (what some editors on Windows save first) is not content: every reader
  // (topologies, traces, matrices, SWF, --config) sees the text after it.
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  return text;
}

void write_text_file(const std::string& path, const std::string& text, const std::string& what) {
  write_file_streamed(
      path, [&](std::FILE* f) { return text.empty() || std::fwrite(text.data(), 1, text.size(), f) == text.size(); },
      what);
}

void write_file_streamed(const std::string& path, const std::function<bool(std::FILE*)>& fill,
                         const std::string& what) {
  if (path.empty()) throw usage_error(fmt::format("{}: empty file name", what));
  if (dist::rank() != 0) return;  // under mpirun, rank 0 writes every output (rica/distributed.hpp)
  // After Ctrl-C (or SIGTERM) nothing more is written: the command stops with what it had, and
  // a file finished after the request is not left behind (checked again before the rename).
  check_interrupt();
  // A regular file (or a new one) is written whole to a hidden sibling and renamed over `path`, so
  // an interrupted or failed write never leaves a half-written file; anything else (a device such
  // as /dev/stdout, a pipe, a symbolic link) is written in place.
  struct stat st {};
  const bool in_place = ::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  if (!in_place) make_parent_dirs(path, what);
  const std::filesystem::path p(path);
  const std::string tmp =
      in_place ? path
               : (p.parent_path() / fmt::format(".{}.rica-{}.tmp", p.filename().string(), ::getpid())).string();
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) throw usage_error(fmt::format("{}: cannot write '{}': {}", what, path, errno_text(errno)));
  errno = 0;
  bool ok = false;
  try {
    ok = fill(f);
  } catch (...) {
    std::fclose(f);
    if (!in_place) ::unlink(tmp.c_str());
    throw;
  }
  int err = ok ? 0 : errno;
  if (std::fflush(f) != 0 && !err) err = errno;
  if (std::fclose(f) != 0 && !err) err = errno;
  if (!err && ok && !in_place && interrupt_requested()) {
    ::unlink(tmp.c_str());
    throw interrupted();
  }
  if (!err && ok && !in_place && std::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err || !ok) {
    if (!in_place) ::unlink(tmp.c_str());
    throw usage_error(fmt::format("{}: cannot write '{}': {}", what, path, errno_text(err ? err : EIO)));
  }
}

void check_output_file(const std::string& path, const std::string& what) {
  if (path.empty()) throw usage_error(fmt::format("{}: empty file name; give a file to write", what));
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw usage_error(fmt::format("{}: '{}' is a directory; give a file to write", what, path));
    if (::access(path.c_str(), W_OK) != 0)
      throw usage_error(fmt::format("{}: cannot write '{}': {}", what, path, errno_text(errno)));
    struct stat ls {};
    if (::lstat(path.c_str(), &ls) != 0 || !S_ISREG(ls.st_mode)) return;  // written in place
  }
  // A regular file is replaced by a rename (write_text_file): its directory must be writable.
  const std::string dir = parent_of(path);
  struct stat ds {};
  if (::stat(dir.c_str(), &ds) != 0) {
    // Missing: write_file_streamed creates it (as --out does), from its nearest existing ancestor,
    // which must then be a writable directory.
    if (errno != ENOENT)
      throw usage_error(fmt::format("{}: cannot write '{}': directory '{}': {}", what, path, dir, errno_text(errno)));
    const std::string up = existing_ancestor(dir);
    if (::stat(up.c_str(), &ds) != 0 || !S_ISDIR(ds.st_mode))
      throw usage_error(fmt::format("{}: cannot create directory '{}': '{}' is not a directory", what, dir, up));
    if (::access(up.c_str(), W_OK | X_OK) != 0)
      throw usage_error(fmt::format("{}: cannot create directory '{}': '{}': {}", what, dir, up, errno_text(errno)));
    return;
  }
  if (!S_ISDIR(ds.st_mode))
    throw usage_error(fmt::format("{}: cannot write '{}': '{}' is not a directory", what, path, dir));
  if (::access(dir.c_str(), W_OK) != 0)
    throw usage_error(fmt::format("{}: cannot write '{}': directory '{}': {}", what, path, dir, errno_text(errno)));
}

void prepare_output_dir(const std::string& dir, const std::string& what) {
  if (dir.empty()) throw usage_error(fmt::format("{}: empty directory name; give a directory to write to", what));
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw usage_error(fmt::format("{}: '{}' exists and is not a directory", what, dir));
  } else {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw usage_error(fmt::format("{}: cannot create directory '{}': {}", what, dir, ec.message()));
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw usage_error(fmt::format("{}: cannot write in directory '{}': {}", what, dir, errno_text(errno)));
}

}  // namespace rica
