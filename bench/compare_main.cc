// The comparison binary: the one-core FMA peak of the Highway target ctformer's cases run on is
// measured here; the cases register themselves from the files linked in: ctformer_workload.cc (once
// per workload), eigen_peer.cc and onednn_peer.cc. bench/run.sh runs it.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compare_main.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include "peak-inl.h"

HWY_BEFORE_NAMESPACE();
namespace bench::HWY_NAMESPACE {
void register_peak() { benchmark::RegisterBenchmark("peak/fma/threads:1", fma_peak); }
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
