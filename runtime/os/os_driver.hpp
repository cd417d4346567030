#pragma once
// The OS driver (runtime/os/os.cpp): a CycleHook of the cycle engine that runs jobs on nodes and
// switches between sets of jobs with a switch policy (rica/os_policy.hpp). What runs when is a
// planner's: the fixed slot cycle of run_jobs (rica/os.hpp), or a job stream's scheduler
// (rica/os_stream.hpp, runtime/os/stream/). Not API.
//
// Thread safety: everything here runs on the main thread between cycles, when the machine is
// still, except on_switched_out (a packet of a job switched out reached its destination), which
// runs on the destination node's task and writes only that node's save area. Decisions depend on
// the machine state at cycle boundaries only: runs are deterministic, whatever the thread count.
//
// Ownership: the driver owns the jobs' switched-out state (application contexts, save areas) and
// the owner map of the running set; the machine owns everything else and is changed only through
// its OS operations.

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "../machine/machine.hpp"
#include "os_policy.hpp"
#include "rica/os.hpp"

namespace rica::detail {

class OsDriver;

/// Decides what runs: called by the driver between cycles when no switch is under way, after
/// the jobs that finished this cycle were recorded (OsDriver::take_finished).
struct OsPlanner {
  virtual ~OsPlanner() = default;
  virtual void step(OsDriver& d, std::uint64_t now) = 0;
  /// Jobs still to come (not yet placed on an id): the run goes on while there are any.
  virtual bool pending() const { return false; }
};

class OsDriver final : public CycleHook, public SwitchState {
 public:
  /// `results` has one entry per machine job (completion cycles and slices are written there).
  OsDriver(Machine& m, const OsConfig& os, std::vector<JobResult>& results, OsPlanner& planner);

  // ---- what planners do (main thread, between cycles, no switch under way) ----
  /// Job j will run on `nodes` (its PEs in local order, then the routers it owns; a job of an open
  /// placement owns no router). The machine's placement is set first (Machine::place_job) for a
  /// job placed later. Seeds the job's per-PE generators from `key` (the job's number in its
  /// stream, whatever id it runs under, so that results do not depend on the id).
  void place(unsigned j, std::vector<node_t> nodes, std::uint64_t key);
  void place(unsigned j, std::vector<node_t> nodes) { place(j, std::move(nodes), j); }
  /// Id j will name another job: j has finished and is off every node (stop_direct), nothing
  /// of it is saved or queued; its driver state and result are reset (read them first).
  void release(unsigned j);
  /// Starts job j at once on its nodes, which must run nothing now (no switch protocol: nothing
  /// of another job is on them). It joins the running set.
  void start_direct(unsigned j, std::uint64_t now);
  /// Takes a finished job off its nodes (nothing of it is left anywhere) and out of the running set.
  void stop_direct(unsigned j);
  /// Switches from the running set to `next` with the policy (jobs in both stay where they are);
  /// the record names the slots (rows) switched from and to.
  void begin_switch(std::uint64_t now, std::vector<unsigned> next, unsigned from_slot, unsigned to_slot);
  /// Starts counting the current slot's slice again from `now`.
  void restart_slot(std::uint64_t now) { slot_start_ = now; }

  const std::vector<unsigned>& running() const noexcept { return running_; }
  bool finished(unsigned j) const noexcept { return done_[j] != 0; }
  /// The first cycle at which job j ran on a node (started directly, or restored by a switch).
  std::uint64_t first_ran(unsigned j) const noexcept { return first_ran_[j]; }
  /// Cycles job j has been in the running set (from a direct start or the end of the switch that
  /// brought it in, until the start of the switch that took it out, or its completion): its
  /// service, never more than its completion minus its first run. Read before release().
  std::uint64_t ran_cycles(unsigned j) const noexcept { return ran_[j]; }
  std::uint64_t slot_start() const noexcept { return slot_start_; }
  /// Jobs that finished since the last call, in job order per cycle.
  std::vector<unsigned> take_finished() { return std::exchange(finished_now_, {}); }
  const std::vector<node_t>& job_nodes_of(unsigned j) const noexcept { return nodes_of_[j]; }
  std::uint8_t owner(node_t v) const noexcept { return owner_cur_[v]; }

  std::vector<SwitchRecord> switches;
  std::uint64_t save_peak_packets = 0, save_peak_words = 0;

  // ---- CycleHook ----
  void on_switched_out(node_t v, const Packet& p) override { save_[p.job][v].push_back(p); }
  bool holding() const override { return switching_; }
  std::uint64_t held() const override;
  bool busy() const override;
  void after_cycle(std::uint64_t cycle) override;

