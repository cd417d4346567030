#pragma once
// ThreadSanitizer annotations for happens-before edges that pass through oneTBB's uninstrumented
// library code (Debian's libtbb is not built with TSan): a parallel loop's fork and join, the start
// of a task enqueued in an arena, and the hand-off of enumerable_thread_specific elements to the
// thread that combines them after the join. No-ops unless compiled with -fsanitize=thread.
//
// Contract: only real edges are stated. Every edge is a release on one address followed by an
// acquire on the same address, and each address belongs to one loop (or one long-running object),
// so nothing unrelated is ordered through it:
//   - fork: the caller releases its loop's fork token once, before the loop; each body acquires it
//     first thing. Bodies never release it, so no body is ordered after another through the fork.
//     A body reads its closure (the caller's lambda, written before the fork) only after that
//     acquire: TsanLoop::fork(body) wraps the body so (TsanBody).
//   - join: each body releases its loop's join token on every path out (its last act); only the
//     caller acquires it, once the loop has returned (or thrown). Bodies never acquire it, so a body
//     that starts after another ends is still unordered with it.
//   - nesting: a body that runs a parallel loop of its own is that inner loop's caller, with its own
//     TsanLoop (its own two addresses, on its stack). The inner fork carries only that body's
//     history, and the inner join only the inner bodies', so sibling bodies of the outer loop gain no
//     edge through an inner loop. (A thread that runs a stolen task while it waits is ordered with
//     that task by its own program order: a real order, which TSan sees as such.)
//   - enumerable_thread_specific: an element is written only by the thread that owns it, in bodies;
//     the caller reads the elements after join(), which orders every body (all their writes) first.
// A token's address may be reused by a later loop of the same thread (same stack slot): it then
// carries that thread's older, already-joined history only, which adds no edge the thread lacks.
// (Before issue 28 one global token served every fork and join: each body was ordered after every
// body that had ended before it started, which hid races between bodies. tests/tsan_contract_probe.cpp
// checks the contract.)

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

class TsanLoop;

/// First act of a parallel body: acquires its loop's fork, and releases the body's work on every
/// path out of it (early returns and exceptions included) for its loop's join. Built by
/// TsanLoop::fork(body); direct use only where the body's own closure is ordered otherwise.
struct TsanTask {
  explicit TsanTask(TsanLoop& loop) noexcept;
  ~TsanTask();
  TsanTask(const TsanTask&) = delete;
  TsanTask& operator=(const TsanTask&) = delete;

 private:
  TsanLoop& loop_;
};

/// The body TsanLoop::fork(body) gives the loop in a TSan build: holds the loop's and the body's
/// addresses. Its call reads them uninstrumented (they were written by the caller, and the hand-off
/// is inside libtbb), acquires the fork, and only then calls the body, which reads its closure
/// (the caller's, which oneTBB's parallel_for(first, last, f) does not copy) after the edge.
template <class Body>
class TsanBody {
 public:
  TsanBody(TsanLoop& loop, const Body& body) noexcept : loop_(&loop), body_(&body) {}
  template <class... A>
  __attribute__((noinline, no_sanitize("thread"))) void operator()(A&&... a) const {
    const TsanTask task(*loop_);
    call(*body_, static_cast<A&&>(a)...);
  }

 private:
  /// Instrumented, and never inlined into the uninstrumented caller above.
  template <class... A>
  [[gnu::noinline]] static void call(const Body& body, A&&... a) {
    body(static_cast<A&&>(a)...);
  }
  TsanLoop* loop_;
  const Body* body_;
};

/// One parallel loop's two edges, owned by its caller (on the caller's stack, alive until the loop
/// has returned). Usage, the body built before the fork:
///   TsanLoop tsan;  auto body = [&](...) { ... };
///   tbb::parallel_for(..., tsan.fork(body));  tsan.join();
/// The caller's thread only calls fork() and join(); bodies only run inside a TsanTask.
class TsanLoop {
 public:
  TsanLoop() = default;
  TsanLoop(const TsanLoop&) = delete;
  TsanLoop& operator=(const TsanLoop&) = delete;
  /// An exception out of the loop still joins: the caller then reads what the bodies wrote (the
  /// exception object among them). A second acquire adds nothing.
  ~TsanLoop() { join(); }

  /// Right before the loop: the caller's set-up so far happens before every body.
  void fork() noexcept { tsan_release(&fork_); }
  /// fork(), and the body to give the loop: `body` itself, or in a TSan build a TsanBody that runs
  /// it inside a TsanTask.
  template <class Body>
  decltype(auto) fork(const Body& body) noexcept {
    fork();
#if defined(__SANITIZE_THREAD__)
    return TsanBody<Body>(*this, body);
#else
    return (body);
#endif
  }
  /// Right after the loop returns: every body happens before what the caller does next.
  void join() noexcept { tsan_acquire(&join_); }

 private:
  friend struct TsanTask;
  char fork_ = 0;  ///< released by the caller only, acquired by bodies only
  char join_ = 0;  ///< released by bodies only, acquired by the caller only
};

inline TsanTask::TsanTask(TsanLoop& loop) noexcept : loop_(loop) { tsan_acquire(&loop_.fork_); }
inline TsanTask::~TsanTask() { tsan_release(&loop_.join_); }

}  // namespace rica::detail
