// Random weights for the model, when no checkpoint is given: every tensor its declaration reads
// (generator/hf_model.cpp with the parameters ctformer-gen read from config.json), by name and
// shape, uniform in ±1/√(fan-in); the LayerNorms as a new model's (gain 1, shift 0), or their small
// random shifts would be all that is left of a sentence. Built with the declaration
// (examples/CMakeLists.txt), as the model is.
#include CTFORMER_PARAMS_HEADER
#include CTFORMER_MODEL_SOURCE

#include <algorithm>

#include <ctformer/reference/random_inputs.hpp>

#include "random_weights.hpp"

ctformer::tensor_map random_weights() {
    ctformer::tensor_map weights =
        ctformer::reference::random_inputs(ctformer_declare_model<ctformer_model_params>(), {1, {1}});
    for (auto& [name, t] : weights)
        if (name.find("LayerNorm.") != std::string::npos) std::ranges::fill(t.data, name.ends_with(".weight") ? 1.0f : 0.0f);
    return weights;
}
