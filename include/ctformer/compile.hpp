// ctformer::compile(graph): the graph fused at compile time and run by fixed-shape Highway kernels
// for the target the compiler flags select (static dispatch; e.g. -march=haswell -maes -mpclmul for
// AVX2). The generator emits code that dispatches at run time instead.
//
//   auto model = ctf::compile(ctf::nn::encoder_layer<cfg>(x));
//   model.bind(weights);                      // by PyTorch state_dict names
//   model.run(input, output);                 // batch from the input, every hardware thread
//   std::cout << model.explain();             // the tree before and after each pass, and the plan
#pragma once

#include <hwy/highway.h>

#include "runtime/attention_weights.hpp"
#include "runtime/model-inl.h"

namespace ctformer {

template <operand Graph>
auto compile(Graph g) {
    return runtime::HWY_NAMESPACE::compile(std::move(g));
}

using runtime::run_options;

}  // namespace ctformer
