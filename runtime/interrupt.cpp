// The process-wide stop request of rica/interrupt.hpp.
#include "rica/interrupt.hpp"

#include <atomic>

namespace rica {
namespace {
std::atomic<bool> requested{false};  // lock-free (checked below): safe to store from a signal handler
static_assert(std::atomic<bool>::is_always_lock_free);
}  // namespace

void request_interrupt() noexcept { requested.store(true, std::memory_order_relaxed); }
bool interrupt_requested() noexcept { return requested.load(std::memory_order_relaxed); }
void clear_interrupt() noexcept { requested.store(false, std::memory_order_relaxed); }

}  // namespace rica
