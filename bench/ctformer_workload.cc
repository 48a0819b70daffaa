// ctformer's cases of one workload, compiled for every Highway target; the best one is registered.
// CMake compiles this file once per case set, each in parallel, with
//   CTFORMER_BENCH_WORKLOAD   S1 .. S5 (workloads.hpp)
//   CTFORMER_BENCH_LAYERS     1: MHA and one encoder layer; 6: the 6-layer encoder
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ctformer_workload.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include "ctformer_cases-inl.h"

HWY_BEFORE_NAMESPACE();
namespace bench::HWY_NAMESPACE {
namespace {  // one such function per object file linked into compare_bench
void register_workload() {
    if constexpr (CTFORMER_BENCH_LAYERS == 1) register_ctformer_workload<CTFORMER_BENCH_WORKLOAD>();
    else register_ctformer_encoder_6<CTFORMER_BENCH_WORKLOAD>();
}
}  // namespace
}  // namespace bench::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "dispatch.hpp"
namespace bench {
HWY_EXPORT(register_workload);
CTFORMER_BENCH_REGISTER(register_workload);
}  // namespace bench
#endif
