// Sorting kernels (sort.hpp): bitonic, shear and sample sort with active messages.
#include "sort.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "rica/core.hpp"
#include "rica/defaults.hpp"
#include "rica/io.hpp"

namespace rica::kernels {
namespace {

constexpr std::uint32_t pad_key = std::numeric_limits<std::uint32_t>::max();

std::uint64_t mix64(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

unsigned ceil_log2(std::uint64_t v) noexcept { return v <= 1 ? 0 : static_cast<unsigned>(std::bit_width(v - 1)); }

/// Compare-split steps of a schedule (the same formulas the schedules are built from).
std::uint64_t compare_split_steps(SortAlgorithm a, ProcessGrid g, node_t pes) {
  if (a == SortAlgorithm::bitonic) {
    const std::uint64_t n = ceil_log2(pes);
    return n * (n + 1) / 2;
  }
  const std::uint64_t p = ceil_log2(g.py);
  const std::uint64_t row = g.px >= 2 ? g.px : 0, col = g.py >= 2 ? g.py : 0;
  return (p + 1) * row + p * col;
}

/// Sample sort's bucket packets: header = first << 31 | keys in the packet << 29 | count (first only).
constexpr std::uint32_t first_flag = 1u << 31;
constexpr std::uint32_t count_mask = (1u << 29) - 1;

/// Order-independent checksums of a key multiset.
struct Checksum {
  std::uint64_t count = 0, sum = 0, xor_all = 0, hash_sum = 0;
  void add(std::uint32_t k) noexcept {
    ++count;
    sum += k;
    xor_all ^= k;
    hash_sum += mix64(k + 0x9e3779b97f4a7c15ULL);
  }
  friend bool operator==(const Checksum&, const Checksum&) = default;
  std::string text() const {
    return fmt::format("count {}, sum {}, xor {:#x}, hash {:#018x}", count, sum, xor_all, hash_sum);
  }
};

Checksum checksum(const std::vector<std::uint32_t>& v) {
  Checksum c;
  for (auto k : v) c.add(k);
  return c;
}

}  // namespace

SortAlgorithm parse_sort_algorithm(const std::string& text, const std::string& what) {
  if (text == "bitonic") return SortAlgorithm::bitonic;
  if (text == "shear") return SortAlgorithm::shear;
  if (text == "sample") return SortAlgorithm::sample;
  throw usage_error(fmt::format("{}: algorithm '{}' is not one of: bitonic, shear, sample", what, text));
}

const char* sort_algorithm_name(SortAlgorithm a) noexcept {
  switch (a) {
    case SortAlgorithm::bitonic: return "bitonic";
    case SortAlgorithm::shear: return "shear";
    case SortAlgorithm::sample: return "sample";
  }
  return "?";
}

KeyDistribution parse_distribution(const std::string& text, const std::string& what) {
  if (text == "uniform") return KeyDistribution::uniform;
  if (text == "few") return KeyDistribution::few;
  if (text == "sorted") return KeyDistribution::sorted;
  if (text == "reversed") return KeyDistribution::reversed;
  throw usage_error(fmt::format("{}: distribution '{}' is not one of: uniform, few, sorted, reversed", what, text));
}

const char* distribution_name(KeyDistribution d) noexcept {
  switch (d) {
    case KeyDistribution::uniform: return "uniform";
    case KeyDistribution::few: return "few";
    case KeyDistribution::sorted: return "sorted";
    case KeyDistribution::reversed: return "reversed";
  }
  return "?";
}

void SortConfig::validate(node_t pes) const {
  const std::uint64_t t = total();
  if (t == 0)
    throw usage_error(file.empty() ? "sort: keys = 0; at least 1 key is needed"
                                   : fmt::format("sort: keys file '{}' has no keys; at least 1 is needed", file));
  if (t > std::numeric_limits<std::uint32_t>::max())
    throw usage_error(fmt::format("sort: keys = {} is out of range [1, 2^32 - 1]", t));
  detail::check_range("sort", "keys-per-packet", keys_per_packet, 1, 3);
  detail::check_range("sort", "samples", samples, 1, 1 << 16);
  if (algorithm != SortAlgorithm::shear && pgrid.size())
    throw usage_error(fmt::format("sort: a process grid (pgrid) applies to shear sort only, not to {}",
                                  sort_algorithm_name(algorithm)));
  const ProcessGrid g = resolve_grid(algorithm == SortAlgorithm::shear ? pgrid : ProcessGrid{pes, 1}, pes, "sort");
  const std::uint64_t block = (t + pes - 1) / pes;
  const double n = pes;
  double bytes = 24.0 * static_cast<double>(t) + 4.0 * n * static_cast<double>(block) + 256.0 * n;
  if (algorithm == SortAlgorithm::sample) {
    bytes += 4.0 * n * (n - 1) + 4.0 * n * samples;  // every rank's splitters, rank 0's samples
    if (block > count_mask)
      throw usage_error(fmt::format("sort: {} keys per PE exceed sample sort's 2^29 - 1; use more PEs", block));
  } else {
    const std::uint64_t steps = compare_split_steps(algorithm, g, pes);
    const unsigned step_bits = std::max(1u, ceil_log2(steps));
    const std::uint64_t chunks = (block + keys_per_packet - 1) / keys_per_packet;
    if (step_bits >= 32 || chunks > (std::uint64_t{1} << (32 - step_bits)))
      throw usage_error(fmt::format("sort: {} keys per PE in {} packets per step do not fit the 32-bit header "
                                    "beside {} steps; use more keys per packet or fewer keys", block, chunks, steps));
    if (chunks * steps >= (std::uint64_t{1} << 32))
      throw usage_error(fmt::format("sort: {} packets per PE exceed 2^32; use more keys per packet or fewer keys",
                                    chunks * steps));
  }
  check_memory(fmt::format("sort: {} keys on {} PEs", t, pes), bytes);
}

nlohmann::json SortConfig::json() const {
  nlohmann::json j = {{"algorithm", sort_algorithm_name(algorithm)},
                      {"keys", total()},
                      {"keys_per_packet", keys_per_packet},
                      {"map", map_name(map)}};
  if (file.empty())
    j["distribution"] = distribution_name(distribution);
  else
    j["file"] = file;
  if (algorithm == SortAlgorithm::sample) j["samples"] = samples;
  if (algorithm == SortAlgorithm::shear) j["pgrid"] = pgrid.size() ? fmt::format("{}x{}", pgrid.px, pgrid.py) : "auto";
  return j;
}

std::vector<std::uint32_t> read_keys(const std::string& path, const std::string& what) {
  const std::string text = read_text_file(
      path, what, {defaults::input::keys_file_bytes, defaults::input::keys_line_bytes});
  std::vector<std::uint32_t> keys;
  std::istringstream f(text);
  std::string line;
  for (std::uint64_t no = 1; std::getline(f, line); ++no) {
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      if (i == line.size()) break;
      std::size_t j = i;
      while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
      std::uint32_t v = 0;
      auto [p, ec] = std::from_chars(line.data() + i, line.data() + j, v);
      if (ec != std::errc() || p != line.data() + j)
        throw usage_error(fmt::format("{}: '{}' line {}: {} is not an unsigned 32-bit integer "
                                      "(0..4294967295)", what, path, no, quote_input(std::string_view(line).substr(i, j - i), 40)));
      keys.push_back(v);
      i = j;
    }
  }
  if (keys.empty()) throw usage_error(fmt::format("{}: '{}' has no keys; at least 1 is needed", what, path));
  return keys;
}

std::vector<std::uint32_t> sort_input(const SortConfig& c, std::uint64_t seed) {
  if (c.file_keys) return *c.file_keys;
  const std::uint64_t t = c.keys;
  std::vector<std::uint32_t> v(t);
  for (std::uint64_t i = 0; i < t; ++i) {
    const std::uint64_t h = mix64(seed * 0x9e3779b97f4a7c15ULL + i + 0x536f7274ULL);
    switch (c.distribution) {
      case KeyDistribution::uniform: v[i] = static_cast<std::uint32_t>(h >> 32); break;
      case KeyDistribution::few: v[i] = static_cast<std::uint32_t>(h >> 60); break;  // 16 values
      case KeyDistribution::sorted: v[i] = static_cast<std::uint32_t>((i << 32) / t); break;
      case KeyDistribution::reversed: v[i] = static_cast<std::uint32_t>(((t - 1 - i) << 32) / t); break;
    }
  }
  return v;
}

// ---- SortKernel -----------------------------------------------------------------------------------

// Single-threaded, before the run.
void SortKernel::setup(Machine& m) {
  cfg_.validate(m.pes());
  n_ = m.pes();
  seed_ = m.seed();
  grid_ = process_grid(n_);
  map_ = ProcessMap(cfg_.map, grid_, pattern(), m.topology(), m.pes(), seed_);
  input_ = sort_input(cfg_, seed_);
  result_ = std::vector<Result>(n_);
  prepare(m);
}

void SortKernel::send_keys(Context& ctx, node_t to_rank, handler_t h, std::uint32_t header, const std::uint32_t* keys,
                           unsigned count) {
  std::uint32_t k[3] = {0, 0, 0};
  std::copy(keys, keys + count, k);
  ctx.send(map_.pe(to_rank), h, header | (std::uint64_t{k[0]} << 32), k[1] | (std::uint64_t{k[2]} << 32));
  ++result_[map_.rank(ctx.pe())].sent;
}

void SortKernel::finish(Context& ctx, node_t rank, std::vector<std::uint32_t>&& keys) {
  Result& r = result_[rank];
  r.keys = std::move(keys);
  r.done = true;
  r.finish = ctx.now();
}

std::vector<std::uint32_t> SortKernel::output() const {
  std::vector<std::uint32_t> out;
  out.reserve(input_.size());
  for (const Result& r : result_) out.insert(out.end(), r.keys.begin(), r.keys.end());
  return out;
}

std::uint64_t SortKernel::messages() const {
  std::uint64_t n = 0;
  for (const Result& r : result_) n += r.sent;
  return n;
}

std::uint64_t SortKernel::finish_time() const {
  std::uint64_t t = 0;
  for (const Result& r : result_) t = std::max(t, r.finish);
  return t;
}

// Single-threaded, after the run: finished everywhere, sorted, a permutation, equal to std::sort.
bool SortKernel::verify(std::string& why) const {
  const char* name = sort_algorithm_name(cfg_.algorithm);
  for (node_t r = 0; r < n_; ++r) {
    if (result_[r].stray) {
      why = fmt::format("{} sort: rank {} got {} unexpected packets", name, r, result_[r].stray);
      return false;
    }
    if (!result_[r].done) {
      why = fmt::format("{} sort: rank {} (PE {}) did not finish ({})", name, r, map_.pe(r), progress(r));
      return false;
    }
  }
  const std::vector<std::uint32_t> out = output();
  const auto bad = std::is_sorted_until(out.begin(), out.end());
  if (bad != out.end()) {
    why = fmt::format("{} sort: the output is not sorted at position {} ({} after {})", name, bad - out.begin(), *bad,
                      *(bad - 1));
    return false;
  }
  const Checksum in_sum = checksum(input_), out_sum = checksum(out);
  if (!(in_sum == out_sum)) {
    why = fmt::format("{} sort: the output is not a permutation of the input (input {}; output {})", name,
                      in_sum.text(), out_sum.text());
    return false;
  }
  std::vector<std::uint32_t> expect = input_;
  std::sort(expect.begin(), expect.end());
  const auto diff = std::mismatch(expect.begin(), expect.end(), out.begin());
  if (diff.first != expect.end()) {
    why = fmt::format("{} sort: the output differs from std::sort at position {} ({} instead of {})", name,
                      diff.first - expect.begin(), *diff.second, *diff.first);
    return false;
  }
  return true;
}

// Under mpirun: the result of the rank on PE pe (what verify() and summary() read) moves to rank 0.
std::string SortKernel::pe_result(node_t pe) const {
  std::string out;
  const node_t r = map_.rank(pe);
  if (r == no_node || r >= result_.size()) return out;
  const Result& x = result_[r];
  detail::put_bytes(out, x.keys);
  detail::put_bytes(out, static_cast<std::uint8_t>(x.done));
  detail::put_bytes(out, x.sent);
  detail::put_bytes(out, x.finish);
  detail::put_bytes(out, x.stray);
  return out;
}
void SortKernel::merge_pe_result(node_t pe, const std::string& bytes) {
  const node_t r = map_.rank(pe);
  if (bytes.empty() || r == no_node || r >= result_.size()) return;
  Result& x = result_[r];
  detail::ByteReader in{bytes};
  std::uint8_t done = 0;
  in.get(x.keys);
  in.get(done);
  x.done = done != 0;
  in.get(x.sent);
  in.get(x.finish);
  in.get(x.stray);
}

nlohmann::json SortKernel::summary() const {
  nlohmann::json j = cfg_.json();
  j["app"] = "sort";
  j["map_resolved"] = map_.resolved();
  std::uint64_t lo = ~std::uint64_t{0}, hi = 0;
  for (const Result& r : result_) {
    lo = std::min<std::uint64_t>(lo, r.keys.size());
    hi = std::max<std::uint64_t>(hi, r.keys.size());
  }
  j["keys_per_rank_min"] = result_.empty() ? 0 : lo;
  j["keys_per_rank_max"] = hi;
  j["messages"] = messages();
  j["finish"] = finish_time();
  j["input_checksum"] = checksum(input_).text();
  j["check"] = "sorted, a permutation (checksums), equal to std::sort of the input";
  j.update(details());
  return j;
}

// ---- CompareSplitSort -------------------------------------------------------------------------------

void CompareSplitSort::prepare(Machine& m) {
  schedule();
  block_ = static_cast<std::uint32_t>((input_.size() + n_ - 1) / n_);
  chunk_bits_ = 32 - std::max(1u, ceil_log2(steps()));
  keys_ = m.add_handler([this](Context& ctx, const Packet& p) { on_keys(ctx, p); });
  ranks_ = std::vector<Rank>(n_);
  const std::uint64_t chunks = (block_ + cfg_.keys_per_packet - 1) / cfg_.keys_per_packet;
  max_sends_ = 0;
  for (node_t r = 0; r < n_; ++r) {  // every step with a real partner sends the whole block
    std::uint64_t active = 0;
    for (std::uint32_t t = 0; t < steps(); ++t) active += pairing(t, r).partner < n_;
    max_sends_ = std::max(max_sends_, active * chunks);
  }
}

// On the rank's PE: its keys, padded to K with the largest key, sorted; then the first steps.
void CompareSplitSort::start(Context& ctx) {
  const node_t r = map_.rank(ctx.pe());
  Rank& s = ranks_[r];
  s.block.assign(input_.begin() + static_cast<std::ptrdiff_t>(first(r)),
                 input_.begin() + static_cast<std::ptrdiff_t>(first(r + 1)));
  s.block.resize(block_, pad_key);
  std::sort(s.block.begin(), s.block.end());
  advance(ctx, r, s);
}

// Handler: a chunk of a partner's block; header = step << chunk_bits_ | chunk.
void CompareSplitSort::on_keys(Context& ctx, const Packet& p) {
  const node_t r = map_.rank(ctx.pe());
  Rank& s = ranks_[r];
  const auto header = static_cast<std::uint32_t>(p.payload[0]);
  const std::uint32_t step = header >> chunk_bits_, chunk = header & ((std::uint32_t{1} << chunk_bits_) - 1);
  const std::uint64_t at = std::uint64_t{chunk} * cfg_.keys_per_packet;
  if (step < s.step || step >= steps() || at >= block_ || pairing(step, r).partner >= n_) {
    ++result_[r].stray;
    return;
  }
  auto it = std::find_if(s.inbox.begin(), s.inbox.end(), [&](const Inbox& b) { return b.step == step; });
  if (it == s.inbox.end()) {
    s.inbox.push_back({step, 0, std::vector<std::uint32_t>(block_)});
    it = s.inbox.end() - 1;
  }
  const unsigned count = static_cast<unsigned>(std::min<std::uint64_t>(cfg_.keys_per_packet, block_ - at));
  const std::uint32_t k[3] = {static_cast<std::uint32_t>(p.payload[0] >> 32), static_cast<std::uint32_t>(p.payload[1]),
                              static_cast<std::uint32_t>(p.payload[1] >> 32)};
  std::copy(k, k + count, it->keys.begin() + static_cast<std::ptrdiff_t>(at));
  it->arrived += count;
  if (it->arrived > block_) ++result_[r].stray;
  if (step == s.step && it->arrived == block_) advance(ctx, r, s);
}

// Runs the schedule as far as the partners' blocks allow: each step sends the block once, then
// waits for the partner's; the compare-split keeps the K smallest or largest of the two.
void CompareSplitSort::advance(Context& ctx, node_t rank, Rank& s) {
  const unsigned kpp = cfg_.keys_per_packet;
  while (s.step < steps()) {
    const Pairing pr = pairing(s.step, rank);
    if (pr.partner >= n_) {  // idle, or a virtual partner of +infinity keys: the block stays
      ++s.step;
      s.sent = false;
      continue;
    }
    if (!s.sent) {
      s.sent = true;
      const std::uint32_t base = s.step << chunk_bits_;
      for (std::uint32_t at = 0, chunk = 0; at < block_; at += kpp, ++chunk)
        send_keys(ctx, pr.partner, keys_, base | chunk, s.block.data() + at, std::min(kpp, block_ - at));
    }
    auto it = std::find_if(s.inbox.begin(), s.inbox.end(), [&](const Inbox& b) { return b.step == s.step; });
    if (it == s.inbox.end() || it->arrived != block_) return;  // the handler calls again on the last chunk
    const std::vector<std::uint32_t>& other = it->keys;  // the partner's block, sorted: chunks keep its order
    s.merged.resize(block_);
    if (pr.keep_low) {
      std::size_t i = 0, j = 0;
      for (std::uint32_t k = 0; k < block_; ++k) s.merged[k] = (other[j] < s.block[i]) ? other[j++] : s.block[i++];
    } else {
      std::size_t i = block_, j = block_;
      for (std::uint32_t k = block_; k-- > 0;)
        s.merged[k] = (other[j - 1] > s.block[i - 1]) ? other[--j] : s.block[--i];
    }
    std::swap(s.block, s.merged);
    s.inbox.erase(it);
    ++s.step;
    s.sent = false;
  }
  // Done: the block holds sorted positions [rank K, rank K + K); positions >= T are padding.
  const std::uint64_t begin = std::uint64_t{rank} * block_;
  const std::uint64_t real = begin >= input_.size() ? 0 : std::min<std::uint64_t>(block_, input_.size() - begin);
  std::vector<std::uint32_t> out(s.block.begin(), s.block.begin() + static_cast<std::ptrdiff_t>(real));
  s.block.clear();
  s.block.shrink_to_fit();
  finish(ctx, rank, std::move(out));
}

std::string CompareSplitSort::progress(node_t rank) const {
  const Rank& s = ranks_[rank];
  return fmt::format("at step {} of {}, {} partner blocks pending", s.step, steps(), s.inbox.size());
}

nlohmann::json CompareSplitSort::details() const {
  return {{"steps", steps()}, {"block", block_}};
}

// ---- BitonicSort ------------------------------------------------------------------------------------

void BitonicSort::schedule() {
  const unsigned n = ceil_log2(n_);
  pow2_ = std::has_single_bit(n_);
  stage_.clear();
  bit_.clear();
  for (unsigned k = 1; k <= n; ++k)
    for (unsigned j = k; j-- > 0;) {
      stage_.push_back(static_cast<std::uint8_t>(k));
      bit_.push_back(static_cast<std::uint8_t>(j));
    }
}

BitonicSort::Pairing BitonicSort::pairing(std::uint32_t step, node_t rank) const {
  const unsigned k = stage_[step], j = bit_[step];
  if (pow2_) {  // Batcher: partner across bit j; blocks of 2^k alternate direction by bit k
    const node_t partner = rank ^ (node_t{1} << j);
    const bool ascending = ((rank >> k) & 1u) == 0;
    return {partner, (rank < partner) == ascending};
  }
  // All comparators ascending: stage k starts with the mirror inside the 2^k block.
  const node_t partner = j + 1 == k ? rank ^ ((node_t{1} << k) - 1) : rank ^ (node_t{1} << j);
  return {partner, rank < partner};
}

// ---- ShearSort --------------------------------------------------------------------------------------

ProcessGrid ShearSort::process_grid(node_t pes) const { return resolve_grid(cfg_.pgrid, pes, "sort"); }

void ShearSort::schedule() {
  phases_.clear();
  phase_of_.clear();
  auto add = [&](bool rows, bool snake) {
    const std::uint32_t len = rows ? grid_.px : grid_.py;
    if (len < 2) return;  // a line of one rank has nothing to sort
    phases_.push_back({rows, snake, static_cast<std::uint32_t>(phase_of_.size()), len});
    phase_of_.insert(phase_of_.end(), len, static_cast<std::uint32_t>(phases_.size() - 1));
  };
  for (unsigned i = 0; i < ceil_log2(grid_.py); ++i) {
    add(true, true);
    add(false, false);
  }
  add(true, false);  // final: every row ascending, so the order is row-major
}

ShearSort::Pairing ShearSort::pairing(std::uint32_t step, node_t rank) const {
  const Phase& ph = phases_[phase_of_[step]];
  const std::uint32_t t = step - ph.first;
  const std::uint32_t x = rank % grid_.px, y = rank / grid_.px;
  const std::uint32_t pos = ph.rows ? x : y;
  // Odd-even transposition: round t pairs positions (i, i+1) with i = t mod 2.
  std::int64_t other = (pos % 2 == t % 2) ? std::int64_t{pos} + 1 : std::int64_t{pos} - 1;
  if (other < 0 || other >= ph.length) return {};
  const node_t partner = ph.rows ? static_cast<node_t>(other + std::int64_t{grid_.px} * y)
                                 : static_cast<node_t>(x + std::uint64_t{grid_.px} * other);
  const bool ascending = !(ph.snake && y % 2 == 1);
  return {partner, (pos < other) == ascending};
}

nlohmann::json ShearSort::details() const {
  nlohmann::json j = CompareSplitSort::details();
  j["pgrid"] = fmt::format("{}x{}", grid_.px, grid_.py);
  j["phases"] = phases_.size();
  return j;
}

// ---- SampleSort -------------------------------------------------------------------------------------

std::vector<node_t> SampleSort::children(node_t rank, node_t ranks) {
  std::vector<node_t> out;
  const std::uint64_t low = rank == 0 ? ~std::uint64_t{0} : (rank & (~rank + 1));  // lowest set bit
  for (std::uint64_t step = 1; step < low && rank + step < ranks; step <<= 1)
    out.push_back(static_cast<node_t>(rank + step));
  return out;
}

std::uint32_t SampleSort::samples_of(node_t rank) const noexcept {
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(cfg_.samples, first(rank + 1) - first(rank)));
}

