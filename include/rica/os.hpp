#pragma once
// OS-level policies on the cycle engine (docs/runtime.md "Time sharing"; docs/os.md): jobs on
// partitions, space sharing, and time sharing with the two context-switch policies for packets
// floating in the network.
//
// A job is an application on a set of machine PEs that it numbers 0..k-1 (Context::pe(),
// Context::send() take job-local numbers). Its *node set* is its PEs plus every router its own
// routes use. Jobs that run at the same time must have disjoint node sets (closed partitions)
// when the schedule switches; space sharing alone also allows open partitions, and then the
// interference is measured (per-job link use).
//
// Time sharing: the schedule is a cycle of slots, each a set of jobs run together for `slice`
// cycles; a slot whose jobs are all done is skipped, a slot ends early when its jobs are done.
// At a switch every node of an outgoing job runs the policy:
//  - drain (RWC-1): the order reaches each node over the I/O network (a binary broadcast tree
//    over the job's node set, io_hop_cycles per level). The node halts: no injection, delivery
//    or new transmission; a transmission under way completes (its link's busy time). An output
//    is frozen once its link is idle; the downstream input sees the freeze one cycle later. A
//    node whose outputs and inputs are all frozen saves the packets in its buffers to its save
//    area (save_words_per_cycle), then restores the incoming job's packets saved there (they
//    are re-injected from this node, in class 0), and resumes: inputs ready, outputs unfrozen.
//    No node sends into a node that has not resumed. Only neighbour state is consulted.
//  - flush: the order stops the outgoing job's PEs; packets run on and are saved at their
//    destinations. Emptiness is detected by counting waves over the I/O tree (each node reports
//    the job's packets that entered and left the network at it; sends are frozen by the order,
//    so a wave whose sums agree proves the network empty). Then the go order restores the
//    incoming job (its saved packets are consumed at their destinations).
// Every figure is in cycles, deterministic, identical for 1 and 2 threads.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/app.hpp"
#include "rica/engine.hpp"
#include "rica/topology.hpp"

namespace rica {

namespace defaults::os {
inline constexpr std::uint64_t slice = 2000;         ///< cycles per time slot
inline constexpr unsigned io_hop_cycles = 1;         ///< I/O network: cycles per broadcast-tree level
inline constexpr unsigned save_words_per_cycle = 1;  ///< PE memory path for saving / restoring packets
}  // namespace defaults::os

/// A context-switch policy: a value-type selector into the registry of policies
/// (rica/os_policy.hpp has the interface a policy implements; docs/os.md how to add one).
/// drain and flush are built in; names are listed by switch_policies().
class SwitchPolicy {
 public:
  static const SwitchPolicy drain, flush;
  constexpr explicit SwitchPolicy(std::uint16_t id) noexcept : id_(id) {}
  constexpr std::uint16_t id() const noexcept { return id_; }
  constexpr bool operator==(const SwitchPolicy&) const noexcept = default;

 private:
  std::uint16_t id_;
};
inline constexpr SwitchPolicy SwitchPolicy::drain{0};
inline constexpr SwitchPolicy SwitchPolicy::flush{1};

const char* policy_name(SwitchPolicy p);
/// A registered policy by name; usage_error naming the valid names otherwise.
SwitchPolicy policy_by_name(const std::string& name);
/// Every registered policy: (name, one-line description), in registration order.
std::vector<std::pair<std::string, std::string>> switch_policies();

/// A job: an application (not owned; set up by run_jobs) on the machine PEs `pes` (local PE i is
/// machine PE pes[i]; distinct, at least 1).
struct JobSpec {
  std::string name;
  App* app = nullptr;
  std::vector<node_t> pes;
};

struct OsConfig {
  /// The time-sharing schedule: the jobs (indices into the job list) each slot runs. Empty: one
  /// slot with every job (space sharing only, no switch).
  std::vector<std::vector<unsigned>> slots;
  std::uint64_t slice = defaults::os::slice;
  SwitchPolicy policy = SwitchPolicy::drain;
  unsigned io_hop_cycles = defaults::os::io_hop_cycles;
  unsigned save_words_per_cycle = defaults::os::save_words_per_cycle;
};

/// One context switch (cycles counted from `at`, the first cycle of the switch).
struct SwitchRecord {
  std::uint64_t at = 0;
  unsigned from_slot = 0, to_slot = 0;
  std::uint64_t cycles = 0;          ///< until the last node resumed
  std::uint64_t freeze_cycles = 0;   ///< drain: until the last node had all ports frozen
  std::uint64_t detect_cycles = 0;   ///< flush: until emptiness was detected at the root
  std::uint64_t waves = 0;           ///< flush: counting waves used
  std::uint64_t packets_saved = 0, words_saved = 0;  ///< drained from routers / saved at destinations
  std::uint64_t packets_restored = 0;
  std::uint64_t peak_node_packets = 0;  ///< most packets saved at one node in this switch
  std::uint64_t bound_cycles = 0;    ///< the policy's bound, 0 if it has none (drain: I/O depth + link time + buffer capacity)
};

struct JobResult {
  std::string name;
  node_t pes = 0;
  std::uint64_t delivered = 0, measured = 0, misdelivered = 0;
  double latency_mean = 0, hops_mean = 0;
  std::uint64_t latency_max = 0;
  std::uint64_t completion_cycle = 0;  ///< first cycle at which the job had nothing left
  std::uint64_t slices = 0;            ///< slots it ran in
  /// Packets of this job that crossed a link outside the job's own node set (open partitions).
  std::uint64_t foreign_link_packets = 0;
  bool ok = true;
  std::string message;
  nlohmann::json summary;
};

struct OsStats {
  RunStats machine;  ///< the whole machine: conservation, exactly-once, deadlock
  std::vector<JobResult> jobs;
  std::vector<SwitchRecord> switches;
  SwitchPolicy policy = SwitchPolicy::drain;
  std::uint64_t misdelivered = 0;      ///< handler runs outside the packet's job (never, if correct)
  std::uint64_t save_peak_packets = 0, save_peak_words = 0;  ///< largest save area of one node, ever
  std::uint64_t shared_links = 0;      ///< links used by more than one job (open partitions)
  bool bound_ok = true;                ///< every drain within its bound
  nlohmann::json to_json() const;
};

/// Routers (PEs and switch nodes) used by the routes among `pes` (verify_partitions, rica/partition.hpp):
/// `pes` first, as given, then the other nodes in ascending order.
std::vector<node_t> job_nodes(const Topology& topology, const std::vector<node_t>& pes);

/// Runs the jobs on the cycle engine under the schedule. Throws usage_error for an invalid
/// configuration (overlapping jobs in a slot, a switching schedule over open partitions, ...).
/// `observers` watch the machine per window of cycles (rica/observer.hpp): halts, owners, buffers.
OsStats run_jobs(const Topology& topology, std::vector<JobSpec>& jobs, const EngineConfig& cfg, const OsConfig& os,
                 Observers observers = {});

}  // namespace rica
