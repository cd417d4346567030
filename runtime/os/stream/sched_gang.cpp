// Gang scheduling (Ousterhout 1982; rica/os_stream.hpp): an Ousterhout matrix of up to
// StreamConfig::rows rows (time slots), each row a space of its own allocator. Jobs are placed in
// arrival order, each in the first row with room whose other jobs share no router with it (closed
// partitions: the switch protocol needs them); the head job waits when no row has room, and
// nothing overtakes it. The driver runs the rows in turn, a slice each, switching at every slot
// boundary with the switch policy (drain, flush, drain-pe, ...).
#include "stream_builtin.hpp"

namespace rica::detail {
namespace {

class Gang final : public Scheduler {
 public:
  bool time_sharing() const override { return true; }
  void schedule(SchedulerContext& ctx) override {
    while (!ctx.waiting().empty()) {
      const unsigned head = ctx.waiting().front();
      bool placed = false;
      for (unsigned r = 0; r < ctx.max_rows() && !placed; ++r) {
        auto pes = ctx.row(r).allocate(ctx.size(head));
        if (!pes) continue;
        placed = ctx.place(head, r, *pes);
        if (!placed) ctx.row(r).release(*pes);
      }
      if (!placed) return;
    }
  }
};

}  // namespace

std::unique_ptr<Scheduler> make_gang_scheduler() { return std::make_unique<Gang>(); }

}  // namespace rica::detail
