// ctformer::compile(graph): the graph fused at compile time and run by fixed-shape Highway kernels
// for the one SIMD target the compiler flags select (static dispatch). The generator
// (ctformer_add_model) compiles a model for every target instead and picks the best at run time.
//
//   auto model = ctf::compile(ctf::nn::encoder_layer<cfg>(x));
//   model.bind(weights);                      // by PyTorch state_dict names
//   model.run(input, output);                 // batch from the input, every hardware thread
//   std::cout << model.explain();             // the tree before and after each pass, and the plan
//
// Flags (g++ or clang on x86-64):
//   -march=x86-64-v3 -maes -mpclmul -mtune=generic   AVX2: runs on Haswell (2013) and Zen and later
//   -march=native -mtune=generic                     the build machine's best (AVX-512 where it has it)
// Without SIMD flags Highway's static target is its scalar emulation, about ten times slower: compile
// refuses it with CTF_COMPILE_FOR_AN_EMULATED_TARGET_PASS_SIMD_FLAGS at the caller's line, unless
// CTFORMER_ALLOW_EMULATED_TARGET is defined. A binary built for a target its CPU lacks throws
// ctformer::error from compile, naming the target, where it does not die earlier of SIGILL.
#pragma once

#include "kernels/highway.hpp"
#include "runtime/attention_weights.hpp"
#include "runtime/model-inl.h"

namespace ctformer {

namespace detail {
inline constexpr bool static_target_emulated = HWY_STATIC_TARGET == HWY_EMU128 || HWY_STATIC_TARGET == HWY_SCALAR;
#ifdef CTFORMER_ALLOW_EMULATED_TARGET
inline constexpr bool emulated_target_refused = false;
#else
inline constexpr bool emulated_target_refused = static_target_emulated;
#endif
inline constexpr fixed_string static_target_name = HWY_STATIC_TARGET == HWY_EMU128 ? "EMU128" : "SCALAR";

using emulated_target_message = CTF_COMPILE_FOR_AN_EMULATED_TARGET_PASS_SIMD_FLAGS<
    target_is<static_target_name>,
    pass_flags<"-march=x86-64-v3 -maes -mpclmul -mtune=generic, or -march=native -mtune=generic">>;
}  // namespace detail

template <operand Graph, class Failure = detail::emulated_target_message>
    requires detail::emulated_target_refused
Failure compile(Graph);

template <operand Graph>
    requires(!detail::emulated_target_refused)
auto compile(Graph g) {
    if (!(hwy::SupportedTargets() & HWY_STATIC_TARGET))
        throw error(std::string("ctformer: this program was built for ") + hwy::TargetName(HWY_STATIC_TARGET) +
                    " (its -march flags), which this CPU lacks; build it with flags for this CPU, or use the "
                    "generator, which picks the best target at run time");
    return runtime::HWY_NAMESPACE::compile(std::move(g));
}

using runtime::bind_options;
using kernels::precision;
using runtime::run_options;

}  // namespace ctformer
