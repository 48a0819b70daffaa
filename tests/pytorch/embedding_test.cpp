// ctformer against PyTorch's nn.Embedding: GPT-2's first hidden state wte(ids) + wpe(0 … L-1), then a
// LayerNorm (golden file, see support/golden.hpp), its ids read as PyTorch saves them (I64) and as
// int32, at the file's length, 7, under the maximum of 16 the graph declares. The semantics, by the
// reference evaluator: the embedding kernels are checked against it on every target (model_ops_test),
// and run against PyTorch in GPT-2 (gpt2_test).
#include <ctformer/runtime/safetensors.hpp>

#include "support/golden.hpp"

namespace {

TEST(PyTorchEmbedding, TokensAndLearnedPositions) {
    const std::string path = std::string(CTFORMER_GOLDEN_DIR) + "/embedding_positions.safetensors";
    const ctf::safetensors_file file(path);
    const ctf::tensor_map weights = ctf::load_state_dict(path);  // the ids are no weights: left out
    EXPECT_FALSE(weights.contains("input_ids"));
    auto ids = ctf::id_input<"input_ids", ctf::batch, ctf::upto<16>>();
    auto h = ctf::nn::add_position_embedding<"wpe", 16>(ctf::nn::embedding<"wte", 50, 24>(ids));
    auto graph = ctf::layer_norm(h, ctf::weight<"ln.weight", 24>(), ctf::weight<"ln.bias", 24>());
    for (const char* name : {"input_ids", "input_ids_i32"})
        test::expect_close(ctf::reference::evaluate(graph, weights, {{"input_ids", file.ids(name)}}), weights.at("expected"),
                           test::fp32_against_pytorch, name);
}

}  // namespace
