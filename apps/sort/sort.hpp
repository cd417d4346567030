#pragma once
// Sorting as RICA fine-grain programs (docs/apps.md): keys spread over the PEs, sorted by packets
// that carry a few keys each, and left in rank order (rank r holds the r-th slice of the sorted
// keys; with --map identity, rank = PE, so the keys are in PE order).
//
//   keys      32-bit unsigned. `keys` in all, generated from the run seed (uniform, few distinct,
//             sorted, reversed) or read from a file; rank r starts with input positions
//             [r T / N, (r+1) T / N) (T keys, N ranks: uneven when N does not divide T).
//   packets   the two payload words hold a 32-bit header and 1..3 keys (keys_per_packet):
//             w0 = header | key0 << 32, w1 = key1 | key2 << 32.
//   bitonic   (Pattern::hypercube) blocks of K = ceil(T / N) keys, padded with 0xffffffff; each
//             step is a compare-split with a partner: both send their whole block, each keeps the
//             K smallest or largest of the two. N a power of two: Batcher's network on the rank
//             bits (partner r xor 2^j: one hop on a hypercube). Other N: the variant whose every
//             comparator is ascending (first step of stage k pairs r with r xor (2^k - 1)) on the
//             next power of two, where the missing ranks hold +infinity and need no packet.
//             log2(N) (log2(N) + 1) / 2 steps.
//   shear     (Pattern::grid2d) shear sort of the blocks on the px x py process grid: ceil(log2 py)
//             times a snake row phase then a column phase, and a final row phase sorting every row
//             ascending (so the result is row-major = rank order). Each phase is an odd-even
//             transposition sort of a row or column with compare-split: a line of L ranks takes L
//             steps. py = 1 is plain odd-even transposition sort.
//   sample    (Pattern::all_to_all) each rank sorts its keys and sends `samples` regular samples to
//             rank 0, which picks N - 1 splitters and broadcasts them down a binomial tree; every
//             rank then sends each other rank the keys of its bucket, at least one packet each (its
//             first packet carries the count, so the receiver knows when its bucket is complete),
//             and sorts its bucket. Buckets are uneven (reported as keys_per_rank_max).
//   verify    the rank-order concatenation is sorted, has the input's checksums (count, sum, xor,
//             sum of hashes: a permutation), and equals std::sort of the gathered input.
//
// Threading: per-rank state lives in vectors indexed by rank; element r is touched only on the task
// of PE map.pe(r). setup(), verify() and summary() run single-threaded before and after the run.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "process_map.hpp"
#include "rica/app.hpp"
#include "rica/defaults.hpp"

namespace rica::kernels {

enum class SortAlgorithm : std::uint8_t { bitonic, shear, sample };
enum class KeyDistribution : std::uint8_t { uniform, few, sorted, reversed };

SortAlgorithm parse_sort_algorithm(const std::string& text, const std::string& what);
const char* sort_algorithm_name(SortAlgorithm a) noexcept;
KeyDistribution parse_distribution(const std::string& text, const std::string& what);
const char* distribution_name(KeyDistribution d) noexcept;

struct SortConfig {
  SortAlgorithm algorithm = SortAlgorithm::bitonic;
  std::uint64_t keys = defaults::apps::sort_keys;  ///< generated keys in all (ignored with file keys)
  KeyDistribution distribution = KeyDistribution::uniform;
  std::string file;                                       ///< where file_keys came from ("" = generated)
  std::shared_ptr<const std::vector<std::uint32_t>> file_keys;  ///< read once by read_keys()
  unsigned keys_per_packet = defaults::apps::keys_per_packet;   ///< 1..3
  unsigned samples = defaults::apps::sort_samples;              ///< sample sort: per rank
  MapKind map = MapKind::identity;
  ProcessGrid pgrid{};  ///< shear sort's grid; 0x0 = the most square grid of the PE count

