#pragma once
// A spin-wait hint for the runtime's busy-wait loops (block scheduler, cycle crew): the x86
// `pause` (frees the core's other hyperthread, saves power); nothing elsewhere.
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace rica::detail {

inline void spin_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

}  // namespace rica::detail
