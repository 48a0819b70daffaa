// The generated small_encoder (2 pre-LN gelu layers, GQA, key padding) against ctformer::compile of
// its declaration, on every target.
#include CTFORMER_PARAMS_HEADER
#include CTFORMER_MODEL_SOURCE

#include "generated_check.hpp"
#include "small_encoder.hpp"

TEST(GeneratedModel, SmallEncoderMatchesCompile) {
    const auto graph = ctformer_declare_model<ctformer_model_params>();
    ctf::tensor_map inputs = ctf::reference::random_inputs(graph, 3, 6);
    for (std::size_t key : {3, 7, 15, 16, 17}) inputs.at("key_padding")[key] = 0;  // sequences 0 and 1
    test::expect_generated_matches_compile<small_encoder>(graph, inputs);
}
