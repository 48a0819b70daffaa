// ctformer's S5 cases, compiled for every Highway target; the best one is registered.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ctformer_s5.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include "ctformer_cases-inl.h"

HWY_BEFORE_NAMESPACE();
namespace bench::HWY_NAMESPACE {
void register_s5() { register_ctformer_workload<S5>(); }
}  // namespace bench::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "dispatch.hpp"
namespace bench {
HWY_EXPORT(register_s5);
CTFORMER_BENCH_REGISTER(register_s5);
}  // namespace bench
#endif
