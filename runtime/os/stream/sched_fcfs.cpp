// FCFS (rica/os_stream.hpp): jobs start in arrival order; the head job waits until the allocator
// places it, and nothing overtakes it. Space sharing: one row.
#include "stream_builtin.hpp"

namespace rica::detail {
namespace {

class Fcfs final : public Scheduler {
 public:
  void schedule(SchedulerContext& ctx) override {
    while (!ctx.waiting().empty()) {
      const unsigned head = ctx.waiting().front();
      auto pes = ctx.row(0).allocate(ctx.size(head));
      if (!pes) return;
      if (!ctx.place(head, 0, *pes)) {  // never under space sharing; kept for the contract
        ctx.row(0).release(*pes);
        return;
      }
    }
  }
};

}  // namespace

std::unique_ptr<Scheduler> make_fcfs_scheduler() { return std::make_unique<Fcfs>(); }

}  // namespace rica::detail