void SampleSort::prepare(Machine& m) {
  sample_ = m.add_handler([this](Context& ctx, const Packet& p) { on_sample(ctx, p); });
  splitter_ = m.add_handler([this](Context& ctx, const Packet& p) { on_splitters(ctx, p); });
  bucket_ = m.add_handler([this](Context& ctx, const Packet& p) { on_bucket(ctx, p); });
  ranks_ = std::vector<Rank>(n_);
  const unsigned kpp = cfg_.keys_per_packet;
  splitter_chunks_ = (n_ - 1 + kpp - 1) / kpp;
  samples_total_ = 0;
  max_sends_ = 0;
  for (node_t r = 0; r < n_; ++r) {
    samples_total_ += samples_of(r);
    // Samples to rank 0, splitters to each child, and to every other rank max(1, ceil(c / kpp))
    // <= 1 + floor(c / kpp) packets for c keys: <= N - 1 + floor(keys / kpp) in all.
    const std::uint64_t keys = first(r + 1) - first(r);
    const std::uint64_t bound = (r ? (samples_of(r) + kpp - 1) / kpp : 0) +
                                children(r, n_).size() * std::uint64_t{splitter_chunks_} + (n_ - 1) + keys / kpp;
    max_sends_ = std::max(max_sends_, bound);
  }
}

