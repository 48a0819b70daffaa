#include "ctformer_cases.hpp"

static const bool registered = bench::register_ctformer_encoder_6<bench::S2>();
