// What one run of a compiled model may ask for besides its inputs and output.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "host_tensor.hpp"

namespace ctformer::runtime {

struct run_options {
    int threads = 0;  // 0: every hardware thread
    // Bound intermediates to copy out after the run, by name: {"attn_weights", &weights}.
    std::vector<std::pair<std::string, host_tensor<float>*>> keep = {};
};

}  // namespace ctformer::runtime
