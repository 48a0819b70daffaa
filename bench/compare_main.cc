// The comparison binary: the FMA peak (of one core, and of each thread count) of the Highway target
// ctformer's cases run on is measured here; the cases register themselves from the files linked in:
// ctformer_workload.cc (once per workload), eigen_peer.cc and onednn_peer.cc. bench/run.sh runs it.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compare_main.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include "peak-inl.h"
#include "workloads.hpp"

HWY_BEFORE_NAMESPACE();
namespace bench::HWY_NAMESPACE {
void register_peak() {
    benchmark::RegisterBenchmark("peak/fma/threads:1", fma_peak);
    benchmark::RegisterBenchmark("peak/bf16_dot/threads:1", bf16_dot_peak);
    for (int threads : thread_counts())
        if (threads > 1)
            benchmark::RegisterBenchmark(("peak/fma/threads:" + std::to_string(threads)).c_str(), fma_peak_of, threads)
                ->UseRealTime();
}
}  // namespace bench::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "dispatch.hpp"
namespace bench {
HWY_EXPORT(register_peak);
CTFORMER_BENCH_REGISTER(register_peak);
}  // namespace bench

BENCHMARK_MAIN();
#endif
