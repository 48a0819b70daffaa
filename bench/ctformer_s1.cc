#include "ctformer_cases.hpp"

static const bool registered = bench::register_ctformer_workload<bench::S1>();
