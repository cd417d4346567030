// rica — emulation runtime for message passing on emulated interconnection networks.
// The front end is the library rica::cli (apps/cli/cli_main.cpp); this file adds only the
// allocation hook. Exit status: 0 success, 1 internal failure, 2 bad input, 3 deadlock,
// 130 stopped by Ctrl-C (rica/interrupt.hpp).
#include <algorithm>
#include <cstdlib>
#include <new>

#include "rica/cli.hpp"

// The size of the last allocation that failed, for the out-of-memory message (issue 11: a
// bad_alloc anywhere is a clean exit 2 naming the size asked for). The replacements below are the
// standard operator new with that one addition; operator delete is the standard one. They live in
// the executable, not the library, so that a program linking rica keeps its own allocator.
static void* allocate_or_throw(std::size_t n) {
  if (void* p = std::malloc(n ? n : 1)) return p;
  rica::cli::failed_allocation_size().store(n);
  throw std::bad_alloc();
}
static void* allocate_aligned_or_throw(std::size_t n, std::align_val_t a) {
  const std::size_t al = static_cast<std::size_t>(a);
  if (void* p = std::aligned_alloc(al, (std::max<std::size_t>(n, 1) + al - 1) / al * al)) return p;
  rica::cli::failed_allocation_size().store(n);
  throw std::bad_alloc();
}
void* operator new(std::size_t n) { return allocate_or_throw(n); }
void* operator new[](std::size_t n) { return allocate_or_throw(n); }
void* operator new(std::size_t n, std::align_val_t a) { return allocate_aligned_or_throw(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate_aligned_or_throw(n, a); }
// The nothrow forms too (std::stable_sort's temporary buffer uses them): every form this file
// does not replace would come from another allocator than the free() below (ASan reports the
// mismatch: alloc-dealloc-mismatch, operator new vs free).
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return std::malloc(n ? n : 1); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return std::malloc(n ? n : 1); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  const std::size_t al = static_cast<std::size_t>(a);
  return std::aligned_alloc(al, (std::max<std::size_t>(n, 1) + al - 1) / al * al);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t& t) noexcept {
  return operator new(n, a, t);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

int main(int argc, char** argv) { return rica::cli::main(argc, argv); }
