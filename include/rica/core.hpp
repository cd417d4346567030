#pragma once
// Basic vocabulary shared by every part of rica: node, port and buffer-class numbers, the link
// and routing-decision value types, coordinates, and the error type user input errors raise.

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rica {

/// Node number. PEs are nodes [0, pes()); router-only nodes (indirect networks) follow them.
using node_t = std::uint32_t;
/// Port number of a node; out-ports and in-ports are numbered independently from 0.
using port_t = std::uint16_t;
/// Buffer class (virtual channel) number; a topology uses classes [0, buffer_classes()).
using class_t = std::uint16_t;

inline constexpr node_t no_node = std::numeric_limits<node_t>::max();

/// A 64-bit mixing function (MurmurHash3's finaliser): every input bit affects every output bit.
/// rica's one hash for seeds, packet ids and seeded tie-breaks (deterministic on every host).
constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

/// A directed link leaving a node through one out-port: the peer node and the peer's in-port
/// on which it arrives. A port that a node does not have yields an absent link (`!present()`).
struct Link {
  node_t peer = no_node;
  port_t in_port = 0;
  [[nodiscard]] constexpr bool present() const noexcept { return peer != no_node; }
  friend constexpr bool operator==(const Link&, const Link&) = default;
};

/// A routing decision: either "deliver here", or "leave through `port`, arriving downstream in
/// buffer class `next_class`". Four bytes, returned by value; no allocation.
class Hop {
 public:
  static constexpr Hop deliver() noexcept { return Hop{deliver_port, 0}; }
  static constexpr Hop forward(port_t port, class_t next_class) noexcept { return Hop{port, next_class}; }
  [[nodiscard]] constexpr bool delivers() const noexcept { return port_ == deliver_port; }
  /// Out-port to take. Precondition: !delivers().
  [[nodiscard]] constexpr port_t port() const noexcept { return port_; }
  /// Buffer class of the downstream buffer. Precondition: !delivers().
  [[nodiscard]] constexpr class_t next_class() const noexcept { return class_; }
  friend constexpr bool operator==(const Hop&, const Hop&) = default;

 private:
  static constexpr port_t deliver_port = std::numeric_limits<port_t>::max();
  constexpr Hop(port_t p, class_t c) noexcept : port_(p), class_(c) {}
  port_t port_;
  class_t class_;
};

/// Mixed-radix coordinate ranges of the PEs, first coordinate varying fastest: PE id =
/// c0 + r0 * (c1 + r1 * (c2 + ...)). Networks without natural coordinates use {pes}.
using Shape = std::vector<std::uint32_t>;
using Coords = std::vector<std::uint32_t>;

[[nodiscard]] Coords to_coords(const Shape& shape, node_t id);
[[nodiscard]] node_t from_coords(const Shape& shape, const Coords& c);
[[nodiscard]] std::uint64_t shape_size(const Shape& shape);
/// "32x32x4" style text of a shape.
[[nodiscard]] std::string shape_text(const Shape& shape);

/// Invalid user input (a topology spec, a parameter, a file). The CLI prints what() on one
/// line and exits with status 2. Messages name the parameter and what is accepted.
class usage_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Most buffer classes a topology may use: class numbers [0, max_buffer_classes) fit class_t.
inline constexpr std::uint32_t max_buffer_classes = std::numeric_limits<class_t>::max();
/// Most out- or in-ports of a node: port numbers [0, max_ports) fit port_t below the value Hop
/// reserves for "deliver".
inline constexpr std::uint32_t max_ports = std::numeric_limits<port_t>::max();

/// Largest node count any topology may have (memory and the 32-bit node_t bound the range).
inline constexpr std::uint64_t max_nodes = std::uint64_t{1} << 26;

/// `text` as a decimal unsigned integer in [lo, hi]: digits only (no sign, space, exponent or
/// fraction). Otherwise usage_error "<what>: '<text>' is not an integer in [lo, hi]".
[[nodiscard]] std::uint64_t parse_uint(const std::string& text, const std::string& what, std::uint64_t lo,
                                       std::uint64_t hi);
/// `text` as a finite decimal number in [lo, hi] (lo excluded when `lo_open`). Otherwise
/// usage_error "<what>: '<text>' is not a number in [lo, hi]" (or "(lo, hi]").
[[nodiscard]] double parse_real(const std::string& text, const std::string& what, double lo, double hi,
                                bool lo_open = false);

/// `text` as an error message shows input read from a user's file or argument: in single quotes,
/// bytes outside printable ASCII (and '\\', '\'') escaped as \xNN, cut after max_chars source
/// bytes with "..." appended. Every parser that echoes input into a usage_error uses it, so a
/// message stays one line of text whatever the file holds.
[[nodiscard]] std::string quote_input(std::string_view text, std::size_t max_chars = 60);

/// Bytes this process may still allocate: the host's available memory (MemAvailable), the
/// address-space and data limits (ulimit -v / -d) less what the process already maps, and the
/// environment variable RICA_MEMORY_LIMIT (bytes, with an optional K, M or G suffix: a cap for
/// tests and shared hosts; a malformed value is a usage_error naming it). `address` is the
/// address space left (infinity when unlimited); `resident` <= `address`.
struct MemoryRoom {
  double resident = 0, address = 0;
};
[[nodiscard]] MemoryRoom memory_room();
/// The memory guard every command applies before it allocates: throws usage_error
/// "memory: <what> needs about X GB but Y GB are available (...); <advice>" when `bytes` is above
/// 90% of memory_room().resident.
void require_memory(const std::string& what, double bytes, const std::string& advice);

namespace detail {
/// Throws usage_error unless lo <= v <= hi: "<what>: parameter '<name>' = v is out of range [lo, hi]".
void check_range(const std::string& what, const std::string& name, std::int64_t v, std::int64_t lo,
                 std::int64_t hi);
/// Throws usage_error when a node count exceeds max_nodes.
void check_node_count(const std::string& what, std::uint64_t nodes);
/// Throws usage_error when a composite's port count (computed without wrapping) exceeds
/// max_ports, or its buffer class count exceeds max_buffer_classes.
void check_ports_and_classes(const std::string& what, std::uint64_t ports, std::uint64_t classes);

/// Division by a run-time constant d >= 1 as a multiply and a shift (no div instruction on the
/// per-hop path): exact for every dividend below 2^26 (= max_nodes, so for every node id).
struct FastDiv {
  std::uint64_t m = std::uint64_t{1} << 26;
  unsigned s = 26;
  constexpr FastDiv() = default;
  explicit constexpr FastDiv(std::uint32_t d) {
    unsigned l = 0;
    while ((std::uint64_t{1} << l) < d) ++l;
    s = 26 + l;
    m = ((std::uint64_t{1} << s) + d - 1) / d;
  }
  constexpr std::uint32_t operator()(std::uint32_t x) const noexcept {
    return static_cast<std::uint32_t>((x * m) >> s);
  }
};

constexpr std::uint32_t flip(std::uint32_t v, unsigned bit) noexcept { return v ^ (1u << bit); }
constexpr unsigned bit(std::uint32_t v, unsigned i) noexcept { return (v >> i) & 1u; }
constexpr std::uint32_t rotl(std::uint32_t v, unsigned n) noexcept {
  const std::uint32_t mask = (n >= 32) ? ~0u : ((1u << n) - 1u);
  return ((v << 1) | (v >> (n - 1))) & mask;
}
constexpr std::uint32_t rotr(std::uint32_t v, unsigned n) noexcept {
  const std::uint32_t mask = (n >= 32) ? ~0u : ((1u << n) - 1u);
  return ((v >> 1) | ((v & 1u) << (n - 1))) & mask;
}
}  // namespace detail
}  // namespace rica
