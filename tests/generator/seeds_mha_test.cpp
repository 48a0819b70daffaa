// The generated seeds_mha against ctformer::compile of its declaration, on every target.
#include CTFORMER_PARAMS_HEADER
#include CTFORMER_MODEL_SOURCE

#include "generated_check.hpp"
#include "seeds_mha.hpp"

TEST(GeneratedModel, SeedsMultiHeadAttentionMatchesCompile) {
    const auto graph = ctformer_declare_model<ctformer_model_params>();
    test::expect_generated_matches_compile<seeds_mha>(graph, ctf::reference::random_inputs(graph, 2, 5));
}
