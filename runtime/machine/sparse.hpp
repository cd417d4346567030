#pragma once
// Per-node tables that a process fills only where it owns nodes (a machine over MPI ranks,
// runtime/machine/ranks.hpp; docs/distributed.md "Memory"). The tables keep their global indexing — the
// hop kernel reads them as in one process, no index map per hop — but their storage is anonymous
// memory that becomes resident only where written: a rank writes its own nodes' entries (and the
// few ghost entries its cut links need), so its resident memory follows its share of the machine;
// the rest costs address space only. Pages never written read as zero (the kernel's zero page,
// not resident). With one process every entry is written at allocation, as before.
//
// Not thread-safe to allocate or free; element access follows the owning table's rules.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace rica::detail {

/// Zeroed storage of `bytes`, aligned to 64: a private anonymous mapping (not reserved against
/// swap) from 64 KB up, the heap below. Throws std::bad_alloc.
inline void* lazy_zeroed(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  if (bytes < (std::size_t{1} << 16)) {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) throw std::bad_alloc();
    return std::memset(p, 0, bytes);
  }
  void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) throw std::bad_alloc();
  return m;
}
inline void lazy_free(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  if (bytes < (std::size_t{1} << 16))
    std::free(p);
  else
    ::munmap(p, bytes);
}

/// A std::vector allocator over lazy_zeroed(): value-initialising an element (resize(n),
/// vector(n)) writes nothing, so the element is the zero of its type and its page stays
/// untouched until written. Only for types whose all-zero bytes are their value-initialised
/// state (integers, Credit, atomics of integers).
template <class T>
struct LazyAllocator {
  using value_type = T;
  LazyAllocator() noexcept = default;
  template <class U>
  LazyAllocator(const LazyAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(lazy_zeroed(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { lazy_free(p, n * sizeof(T)); }
  template <class U>
  void construct(U*) noexcept {  // value-initialisation: the storage is zero already
    static_assert(std::is_trivially_destructible_v<U>, "LazyAllocator: zero bytes must be the value");
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
  template <class U>
  bool operator==(const LazyAllocator<U>&) const noexcept { return true; }
};
template <class T>
using lazy_vector = std::vector<T, LazyAllocator<T>>;

/// n objects of type T in lazily zeroed storage, each constructed only when built(i) (the
/// nodes a process owns): the others are never touched and must never be accessed (a debug
/// build checks). Not copyable or movable.
template <class T>
class SparseArray {
 public:
  SparseArray() = default;
  SparseArray(const SparseArray&) = delete;
  SparseArray& operator=(const SparseArray&) = delete;
  ~SparseArray() { reset(); }

  /// n elements; element i is default-constructed iff keep(i).
  template <class Keep>
  void build(std::size_t n, Keep&& keep) {
    reset();
    data_ = static_cast<T*>(lazy_zeroed(n * sizeof(T)));
    n_ = n;
    built_.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i)
      if (keep(i)) {
        ::new (static_cast<void*>(data_ + i)) T();
        built_[i] = 1;
      }
  }
  void reset() noexcept {
    for (std::size_t i = 0; i < n_; ++i)
      if (built_[i]) data_[i].~T();
    lazy_free(data_, n_ * sizeof(T));
    data_ = nullptr;
    n_ = 0;
    built_.clear();
  }
  T& operator[](std::size_t i) noexcept {
#ifndef NDEBUG
    if (i >= n_ || !built_[i]) std::abort();  // another rank's element: a broken invariant
#endif
    return data_[i];
  }
  const T& operator[](std::size_t i) const noexcept { return const_cast<SparseArray&>(*this)[i]; }
  bool built(std::size_t i) const noexcept { return i < n_ && built_[i]; }
  std::size_t size() const noexcept { return n_; }

 private:
  T* data_ = nullptr;
  std::size_t n_ = 0;
  std::vector<std::uint8_t> built_;
};

}  // namespace rica::detail
