#pragma once
// RICA_ASSERT(cond, msg): a precondition or invariant check in debug builds (oneTBB's
// __TBB_ASSERT style), nothing in release builds (NDEBUG): `cond` is then not evaluated, so it
// must have no side effect. On failure: one line naming the file, line, condition and `msg` on
// stderr, then std::abort(). The one definition every rica header and source uses.

#include <cstdio>
#include <cstdlib>

#ifndef NDEBUG
#define RICA_ASSERT(cond, msg)                                                                                  \
  ((cond) ? (void)0                                                                                             \
          : (std::fprintf(stderr, "rica: %s:%d: assertion '%s' failed: %s\n", __FILE__, __LINE__, #cond, msg), \
             std::abort()))
#else
#define RICA_ASSERT(cond, msg) ((void)0)
#endif
