// Every node derives its static shape where it is built. Shapes themselves (their algebra, printing,
// broadcasting, packed batches): tests/shape/.
#include "support/tensors.hpp"

namespace {

template <class E, int... Extents>
constexpr bool has_shape = std::is_same_v<ctf::shape_of_t<E>, ctf::shape<Extents...>>;

constexpr int B = ctf::batch;

auto x = ctf::input<"x", B, 10, 512>();
auto w = ctf::weight<"w", 512, 64>();

static_assert(has_shape<decltype(ctf::matmul(x, w)), B, 10, 64>);             // the weight is broadcast
static_assert(has_shape<decltype(ctf::transpose(w)), 64, 512>);
static_assert(has_shape<decltype(x + ctf::weight<"bias", 512>()), B, 10, 512>);
static_assert(has_shape<decltype(ctf::split_heads<8>(x)), B, 8, 10, 64>);
static_assert(has_shape<decltype(ctf::merge_heads(ctf::split_heads<8>(x))), B, 10, 512>);
static_assert(has_shape<decltype(ctf::expand_heads<8>(ctf::split_heads<2>(x))), B, 8, 10, 256>);
static_assert(has_shape<decltype(ctf::linear(x, ctf::weight<"fc.weight", 64, 512>())), B, 10, 64>);

auto q = ctf::input<"q", B, 8, 10, 64>();
auto k = ctf::input<"k", B, 8, 12, 64>();
static_assert(has_shape<decltype(ctf::nn::attention_weights(q, k)), B, 8, 10, 12>);
static_assert(has_shape<decltype(ctf::nn::scaled_dot_product_attention(q, k, k)), B, 8, 10, 64>);
static_assert(has_shape<decltype(ctf::mask(ctf::matmul(q, ctf::transpose(k)), ctf::causal)), B, 8, 10, 12>);

constexpr ctf::nn::config seeds{.d_model = 512, .heads = 8};
auto memory = ctf::input<"memory", B, 12, 512>();
using cross = decltype(ctf::nn::multi_head_attention_with_weights<seeds>(x, memory, memory));
static_assert(has_shape<decltype(cross::output), B, 10, 512>);
static_assert(has_shape<decltype(cross::weights), B, 8, 10, 12>);

TEST(Shapes, RunTimeDimsFollowTheStaticShapeWithTheGivenBatch) {
    auto y = ctf::matmul(ctf::input<"a", B, 2, 3>(), ctf::weight<"b", 3, 4>());
    const ctf::tensor_map in{{"a", test::filled({5, 2, 3}, 1)}, {"b", test::filled({3, 4}, 1)}};
    EXPECT_EQ(ctf::reference::evaluate(y, in).dims, (ctf::dims_t{5, 2, 4}));
}

}  // namespace
