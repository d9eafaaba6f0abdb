#pragma once

#include <cstddef>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace sparsebench {

// Cache-line aligned storage so that weight rows start on 64-byte boundaries. Large arrays
// (weights, optimizer moments) are 2 MiB aligned and asked to live on transparent huge
// pages: rows are read at random, and with 4 KiB pages almost every row costs a TLB miss.
template <typename T>
struct AlignedAllocator {
  using value_type = T;
  static constexpr size_t kHugeBytes = size_t{2} << 20;
  AlignedAllocator() = default;
  template <typename U>
  AlignedAllocator(const AlignedAllocator<U>&) {}
  static std::align_val_t Alignment(size_t bytes) {
    return std::align_val_t{bytes >= 2 * kHugeBytes ? kHugeBytes : 64};
  }
  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    void* p = ::operator new(bytes, Alignment(bytes));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= 2 * kHugeBytes) madvise(p, bytes, MADV_HUGEPAGE);  // a hint; failure is harmless
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) { ::operator delete(p, Alignment(n * sizeof(T))); }
  bool operator==(const AlignedAllocator&) const { return true; }
};

using FloatVector = std::vector<float, AlignedAllocator<float>>;

// Writes to every page of [p, p + bytes) from the run's threads (OpenMP's default count). On a
// virtual machine whose host backs guest memory lazily, a page's first touch faults in the host
// as well, so one thread alone is slow (measured: docs/engine-notes.md, "Set-up at width").
void TouchPages(void* p, size_t bytes);

// v = n zeros. A large array that needs new storage gets it after the old is released (never
// two copies at once), its pages first touched by the run's threads.
template <typename T>
void AssignZeros(std::vector<T, AlignedAllocator<T>>& v, size_t n) {
  if (n * sizeof(T) < 2 * AlignedAllocator<T>::kHugeBytes || v.capacity() >= n) {
    v.assign(n, T{});
    return;
  }
  std::vector<T, AlignedAllocator<T>>().swap(v);
  v.reserve(n);
  TouchPages(v.data(), n * sizeof(T));
  v.resize(n);
}

}  // namespace sparsebench
