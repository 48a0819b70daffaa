// Every node derives its static shape where it is built.
#include <array>
#include <string>

#include <ctformer/core/tensor_check.hpp>

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

TEST(Shapes, PrintWithUnderscoresAndTheBatchAsB) {
    EXPECT_EQ(ctf::to_string<ctf::shape_of_t<decltype(x)>>(), "[B,_10,_512]");
    EXPECT_EQ((ctf::to_string<ctf::shape<3, 4>>()), "[_3,_4]");
}

// A run-time extent seen as what it is: the batch, a length with its variable and maximum, a size.
TEST(Shapes, ExtentViewTellsTheKindsApart) {
    using view = ctf::extent_view;
    EXPECT_EQ(view::of(ctf::batch), (view{view::kind::batch, 0, 0}));
    EXPECT_EQ(view::of(ctf::upto<512>), (view{view::kind::length, 512, 0}));
    EXPECT_EQ((view::of(ctf::upto<128, 1>)), (view{view::kind::length, 128, 1}));
    EXPECT_EQ(view::of(64), (view{view::kind::fixed, 64, 0}));
    EXPECT_EQ(view::of(ctf::batch).to_string(), "B");
    EXPECT_EQ(view::of(ctf::upto<512>).to_string(), "L<=512");
    EXPECT_EQ((view::of(ctf::upto<128, 1>).to_string()), "L1<=128");
    EXPECT_EQ((view::of(ctf::upto<128, 1>).name()), "L1");
    EXPECT_EQ(view::of(64).to_string(), "64");
    EXPECT_EQ(view::of(ctf::upto<512>).described(), "L, a length from 1 to 512");
    EXPECT_EQ((ctf::to_string<ctf::shape<B, ctf::upto<512>, ctf::upto<128, 1>, 64>>()), "[B,L<=512,L1<=128,_64]");
}

// A message about a run-time length names it, L with its maximum, never its encoding (-1000512) or
// the batch's (-1).
TEST(Shapes, MessagesNameALengthNotItsNumber) {
    constexpr std::array extents{B, ctf::upto<512>, 64};
    const auto message = [&](ctf::dims_t dims) {  // of x, after y [2, 10, 64] set B and L
        const ctf::tensor_map given{{"y", ctf::host_tensor<float>({2, 10, 64})}, {"x", ctf::host_tensor<float>(std::move(dims))}};
        ctf::extents_seen seen;
        try {
            (void)ctf::checked_tensor(given, "y", extents, seen);
            (void)ctf::checked_tensor(given, "x", extents, seen);
        } catch (const ctf::shape_mismatch& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string too_long = message({2, 600, 64});
    EXPECT_EQ(too_long, "ctformer: tensor 'x' has shape [2,600,64], expected [B,L<=512,_64] (L, a length from 1 to 512, given 600)");
    const std::string narrow = message({2, 10, 32});
    EXPECT_EQ(narrow, "ctformer: tensor 'x' has shape [2,10,32], expected [B,L<=512,_64] with B=2, L=10");
    for (const std::string& m : {too_long, narrow, message({2, 10})}) {
        EXPECT_EQ(m.find("-1"), std::string::npos) << m;
        EXPECT_EQ(m.find("1000512"), std::string::npos) << m;
    }
    try {
        ctf::extents_seen seen;
        const ctf::tensor_map given{{"x", ctf::host_tensor<float>({1, 0, 64})}};
        (void)ctf::checked_tensor(given, "x", extents, seen);
        ADD_FAILURE() << "a length of 0 was taken";
    } catch (const ctf::length_out_of_range& e) {
        EXPECT_EQ(e.extent(), ctf::extent_view::of(ctf::upto<512>));
        EXPECT_EQ(e.maximum(), 512u);
        EXPECT_EQ(e.length(), 0u);
    }
}

TEST(Shapes, RunTimeDimsFollowTheStaticShapeWithTheGivenBatch) {
    auto y = ctf::matmul(ctf::input<"a", B, 2, 3>(), ctf::weight<"b", 3, 4>());
    const ctf::tensor_map in{{"a", test::filled({5, 2, 3}, 1)}, {"b", test::filled({3, 4}, 1)}};
    EXPECT_EQ(ctf::reference::evaluate(y, in).dims, (ctf::dims_t{5, 2, 4}));
}

}  // namespace
