// EASY backfilling (Lifka 1995; rica/os_stream.hpp): jobs start in arrival order while they fit.
// When the head job does not, it gets a reservation: the shadow time, the earliest cycle at which
// enough PEs are free by the running jobs' estimated ends (placed_at + estimate, in order of
// end), and the extra PEs left over then. A later job starts now only if it fits now and either
// ends (by its estimate) before the shadow time or holds no more than the extra PEs; so, with
// estimates that hold and an allocator that can use any free PEs, the head starts no later than
// its reservation. Space sharing: one row. Counts are the allocator's held PEs.
#include <algorithm>

#include "stream_builtin.hpp"

namespace rica::detail {
namespace {

class Easy final : public Scheduler {
 public:
  void schedule(SchedulerContext& ctx) override {
    Allocator& row = ctx.row(0);
    while (!ctx.waiting().empty()) {  // FCFS while the head fits
      const unsigned head = ctx.waiting().front();
      auto pes = row.allocate(ctx.size(head));
      if (!pes) break;
      if (!ctx.place(head, 0, *pes)) {
        row.release(*pes);
        return;
      }
    }
    if (ctx.waiting().size() < 2) return;
    const unsigned head = ctx.waiting().front();
    // The reservation: running jobs by estimated end.
    std::vector<std::pair<std::uint64_t, unsigned>> ends;
    for (unsigned j : ctx.running()) ends.emplace_back(ctx.placed_at(j) + ctx.estimate(j), j);
    std::sort(ends.begin(), ends.end());
    std::uint64_t shadow = ctx.now();
    node_t avail = ctx.machine_pes() - row.held();
    for (const auto& [end, j] : ends) {
      if (avail >= ctx.size(head)) break;
      avail += ctx.held_by(j);
      shadow = std::max(shadow, end);
    }
    if (avail < ctx.size(head)) return;  // no reservation possible (a job larger than the machine is refused earlier)
    node_t extra = avail - ctx.size(head);
    const std::vector<unsigned> later(ctx.waiting().begin() + 1, ctx.waiting().end());
    for (unsigned j : later) {
      const node_t before = row.held();
      auto pes = row.allocate(ctx.size(j));
      if (!pes) continue;
      const node_t held = row.held() - before;  // what it takes from the free pool
      const bool ends_in_time = ctx.now() + ctx.estimate(j) <= shadow;
      if ((!ends_in_time && held > extra) || !ctx.place(j, 0, *pes)) {
        row.release(*pes);
        continue;
      }
      if (!ends_in_time) extra -= held;
    }
  }
};

}  // namespace

std::unique_ptr<Scheduler> make_easy_scheduler() { return std::make_unique<Easy>(); }

}  // namespace rica::detail
