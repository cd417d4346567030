// EASY backfilling (Lifka 1995; rica/os_stream.hpp): jobs start in arrival order while they fit.
// When the head job does not, it gets a reservation, computed in the allocator's own view: the
// shadow time is the earliest estimated end (placed_at + estimate) of running jobs after which a
// copy of the allocator, with those jobs released, can place the head (a buddy or contiguous
// allocator may hold enough free PEs long before it has a block or run that holds the head). A
// later job starts now only if it fits now and either ends (by its estimate) by the shadow time or
// leaves the reservation intact: with it placed and the jobs ending by the shadow released, the
// copy still places the head. So, with estimates that hold, the head starts no later than its
// reservation, whatever the allocator. An allocator without clone() is treated by PE counts (the
// shadow: enough PEs free; the extra PEs left then are what later jobs may take). Space sharing: one row.
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
    if (row.clone()) {
      backfill_by_allocator(ctx, row, head, ends);
      return;
    }
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

 private:
  /// Whether a copy of `row`, with every running job that ends by `shadow` released, places the head.
  static bool head_fits(const SchedulerContext& ctx, const Allocator& row, node_t k, std::uint64_t shadow,
                        const std::vector<std::pair<std::uint64_t, unsigned>>& ends) {
    auto sim = row.clone();
    for (const auto& [end, j] : ends)
      if (end <= shadow) sim->release(ctx.pes_of(j));
    return sim->allocate(k).has_value();
  }

  static void backfill_by_allocator(SchedulerContext& ctx, Allocator& row, unsigned head,
                                    std::vector<std::pair<std::uint64_t, unsigned>> ends) {
    const node_t k = ctx.size(head);
    // The shadow time: after the fewest ends (in order) the allocator can place the head.
    std::uint64_t shadow = ctx.now();
    bool found = false;
    {
      auto sim = row.clone();
      for (const auto& [end, j] : ends) {
        sim->release(ctx.pes_of(j));
        shadow = std::max(shadow, end);
        if (sim->clone()->allocate(k)) {
          found = true;
          break;
        }
      }
    }
    if (!found) return;  // cannot happen: with everything released the machine holds the head
    const std::vector<unsigned> later(ctx.waiting().begin() + 1, ctx.waiting().end());
    for (unsigned j : later) {
      auto pes = row.allocate(ctx.size(j));
      if (!pes) continue;
      const bool ends_in_time = ctx.now() + ctx.estimate(j) <= shadow;
      // A job that runs past the shadow keeps its PEs then: the head must still fit beside it.
      if ((!ends_in_time && !head_fits(ctx, row, k, shadow, ends)) || !ctx.place(j, 0, *pes)) {
        row.release(*pes);
        continue;
      }
      ends.emplace_back(ctx.now() + ctx.estimate(j), j);  // released by the shadow if it ends by then
    }
  }
};

}  // namespace

std::unique_ptr<Scheduler> make_easy_scheduler() { return std::make_unique<Easy>(); }

}  // namespace rica::detail
