// The Highway targets a generated model is compiled for and dispatches among: model_targets.cpp
// compiles them, the generated NAME.cpp chooses one. Included before any of Highway's headers.
//
// Every target Highway compiles, less AVX3_DL where it is not the baseline: for ctformer's kernels
// its code is AVX3's, instruction for instruction (g++ 12, docs/performance.md, "Compile time"),
// so an AVX3_DL CPU runs the AVX3 code and a model compiles five targets, not six. Where AVX3_DL is
// the baseline (-march=native on Ice Lake, Zen 4 and later), Highway requires it, and it stays.
#pragma once

#define CTFORMER_MODEL_SKIPPED_TARGETS (HWY_AVX3_DL & ~HWY_BASELINE_TARGETS)