  std::uint64_t total() const noexcept { return file_keys ? file_keys->size() : keys; }
  /// Throws usage_error naming the parameter for a run on `pes` PEs: zero keys, counts out of
  /// range, a process grid that does not match, packet headers that cannot name every packet,
  /// state above defaults::apps::memory_limit.
  void validate(node_t pes) const;
  nlohmann::json json() const;
};

/// Whitespace-separated unsigned 32-bit decimal keys from a regular file (rica/io.hpp; at most
/// defaults::input::keys_file_bytes, lines up to keys_line_bytes). usage_error naming `what` and the
/// file for an unreadable or non-regular file, a malformed or out-of-range token (with its line),
/// or no keys at all.
std::vector<std::uint32_t> read_keys(const std::string& path, const std::string& what = "sort: file");
/// The keys to sort: the file's, or config.keys generated from `seed`.
std::vector<std::uint32_t> sort_input(const SortConfig& c, std::uint64_t seed);

/// What every sort shares: the input, the rank map, the result per rank, verification, summary.
class SortKernel : public App {
 public:
  explicit SortKernel(SortConfig c) : cfg_(std::move(c)) {}

  void setup(Machine& m) final;
  std::uint64_t max_sends_per_pe() const override { return max_sends_; }
  bool verify(std::string& why) const override;
  nlohmann::json summary() const override;
  bool spans_ranks() const override { return true; }
  std::string pe_result(node_t pe) const override;
  void merge_pe_result(node_t pe, const std::string& bytes) override;

  const SortConfig& config() const noexcept { return cfg_; }
  const ProcessMap& map() const noexcept { return map_; }
  const std::vector<std::uint32_t>& input() const noexcept { return input_; }
  /// After a run: rank r's keys, and all of them in rank order.
  const std::vector<std::uint32_t>& output(node_t rank) const { return result_[rank].keys; }
  std::vector<std::uint32_t> output() const;
  std::uint64_t messages() const;     ///< packets the ranks sent
  std::uint64_t finish_time() const;  ///< the latest ctx.now() at which a rank finished

 protected:
  /// Written only on the rank's own task.
  struct Result {
    std::vector<std::uint32_t> keys;
    bool done = false;
    std::uint64_t sent = 0, finish = 0, stray = 0;
  };
  virtual Pattern pattern() const = 0;
  virtual ProcessGrid process_grid(node_t pes) const { return {pes, 1}; }
  /// Algorithm set-up after the common part: handlers, state, max_sends_.
  virtual void prepare(Machine& m) = 0;
  virtual nlohmann::json details() const { return nlohmann::json::object(); }
  /// Why a rank did not finish (for verify()).
  virtual std::string progress(node_t rank) const = 0;

  /// Input positions [first(r), first(r + 1)) start at rank r.
  std::uint64_t first(node_t rank) const noexcept { return std::uint64_t{rank} * input_.size() / n_; }
  void send_keys(Context& ctx, node_t to_rank, handler_t h, std::uint32_t header, const std::uint32_t* keys,
                 unsigned count);
  void finish(Context& ctx, node_t rank, std::vector<std::uint32_t>&& keys);

  SortConfig cfg_;
  node_t n_ = 0;
  std::uint64_t seed_ = 0;
  ProcessGrid grid_;
  ProcessMap map_;
  std::vector<std::uint32_t> input_;
  std::vector<Result> result_;
  std::uint64_t max_sends_ = 0;
};

/// Bitonic and shear sort: a schedule of compare-split steps on blocks of K keys.
class CompareSplitSort : public SortKernel {
 public:
  using SortKernel::SortKernel;
  void start(Context& ctx) override;
  /// Who rank r is paired with at `step` (no_node: idle; >= N: a virtual rank holding +infinity)
  /// and whether r keeps the smaller half.
  struct Pairing {
    node_t partner = no_node;
    bool keep_low = true;
  };
  virtual std::uint32_t steps() const = 0;
  virtual Pairing pairing(std::uint32_t step, node_t rank) const = 0;
  std::uint32_t block() const noexcept { return block_; }

 protected:
  void prepare(Machine& m) final;
  nlohmann::json details() const override;
  std::string progress(node_t rank) const override;
  /// The schedule, built after the common setup (grid_ and n_ are known).
  virtual void schedule() = 0;

