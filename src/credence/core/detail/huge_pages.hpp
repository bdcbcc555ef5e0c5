// A hint for large, short-lived, sequentially filled buffers (the JSON tape, canonical output,
// a document read whole): back them with transparent huge pages where the kernel offers them
// on request (`madvise` mode), so filling 10 MB costs a few faults instead of thousands.
// Purely advisory: on other systems, or when refused, nothing changes.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace credence::core::detail {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

/// Advises huge pages for the whole 2 MiB pages inside [p, p + n); small ranges are left alone.
inline void advise_huge_pages(const void* p, size_t n) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (n < 2 * kHugePageBytes) return;
    const auto begin = reinterpret_cast<uintptr_t>(p);
    const uintptr_t first = (begin + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
    const uintptr_t last = (begin + n) & ~(kHugePageBytes - 1);
    if (last > first)
        ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);  // NOLINT
#else
    (void)p;
    (void)n;
#endif
}

}  // namespace credence::core::detail
