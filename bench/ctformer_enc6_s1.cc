// ctformer's 6-layer encoder on S1, compiled for every Highway target; the best one is registered.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ctformer_enc6_s1.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include "ctformer_cases-inl.h"

HWY_BEFORE_NAMESPACE();
namespace bench::HWY_NAMESPACE {
void register_enc6_s1() { register_ctformer_encoder_6<S1>(); }
}  // namespace bench::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "dispatch.hpp"
namespace bench {
HWY_EXPORT(register_enc6_s1);
CTFORMER_BENCH_REGISTER(register_enc6_s1);
}  // namespace bench
#endif
