// Running independent work items on several threads (OpenMP where the build has it, else in order).
// Items are claimed one at a time, so uneven items (causal attention rows) balance; what an item
// computes never depends on which thread runs it.
#pragma once

#include <cstddef>
#include <string>
#include <thread>

#include "exceptions.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace ctformer {

// Asked once: glibc answers hardware_concurrency() by reading /sys/devices/system/cpu/online, an
// open, a read and a close, a cost a small model's run notices (docs/performance.md).
inline int hardware_threads() {
    static const int threads = [] {
        const unsigned hardware = std::thread::hardware_concurrency();
        return hardware ? static_cast<int>(hardware) : 1;
    }();
    return threads;
}

// The most threads a run may ask for: four per hardware thread (more only slows a run down).
inline int most_threads() { return 4 * hardware_threads(); }

// The threads a run takes: `requested`, or every hardware thread for 0; invalid_option outside
// 0 .. most_threads(), before any of them reaches OpenMP.
inline int thread_count(int requested) {
    if (requested < 0 || requested > most_threads())
        throw invalid_option("threads", std::to_string(requested), "0 (every hardware thread) to " +
                                                                      std::to_string(most_threads()));
    return requested > 0 ? requested : hardware_threads();
}

// f(item, thread) for item in [0, count), thread in [0, threads).
template <class F>
void parallel_for(std::size_t count, int threads, F f) {
#ifdef _OPENMP
    if (threads > 1 && count > 1) {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
        for (std::size_t item = 0; item < count; ++item) f(item, omp_get_thread_num());
        return;
    }
#endif
    for (std::size_t item = 0; item < count; ++item) f(item, 0);
}

}  // namespace ctformer
