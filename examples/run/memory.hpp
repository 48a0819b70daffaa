// How much memory this process may still take, for ctformer-run's check before a run: the smaller
// of what Linux says is available (MemAvailable) and what the address-space limit (ulimit -v) leaves.
#pragma once

#include <sys/resource.h>

#include <cstddef>
#include <fstream>
#include <limits>
#include <string>

namespace run {

// A "Key:  value kB" line of a /proc file, in bytes; `otherwise` where there is none.
inline std::size_t proc_kilobytes(const char* file, const std::string& key, std::size_t otherwise) {
    std::ifstream in(file);
    for (std::string name; in >> name;) {
        std::size_t kilobytes = 0;
        if (name == key && in >> kilobytes) return kilobytes * 1024;
        in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    return otherwise;
}

inline std::size_t available_memory() {
    constexpr std::size_t unknown = std::numeric_limits<std::size_t>::max();
    std::size_t available = proc_kilobytes("/proc/meminfo", "MemAvailable:", unknown);
    rlimit limit{};
    if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
        const std::size_t used = proc_kilobytes("/proc/self/status", "VmSize:", 0);
        const std::size_t headroom = limit.rlim_cur > used ? limit.rlim_cur - used : 0;
        if (headroom < available) available = headroom;
    }
    return available;
}

}  // namespace run