// On the rank's PE: sort the own keys, send regular samples to rank 0.
void SampleSort::start(Context& ctx) {
  const node_t r = map_.rank(ctx.pe());
  Rank& s = ranks_[r];
  s.keys.assign(input_.begin() + static_cast<std::ptrdiff_t>(first(r)),
                input_.begin() + static_cast<std::ptrdiff_t>(first(r + 1)));
  std::sort(s.keys.begin(), s.keys.end());
  const std::uint64_t k = s.keys.size();
  const std::uint32_t m = samples_of(r);
  std::vector<std::uint32_t> picked(m);
  for (std::uint32_t i = 0; i < m; ++i) picked[i] = s.keys[(2 * std::uint64_t{i} + 1) * k / (2 * std::uint64_t{m})];
  if (r == 0) {
    ranks_[0].samples.insert(ranks_[0].samples.end(), picked.begin(), picked.end());
  } else {
    const unsigned kpp = cfg_.keys_per_packet;
    for (std::uint32_t at = 0; at < m; at += kpp) {
      const unsigned count = std::min(kpp, m - at);
      send_keys(ctx, 0, sample_, count, picked.data() + at, count);
    }
  }
  if (r == 0 && s.samples.size() == samples_total_) {  // every sample is rank 0's own
    std::sort(s.samples.begin(), s.samples.end());
    s.splitters.resize(n_ - 1);
    for (node_t i = 1; i < n_; ++i) s.splitters[i - 1] = s.samples[std::uint64_t{i} * s.samples.size() / n_];
    got_splitters(ctx, r, s);
  }
}

