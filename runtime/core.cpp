#include "rica/core.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include <sys/resource.h>
#include <unistd.h>

namespace rica {

std::uint64_t shape_size(const Shape& shape) {
  std::uint64_t n = 1;
  for (auto r : shape) n *= r;
  return n;
}

Coords to_coords(const Shape& shape, node_t id) {
  Coords c(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) {
    c[i] = id % shape[i];
    id /= shape[i];
  }
  return c;
}

node_t from_coords(const Shape& shape, const Coords& c) {
  std::uint64_t id = 0;
  for (std::size_t i = shape.size(); i-- > 0;) id = id * shape[i] + c[i];
  return static_cast<node_t>(id);
}

std::string shape_text(const Shape& shape) {
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(shape[i]);
  }
  return s;
}

std::uint64_t parse_uint(const std::string& text, const std::string& what, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  const bool digits = !text.empty() && text.front() >= '0' && text.front() <= '9';
  if (!digits || ec != std::errc() || p != end || v < lo || v > hi) {
    throw usage_error(fmt::format("{}: {} is not an integer in [{}, {}]", what, quote_input(text, 40), lo, hi));
  }
  return v;
}

double parse_real(const std::string& text, const std::string& what, double lo, double hi, bool lo_open) {
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v, std::chars_format::general);
  const bool start_ok = !text.empty() && (std::isdigit(static_cast<unsigned char>(text.front())) ||
                                          text.front() == '.' || text.front() == '-');
  if (!start_ok || ec != std::errc() || p != end || !std::isfinite(v) || v > hi || (lo_open ? v <= lo : v < lo)) {
    throw usage_error(fmt::format("{}: {} is not a number in {}{}, {}]", what, quote_input(text, 40),
                                  lo_open ? "(" : "[", lo, hi));
  }
  return v;
}

std::string quote_input(std::string_view text, std::size_t max_chars) {
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < max_chars; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c >= 0x7f || c == '\\' || c == '\'')
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  out += text.size() > max_chars ? "'..." : "'";
  return out;
}

namespace {
/// RICA_MEMORY_LIMIT in bytes (infinity when unset).
double memory_limit_env() {
  const char* env = std::getenv("RICA_MEMORY_LIMIT");
  if (env == nullptr) return std::numeric_limits<double>::infinity();
  std::string text = env;
  double unit = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K': case 'k': unit = 0x1p10; break;
      case 'M': case 'm': unit = 0x1p20; break;
      case 'G': case 'g': unit = 0x1p30; break;
      default: break;
    }
    if (unit != 1) text.pop_back();
  }
  const std::uint64_t v = [&] {
    try {
      return parse_uint(text, "", 1, std::uint64_t{1} << 50);
    } catch (const usage_error&) {
      throw usage_error(fmt::format("RICA_MEMORY_LIMIT: {} is not a byte count (an integer >= 1, optionally "
                                    "followed by K, M or G)", quote_input(env)));
    }
  }();
  return static_cast<double>(v) * unit;
}
}  // namespace

MemoryRoom memory_room() {
  MemoryRoom r;
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char key[64];
    unsigned long long kb = 0;
    while (std::fscanf(f, "%63s %llu kB", key, &kb) == 2)
      if (std::string(key) == "MemAvailable:") r.resident = static_cast<double>(kb) * 1024.0;
    std::fclose(f);
  }
  if (r.resident <= 0)
    r.resident = static_cast<double>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  double mapped = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    unsigned long long pages = 0;
    if (std::fscanf(f, "%llu", &pages) == 1) mapped = static_cast<double>(pages) * static_cast<double>(sysconf(_SC_PAGESIZE));
    std::fclose(f);
  }
  r.address = std::numeric_limits<double>::infinity();
  for (int res : {RLIMIT_AS, RLIMIT_DATA}) {
    rlimit rl{};
    if (getrlimit(res, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
      r.address = std::min(r.address, std::max(0.0, static_cast<double>(rl.rlim_cur) - mapped));
  }
  r.resident = std::min({r.resident, r.address, memory_limit_env()});
  return r;
}

void require_memory(const std::string& what, double bytes, const std::string& advice) {
  const MemoryRoom room = memory_room();
  if (bytes > 0.9 * room.resident)
    throw usage_error(fmt::format("memory: {} needs about {:.1f} GB but {:.1f} GB are available (free memory, "
                                  "ulimit -v/-d, RICA_MEMORY_LIMIT); {}",
                                  what, bytes / 1e9, room.resident / 1e9, advice));
}

namespace detail {
void check_range(const std::string& what, const std::string& name, std::int64_t v, std::int64_t lo,
                 std::int64_t hi) {
  if (v < lo || v > hi)
    throw usage_error(fmt::format("{}: parameter '{}' = {} is out of range [{}, {}]", what, name, v, lo, hi));
}
void check_node_count(const std::string& what, std::uint64_t nodes) {
  if (nodes > max_nodes)
    throw usage_error(fmt::format("{}: {} nodes is more than the supported maximum of {}", what, nodes,
                                  max_nodes));
}
void check_ports_and_classes(const std::string& what, std::uint64_t ports, std::uint64_t classes) {
  if (ports > max_ports)
    throw usage_error(fmt::format("{}: {} ports per node is more than the supported maximum of {}", what, ports,
                                  max_ports));
  if (classes > max_buffer_classes)
    throw usage_error(fmt::format("{}: {} buffer classes is more than the supported maximum of {} (nested "
                                  "composites multiply their children's classes)", what, classes, max_buffer_classes));
}
}  // namespace detail
}  // namespace rica
