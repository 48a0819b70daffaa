// The Highway targets a generated model runs on this CPU, best first: those this test is built for,
// less the ones it skips (generator/model_targets.hpp), which run another's code.
#pragma once

#include <hwy/targets.h>

#include <cstdint>
#include <vector>

#include "model_targets.hpp"

namespace test {

inline std::vector<std::int64_t> generated_model_targets() {
    std::vector<std::int64_t> targets;
    for (const std::int64_t target : hwy::SupportedAndGeneratedTargets())
        if (!(target & CTFORMER_MODEL_SKIPPED_TARGETS)) targets.push_back(target);
    return targets;
}

}  // namespace test