  // ---- SwitchState (what the policy sees) ----
  OsView& machine() override { return view_; }
  const OsView& machine() const override { return view_; }
  const OsConfig& os() const override { return os_; }
  std::uint64_t started_at() const override { return rec_.at; }
  SwitchRecord& record() override { return rec_; }
  const std::vector<unsigned>& outgoing() const override { return outgoing_; }
  const std::vector<node_t>& nodes_of(unsigned job) const override { return nodes_of_[job]; }
  std::uint8_t owner_before(node_t v) const override { return owner_cur_[v]; }
  bool ordered(node_t v) const override { return ordered_[v] != 0; }
  std::vector<Packet>& saved(unsigned job, node_t v) override { return save_[job][v]; }

 private:
  void update_done(std::uint64_t now);
  void take_off(unsigned j, node_t v);
  void advance_switch(std::uint64_t now);
  /// The owner map of a set of jobs (in order; a later job wins a node two of them list).
  void owners_of(const std::vector<unsigned>& set, std::vector<std::uint8_t>& owner) const;

  Machine& m_;
  OsView view_;  ///< all a policy sees of m_
  const OsConfig& os_;
  std::unique_ptr<SwitchPolicyImpl> policy_;
  OsPlanner& planner_;
  std::vector<std::vector<node_t>> nodes_of_;            // [job]: PEs in local order, then owned routers
  std::vector<std::uint8_t> placed_;                     // [job]: place() was called
  std::vector<std::vector<std::uint32_t>> index_;        // [job][node]: position in nodes_of (I/O tree)
  std::vector<std::vector<PeAppState>> ctx_;             // [job][local PE]: state while switched out
  std::vector<std::vector<std::vector<Packet>>> save_;   // [job][node]: drained / flushed packets
  std::vector<std::vector<std::vector<Packet>>> queue_;  // [job][switch]: restored, not yet re-injected
  std::vector<std::uint8_t> done_;
  std::vector<std::uint64_t> first_ran_;  // [job]: first cycle on a node (no_cycle: not yet)
  std::vector<std::uint64_t> in_since_;   // [job]: joined the running set at (no_cycle: not in it)
  std::vector<std::uint64_t> ran_;        // [job]: cycles in the running set, closed intervals so far
  /// Job j leaves the running set at `now` (it finished, or a switch took it out).
  void leave(unsigned j, std::uint64_t now) {
    if (in_since_[j] == no_cycle) return;
    ran_[j] += now - in_since_[j];
    in_since_[j] = no_cycle;
  }
  static constexpr std::uint64_t no_cycle = ~std::uint64_t{0};
  std::vector<unsigned> finished_now_;
  std::vector<JobResult>& results_;
  std::vector<unsigned> running_, next_;
  std::vector<std::uint8_t> owner_cur_, owner_next_;  // [node]: the job whose node set holds it now / after the switch
  std::uint64_t slot_start_ = 0;
  bool switching_ = false;
  std::uint32_t switch_id_ = 0;
  SwitchRecord rec_;
  std::vector<NodeSwitch> sw_;
  std::vector<unsigned> outgoing_;
  std::vector<std::uint8_t> ordered_;  // [node]: the order reached it in this switch
};

/// The exactly-once checks of an OS run in its JSON (`rica os` and `rica os-stream` alike):
/// lost, duplicates, misdelivered, conservation, deadlock and its report, cycles run.
inline void put_checks(nlohmann::json& j, const RunStats& machine, std::uint64_t misdelivered) {
  j["lost"] = machine.lost;
  j["duplicates"] = machine.duplicates;
  j["misdelivered"] = misdelivered;
  j["conservation_ok"] = machine.conservation_ok;
  j["deadlock"] = machine.deadlock;
  j["deadlock_report"] = machine.deadlock_report;
  j["cycles_run"] = machine.cycles_run;
}

/// Job `j`'s network figures (delivered, measured, misdelivered, latency and hops) from the
/// machine's ledger into `r` (`rica os` and `rica os-stream` alike).
inline void put_job_figures(JobResult& r, const Machine& m, std::size_t j) {
  const auto f = m.job_figures(j);
  r.delivered = f.delivered;
  r.measured = f.measured;
  r.misdelivered = f.misdelivered;
  r.latency_max = f.lat_max;
  if (r.measured) {
    r.latency_mean = static_cast<double>(f.lat_sum) / static_cast<double>(r.measured);
    r.hops_mean = static_cast<double>(f.hops) / static_cast<double>(r.measured);
  }
}

}  // namespace rica::detail
