// Random weights for the model, by its names and shapes (random_weights.cpp).
#pragma once

#include <ctformer/core/host_tensor.hpp>

ctformer::tensor_map random_weights();
