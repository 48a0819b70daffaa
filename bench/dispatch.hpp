// How the comparison's own code picks its Highway target: the best this CPU runs, as a generated
// model does, unless CTFORMER_BENCH_TARGET names one (e.g. AVX2, as bench/run.sh --avx2 sets, to
// compare at the width of an AVX2-only machine).
//   CTFORMER_BENCH_REGISTER(register_s2);   // after HWY_EXPORT(register_s2), under HWY_ONCE
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <hwy/highway.h>
#include <hwy/targets.h>

namespace bench {

// Holds Highway to the target CTFORMER_BENCH_TARGET names, once; exits if this CPU lacks it.
inline void hold_target_from_environment() {
    static const bool held = [] {
        const char* wanted = std::getenv("CTFORMER_BENCH_TARGET");
        if (!wanted || !*wanted) return false;
        for (std::int64_t bits = hwy::SupportedTargets(); bits; bits &= bits - 1) {
            const std::int64_t target = bits & -bits;
            if (std::strcmp(hwy::TargetName(target), wanted) == 0) {
                hwy::SetSupportedTargetsForTest(target);
                return true;
            }
        }
        std::fprintf(stderr, "CTFORMER_BENCH_TARGET=%s: not a Highway target this CPU and build support\n", wanted);
        std::exit(2);
    }();
    (void)held;
}

}  // namespace bench

// Calls the target's `function` (exported with HWY_EXPORT) at static initialisation.
#define CTFORMER_BENCH_REGISTER(function)                   \
    static const bool function##_registered = [] {          \
        bench::hold_target_from_environment();              \
        HWY_DYNAMIC_DISPATCH(function)();                   \
        return true;                                        \
    }()