// Handler at rank 0: header = keys in the packet. The last sample makes the splitters:
// splitter i = the (i S / N)-th smallest of the S samples.
void SampleSort::on_sample(Context& ctx, const Packet& p) {
  const node_t r = map_.rank(ctx.pe());
  Rank& s = ranks_[r];
  const auto count = static_cast<std::uint32_t>(p.payload[0]);
  if (r != 0 || count == 0 || count > cfg_.keys_per_packet || s.samples.size() + count > samples_total_) {
    ++result_[r].stray;
    return;
  }
  const std::uint32_t k[3] = {static_cast<std::uint32_t>(p.payload[0] >> 32), static_cast<std::uint32_t>(p.payload[1]),
                              static_cast<std::uint32_t>(p.payload[1] >> 32)};
  s.samples.insert(s.samples.end(), k, k + count);
  if (s.samples.size() != samples_total_) return;
  std::sort(s.samples.begin(), s.samples.end());
  s.splitters.resize(n_ - 1);
  for (node_t i = 1; i < n_; ++i) s.splitters[i - 1] = s.samples[std::uint64_t{i} * s.samples.size() / n_];
  s.samples.clear();
  s.samples.shrink_to_fit();
  got_splitters(ctx, r, s);
}

// Handler: a chunk of the splitters from the tree parent; header = chunk.
void SampleSort::on_splitters(Context& ctx, const Packet& p) {
  const node_t r = map_.rank(ctx.pe());
  Rank& s = ranks_[r];
  const auto chunk = static_cast<std::uint32_t>(p.payload[0]);
  const std::uint64_t at = std::uint64_t{chunk} * cfg_.keys_per_packet;
  if (s.have_splitters || at >= n_ - 1) {
    ++result_[r].stray;
    return;
  }
  s.splitters.resize(n_ - 1);
  const std::uint32_t k[3] = {static_cast<std::uint32_t>(p.payload[0] >> 32), static_cast<std::uint32_t>(p.payload[1]),
                              static_cast<std::uint32_t>(p.payload[1] >> 32)};
  const auto count = static_cast<unsigned>(std::min<std::uint64_t>(cfg_.keys_per_packet, n_ - 1 - at));
  std::copy(k, k + count, s.splitters.begin() + static_cast<std::ptrdiff_t>(at));
  if (++s.splitter_packets == splitter_chunks_) got_splitters(ctx, r, s);
}

