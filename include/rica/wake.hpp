#pragma once
// Waking a program asleep on Context::skip_opportunities() (rica/app.hpp), for closed-loop
// applications whose handlers resume a program: the MPI replay (apps/replay) blocks a rank "for
// ever" on a receive and, when the message's last packet arrives, resumes it and times its next
// compute gap from generate().

namespace rica {

class Context;

/// Cancels the opportunities `ctx`'s PE skipped so far: its next generate() call comes at its next
/// opportunity. Call on the PE's own task (a handler or a hook of that PE); no effect when nothing
/// is skipped. The cycle engine's sleeping node then stays in (or rejoins) the active set.
void wake(Context& ctx) noexcept;

}  // namespace rica