 private:
  struct Inbox {
    std::uint32_t step;
    std::uint32_t arrived = 0;  ///< keys placed
    std::vector<std::uint32_t> keys;
  };
  struct Rank {
    std::vector<std::uint32_t> block;  ///< K keys, sorted
    std::uint32_t step = 0;            ///< the step in progress (== steps() when done)
    bool sent = false;                 ///< this step's block has been sent
    std::vector<Inbox> inbox;          ///< partners' blocks of this and later steps
    std::vector<std::uint32_t> merged;
  };
  void on_keys(Context& ctx, const Packet& p);
  void advance(Context& ctx, node_t rank, Rank& s);

  std::uint32_t block_ = 0;       ///< K = ceil(T / N)
  unsigned chunk_bits_ = 0;       ///< header = step << chunk_bits_ | chunk
  handler_t keys_ = 0;
  std::vector<Rank> ranks_;
};

class BitonicSort final : public CompareSplitSort {
 public:
  using CompareSplitSort::CompareSplitSort;
  std::uint32_t steps() const override { return static_cast<std::uint32_t>(stage_.size()); }
  Pairing pairing(std::uint32_t step, node_t rank) const override;

 protected:
  Pattern pattern() const override { return Pattern::hypercube; }
  void schedule() override;

 private:
  std::vector<std::uint8_t> stage_, bit_;  ///< [step]: stage k (1-based) and partner bit j
  bool pow2_ = true;                       ///< Batcher's directions (else the all-ascending variant)
};

class ShearSort final : public CompareSplitSort {
 public:
  using CompareSplitSort::CompareSplitSort;
  std::uint32_t steps() const override { return static_cast<std::uint32_t>(phase_of_.size()); }
  Pairing pairing(std::uint32_t step, node_t rank) const override;

 protected:
  Pattern pattern() const override { return Pattern::grid2d; }
  ProcessGrid process_grid(node_t pes) const override;
  void schedule() override;
  nlohmann::json details() const override;

 private:
  struct Phase {
    bool rows;   ///< a row phase (else a column phase)
    bool snake;  ///< odd rows descending (else every line ascending)
    std::uint32_t first, length;  ///< its steps
  };
  std::vector<Phase> phases_;
  std::vector<std::uint32_t> phase_of_;  ///< [step]
};

class SampleSort final : public SortKernel {
 public:
  using SortKernel::SortKernel;
  void start(Context& ctx) override;

  /// The binomial tree over ranks the splitters go down (rank 0 the root).
  static std::vector<node_t> children(node_t rank, node_t ranks);

 protected:
  Pattern pattern() const override { return Pattern::all_to_all; }
  void prepare(Machine& m) override;
  nlohmann::json details() const override;
  std::string progress(node_t rank) const override;

 private:
  struct Rank {
    std::vector<std::uint32_t> keys;       ///< own keys, sorted at start
    std::vector<std::uint32_t> samples;    ///< rank 0: every rank's samples
    std::vector<std::uint32_t> splitters;  ///< N - 1
    std::uint32_t splitter_packets = 0;
    bool have_splitters = false, partitioned = false;
    std::vector<std::uint32_t> bucket;
    std::uint32_t heard = 0;               ///< ranks whose key count is known
    std::uint64_t expected = 0, got = 0;   ///< bucket keys announced / arrived from other ranks
  };
  void on_sample(Context& ctx, const Packet& p);
  void on_splitters(Context& ctx, const Packet& p);
  void on_bucket(Context& ctx, const Packet& p);
  void got_splitters(Context& ctx, node_t rank, Rank& s);
  void try_finish(Context& ctx, node_t rank, Rank& s);
  std::uint32_t samples_of(node_t rank) const noexcept;

  handler_t sample_ = 0, splitter_ = 0, bucket_ = 0;
  std::uint64_t samples_total_ = 0;
  std::uint32_t splitter_chunks_ = 0;
  std::vector<Rank> ranks_;
};

/// Validates `c` for `topology` (usage_error) and builds the algorithm's App.
std::unique_ptr<SortKernel> make_sort(const SortConfig& c, const Topology& topology);

}  // namespace rica::kernels
