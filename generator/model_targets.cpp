// A declared model (CTFORMER_MODEL_SOURCE, CTFORMER_PARAMS_HEADER) compiled for Highway's targets from
// its declaration alone, so that it builds beside the generator, not after it. ctformer_add_model
// compiles it twice, each translation unit on a core of its own (the targets: model_targets.hpp):
//   CTFORMER_NARROW_TARGETS  the static target, and on x86 SSSE3; the pass trace (compiled once:
//                            it costs a half about what a target does); the generator links it
//                            and lowers the model on the static target (make_static_model);
//   otherwise                every other target.
// Each target's make_model() is the model for that target behind runtime/any_model.hpp; the
// generated NAME.cpp dispatches to the best of them and runs its steps.
#ifndef CTFORMER_MODEL_TARGETS_DECLARED
#define CTFORMER_MODEL_TARGETS_DECLARED
#include <hwy/detect_compiler_arch.h>

#include "model_targets.hpp"
#if HWY_ARCH_X86 && !defined(HWY_DISABLED_TARGETS)  // the targets of the other half, where not in the baseline
#ifdef CTFORMER_NARROW_TARGETS
#define HWY_DISABLED_TARGETS (CTFORMER_MODEL_SKIPPED_TARGETS | ((HWY_SSE4 | HWY_AVX2 | HWY_AVX3) & ~HWY_BASELINE_TARGETS))
#else
#define HWY_DISABLED_TARGETS (CTFORMER_MODEL_SKIPPED_TARGETS | (HWY_SSSE3 & ~HWY_BASELINE_TARGETS))
#endif
#elif defined(CTFORMER_NARROW_TARGETS)
#define HWY_COMPILE_ONLY_STATIC 1
#endif

#include CTFORMER_PARAMS_HEADER
#include CTFORMER_MODEL_SOURCE

#include <string>
#include <string_view>
#ifdef CTFORMER_NARROW_TARGETS  // bind_directory, below: the checkpoint readers and JSON, in one half only
#include <filesystem>

#include <ctformer/runtime/checkpoint.hpp>
#endif

static_assert(std::string_view(ctformer_registered_name) == ctformer_model_name,
              "CTFORMER_REGISTER_MODEL's name differs from the name given to ctformer_add_model");

namespace ctformer_generated::CTFORMER_MODEL_NAMESPACE {
using declared_graph = decltype(ctformer_declare_model<ctformer_model_params>());
// The tree as declared and after each fusion pass, which every target's explain() prints: the narrow
// half defines it.
std::string pass_trace(const declared_graph& g);
}  // namespace ctformer_generated::CTFORMER_MODEL_NAMESPACE
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "model_targets.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <ctformer/runtime/model-inl.h>

#if defined(CTFORMER_NARROW_TARGETS) || HWY_TARGET != HWY_STATIC_TARGET
HWY_BEFORE_NAMESPACE();
namespace ctformer_generated::CTFORMER_MODEL_NAMESPACE::HWY_NAMESPACE {

std::unique_ptr<ctformer::any_model> make_model() {
    return ctformer::runtime::HWY_NAMESPACE::make_any_model(ctformer_declare_model<ctformer_model_params>(), &pass_trace);
}

}  // namespace ctformer_generated::CTFORMER_MODEL_NAMESPACE::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
#endif

#if HWY_ONCE && defined(CTFORMER_NARROW_TARGETS)
namespace ctformer_generated::CTFORMER_MODEL_NAMESPACE {

std::unique_ptr<ctformer::any_model> make_static_model() { return HWY_STATIC_DISPATCH(make_model)(); }

std::string pass_trace(const declared_graph& g) { return ctformer::pass_trace(g); }

// NAME::bind_directory: a Hugging Face directory's checkpoint, less the prefix a head's puts before the
// names, each tensor read as it is bound (a BF16 checkpoint is never held in fp32 whole).
void bind_directory(ctformer::any_model& model, const std::filesystem::path& dir, const ctformer::runtime::bind_options& options) {
    model.bind(ctformer::checkpoint(dir, ctformer_model_checkpoint_prefix), options);
}

}  // namespace ctformer_generated::CTFORMER_MODEL_NAMESPACE
#endif