// The splitters are complete here: pass them down the tree, then send every other rank its
// bucket (the keys in [splitter r-1, splitter r)), keeping the own one.
void SampleSort::got_splitters(Context& ctx, node_t rank, Rank& s) {
  s.have_splitters = true;
  const unsigned kpp = cfg_.keys_per_packet;
  for (node_t c : children(rank, n_))
    for (std::uint32_t at = 0, chunk = 0; at < n_ - 1; at += kpp, ++chunk)
      send_keys(ctx, c, splitter_, chunk, s.splitters.data() + at, std::min(kpp, n_ - 1 - at));
  auto lo = s.keys.begin();
  for (node_t q = 0; q < n_; ++q) {
    const auto hi = q + 1 < n_ ? std::lower_bound(lo, s.keys.end(), s.splitters[q]) : s.keys.end();
    const auto count = static_cast<std::uint32_t>(hi - lo);
    if (q == rank) {
      s.bucket.insert(s.bucket.end(), lo, hi);
    } else {
      std::uint32_t at = 0;
      do {  // at least one packet: the first carries the count
        const unsigned here = std::min<std::uint32_t>(kpp, count - at);
        const std::uint32_t header = (at == 0 ? first_flag | count : 0) | (here << 29);
        send_keys(ctx, q, bucket_, header, s.keys.data() + (lo - s.keys.begin()) + at, here);
        at += here;
      } while (at < count);
    }
    lo = hi;
  }
  s.keys.clear();
  s.keys.shrink_to_fit();
  s.splitters.clear();
  s.splitters.shrink_to_fit();
  s.partitioned = true;
  try_finish(ctx, rank, s);
}

