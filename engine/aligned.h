#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace sparsebench {

// Cache-line aligned storage so that weight rows start on 64-byte boundaries.
template <typename T>
struct AlignedAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlign{64};
  AlignedAllocator() = default;
  template <typename U>
  AlignedAllocator(const AlignedAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlign)); }
  void deallocate(T* p, size_t) { ::operator delete(p, kAlign); }
  bool operator==(const AlignedAllocator&) const { return true; }
};

using FloatVector = std::vector<float, AlignedAllocator<float>>;

}  // namespace sparsebench
