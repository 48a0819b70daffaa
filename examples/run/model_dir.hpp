// ctformer-run --model DIR: a whole BERT-family model from a Hugging Face folder (config.json and
// model.safetensors, or its shards), run on token ids: the last hidden state, the pooler output or
// sentence embeddings. DIR/config.json picks one of the geometries ctformer-run is built with
// (configurations.hpp); any other is one ctformer_add_model(... HF_CONFIG ...) line away, and the
// error says which.
#pragma once

#include <ostream>
#include <string>

#include <ctformer/kernels/gemm.hpp>

namespace run {

// What --model returns.
enum class model_result { hidden_state, pooler, sentence_embedding };

struct model_request {
    std::string dir, input_ids, attention_mask, token_type_ids, output;
    model_result result = model_result::hidden_state;
    int threads = 0;  // 0: every hardware thread
    ctformer::kernels::precision precision = ctformer::kernels::precision::fp32;  // the GEMMs'
    bool non_strict = false, explain = false, profile = false;
};

// Runs it, printing what --explain and --profile ask for and a one-line summary; a mistake in a
// file throws a ctformer error naming the file and what is wrong.
int run_model_dir(const model_request& request);

// The built-in geometries, for --help: each name and the sizes config.json must give.
void print_model_geometries(std::ostream& out);

}  // namespace run
