// fuse_embedding_layer_norm: BERT's embeddings, LayerNorm(words + positions + types), become one
// embedding_layer_norm node, with token types gathered by their ids or one row of the types table;
// a LayerNorm of anything else stays as it was.
#include "support/fusion.hpp"

namespace {
using ctf::passes::fuse_embedding_layer_norm;

// The graph as the passes before fuse_embedding_layer_norm leave it.
template <class G>
auto before_rule(const G& g) {
    return ctf::passes::run_first<8>(g);
}

TEST(FuseEmbeddingLayerNorm, PassesAroundIt) {
    static_assert(std::is_same_v<std::tuple_element_t<7, ctf::passes::pipeline>, ctf::passes::fuse_residual_layer_norm>);
    static_assert(std::is_same_v<std::tuple_element_t<8, ctf::passes::pipeline>, fuse_embedding_layer_norm>);
}

constexpr ctf::nn::bert_config tiny{.vocabulary = 11, .positions = 8, .token_types = 3, .d_model = 4, .heads = 1,
                                    .d_ff = 8, .layers = 1};

TEST(FuseEmbeddingLayerNorm, TokenTypesGathered) {
    auto ids = ctf::id_input<"input_ids", ctf::batch, ctf::upto<6>>();
    auto types = ctf::id_input<"token_type_ids", ctf::batch, ctf::upto<6>>();
    auto h = before_rule(ctf::nn::bert_embeddings<tiny>(ids, types));
    EXPECT_NE(ctf::to_string(h).find("residual_layer_norm"), std::string::npos) << ctf::to_string(h);
    // ids from 0 to 2: inside both tables
    auto fused = test::expect_fused<fuse_embedding_layer_norm>(h, "embedding_layer_norm eps=1e-12 [B,L<=6,_4]", 3, 3);
    EXPECT_EQ(ctf::to_string(fused).find("residual_layer_norm"), std::string::npos) << ctf::to_string(fused);
}

TEST(FuseEmbeddingLayerNorm, TypeRowWhenNoTypesAreGiven) {
    auto ids = ctf::id_input<"input_ids", ctf::batch, ctf::upto<6>>();
    auto h = before_rule(ctf::nn::bert_embeddings<tiny>(ids));
    auto fused = test::expect_fused<fuse_embedding_layer_norm>(h, "embedding_layer_norm type row 0, eps=1e-12 [B,L<=6,_4]", 3, 11);
    EXPECT_EQ(ctf::to_string(fused).find("table_row"), std::string::npos) << ctf::to_string(fused);
}

TEST(FuseEmbeddingLayerNorm, RobertaPositionsFromTheirFirstRow) {
    constexpr ctf::nn::bert_config roberta{.family = ctf::nn::bert_family::roberta, .vocabulary = 11, .positions = 9,
                                           .token_types = 1, .d_model = 4, .heads = 1, .d_ff = 8, .layers = 1};
    auto ids = ctf::id_input<"input_ids", ctf::batch, ctf::upto<6>>();
    auto h = before_rule(ctf::nn::bert_embeddings<roberta>(ids));
    test::expect_fused<fuse_embedding_layer_norm>(h, "embedding_layer_norm positions from row 2, type row 0, eps=1e-12", 2, 11);
}

TEST(FuseEmbeddingLayerNorm, OtherLayerNormsStayApart) {
    auto a = ctf::input<"a", ctf::batch, 3, 8>();
    auto b = ctf::input<"b", ctf::batch, 3, 8>();
    auto g = ctf::passes::run_pass<fuse_embedding_layer_norm>(
        before_rule(ctf::layer_norm(a + b, ctf::weight<"gamma", 8>(), ctf::weight<"beta", 8>())));
    EXPECT_NE(ctf::to_string(g).find("residual_layer_norm"), std::string::npos) << ctf::to_string(g);
    EXPECT_EQ(ctf::to_string(g).find("embedding_layer_norm"), std::string::npos) << ctf::to_string(g);
}
}  // namespace
