// Asks Linux for transparent huge pages (2 MiB) for a large buffer that decoding streams from memory,
// before it is first touched: the KV cache, where each head's keys and values are a jump of half a
// megabyte, and the packed GEMM weights: with 2 MiB pages decoding's steps ran faster
// (docs/performance.md). Advice only:
// the kernel's setting may refuse it ("never"); elsewhere it is a no-op.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ctformer {

inline void advise_huge_pages(void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t huge = std::uintptr_t{1} << 21;
    const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(data) + huge - 1) & ~(huge - 1);
    const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(huge - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice: failure is harmless
#else
    (void)data;
    (void)bytes;
#endif
}

}  // namespace ctformer
