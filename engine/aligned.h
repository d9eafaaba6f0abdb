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

}  // namespace sparsebench
