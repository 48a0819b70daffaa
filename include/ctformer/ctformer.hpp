// ctformer: declare attention and encoder graphs with compile-time shapes.
// The core header: the DSL, the nn:: blocks and the reference evaluator. Printing lives in
// <ctformer/inspect/print.hpp>.
#pragma once

#include "dsl/bind.hpp"
#include "dsl/expr.hpp"
#include "dsl/nn/attention.hpp"
#include "dsl/nn/bert.hpp"
#include "dsl/nn/config.hpp"
#include "dsl/nn/decoder.hpp"
#include "dsl/nn/embedding.hpp"
#include "dsl/nn/encoder.hpp"
#include "dsl/nn/feed_forward.hpp"
#include "dsl/nn/gpt2.hpp"
#include "dsl/nn/llama.hpp"
#include "dsl/nn/norm.hpp"
#include "dsl/nn/positional_encoding.hpp"
#include "dsl/nn/transformer.hpp"
#include "dsl/ops/elementwise.hpp"
#include "dsl/ops/embedding.hpp"
#include "dsl/ops/heads.hpp"
#include "dsl/ops/layer_norm.hpp"
#include "dsl/ops/mask.hpp"
#include "dsl/ops/matmul.hpp"
#include "dsl/ops/pooling.hpp"
#include "dsl/ops/rotary.hpp"
#include "dsl/ops/softmax.hpp"
#include "dsl/repeat.hpp"
#include "dsl/tensor.hpp"
#include "core/exceptions.hpp"
#include "core/host_tensor.hpp"

namespace ctf = ctformer;
