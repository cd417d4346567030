#pragma once
// ThreadSanitizer annotations for happens-before edges that pass through oneTBB's uninstrumented
// library code (Debian's libtbb is not built with TSan): a parallel_for's join, and the hand-off
// of enumerable_thread_specific elements to the thread that combines them after the join. No-ops
// unless compiled with -fsanitize=thread. (The engine has its own, in engine_impl.hpp.)

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace rica::detail {

/// Everything released on `p` happens before what follows this call.
inline void tsan_acquire([[maybe_unused]] const void* p) noexcept {
#if defined(__SANITIZE_THREAD__)
  __tsan_acquire(const_cast<void*>(p));
#endif
}
/// What this thread did so far happens before a later tsan_acquire(p) (releases merge).
inline void tsan_release([[maybe_unused]] const void* p) noexcept {
#if defined(__SANITIZE_THREAD__)
  __tsan_release(const_cast<void*>(p));
#endif
}

/// The address the runtime's parallel loops outside the engine state their forks and joins on
/// (a fixed address: a body must not read its closure before it has acquired).
inline char tsan_token;

/// Before tbb::parallel_for, after its body has been built: the caller's set-up happens before
/// every body.
inline void tsan_fork() noexcept { tsan_release(&tsan_token); }
/// After tbb::parallel_for returns: every body happens before what the caller does next.
inline void tsan_join() noexcept { tsan_acquire(&tsan_token); }
/// First statement of a parallel body: acquires the fork, and releases the body's work on every
/// path out of it (early returns included) for the join.
struct TsanTask {
  TsanTask() noexcept { tsan_acquire(&tsan_token); }
  ~TsanTask() { tsan_release(&tsan_token); }
  TsanTask(const TsanTask&) = delete;
  TsanTask& operator=(const TsanTask&) = delete;
};

}  // namespace rica::detail