// Handler: bucket keys from another rank; the first packet of each rank also brings its count.
void SampleSort::on_bucket(Context& ctx, const Packet& p) {
  const node_t r = map_.rank(ctx.pe());
  Rank& s = ranks_[r];
  const auto header = static_cast<std::uint32_t>(p.payload[0]);
  const unsigned count = (header >> 29) & 3u;
  if (header & first_flag) {
    ++s.heard;
    s.expected += header & count_mask;
  }
  const std::uint32_t k[3] = {static_cast<std::uint32_t>(p.payload[0] >> 32), static_cast<std::uint32_t>(p.payload[1]),
                              static_cast<std::uint32_t>(p.payload[1] >> 32)};
  s.bucket.insert(s.bucket.end(), k, k + count);
  s.got += count;
  if (s.heard >= n_ || (s.heard == n_ - 1 && s.got > s.expected)) ++result_[r].stray;
  try_finish(ctx, r, s);
}

void SampleSort::try_finish(Context& ctx, node_t rank, Rank& s) {
  if (!s.partitioned || s.heard != n_ - 1 || s.got != s.expected || result_[rank].done) return;
  std::sort(s.bucket.begin(), s.bucket.end());
  finish(ctx, rank, std::move(s.bucket));
}

std::string SampleSort::progress(node_t rank) const {
  const Rank& s = ranks_[rank];
  return fmt::format("splitters {}, partitioned {}, heard from {} of {} ranks, {} of {} announced keys",
                     s.have_splitters ? "complete" : fmt::format("{}/{} packets", s.splitter_packets, splitter_chunks_),
                     s.partitioned, s.heard, n_ - 1, s.got, s.expected);
}

nlohmann::json SampleSort::details() const {
  return {{"samples_total", samples_total_}, {"splitter_packets_per_child", splitter_chunks_}};
}

// ---- Factory ----------------------------------------------------------------------------------------

std::unique_ptr<SortKernel> make_sort(const SortConfig& c, const Topology& topology) {
  c.validate(topology.pes());
  switch (c.algorithm) {
    case SortAlgorithm::bitonic: return std::make_unique<BitonicSort>(c);
    case SortAlgorithm::shear: return std::make_unique<ShearSort>(c);
    case SortAlgorithm::sample: return std::make_unique<SampleSort>(c);
  }
  throw std::logic_error("make_sort: unknown algorithm");
}

}  // namespace rica::kernels
