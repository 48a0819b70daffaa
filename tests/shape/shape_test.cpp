// Shapes are types (shape/shape.hpp): the encoding of run-time lengths, the constexpr algebra over
// extents the operations derive their shapes with, how a shape prints, and the extents of one run
// (extent_values). What each DSL operation derives: dsl/shapes_test.cpp.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include <ctformer/core/tensor_check.hpp>
#include <ctformer/ctformer.hpp>

namespace {

constexpr int B = ctf::batch;

auto x = ctf::input<"x", B, 10, 512>();

// upto<Max, Var>: a negative code that names its variable and keeps its maximum.
static_assert(ctf::upto<512> == -1000512 && ctf::upto<128, 1> == -2000128);
static_assert(ctf::is_length(ctf::upto<512>) && ctf::is_length(ctf::upto<1, 3>));
static_assert(!ctf::is_length(B) && !ctf::is_length(512));
static_assert(ctf::length_variable(ctf::upto<512>) == 0 && ctf::length_variable(ctf::upto<128, 1>) == 1);
static_assert(ctf::length_variable(ctf::upto<7, 3>) == 3);
static_assert(ctf::maximum(ctf::upto<512>) == 512 && ctf::maximum(ctf::upto<128, 1>) == 128 && ctf::maximum(64) == 64);

// shape<...> and shape_from_t, its inverse over std::array.
using bld = ctf::shape<B, ctf::upto<512>, 768>;
static_assert(bld::rank == 3 && bld::batched && !ctf::shape<3, 4>::batched && !ctf::shape<>::batched);
static_assert(std::is_same_v<ctf::shape_from_t<bld::extents>, bld>);
static_assert(std::is_same_v<ctf::shape_from_t<std::array{10, 512}>, ctf::shape<10, 512>>);
static_assert(ctf::shape_type<bld> && !ctf::shape_type<int>);

// The algebra: the last extents, dropping and joining, numpy's trailing-extent broadcasting.
constexpr ctf::extents_t<3> abc{2, 3, 4};
static_assert(ctf::last(abc) == 4 && ctf::last(abc, 2) == 2 && ctf::last(abc, 3) == 0);
static_assert(ctf::drop_last<1>(abc) == ctf::extents_t<2>{2, 3} && ctf::drop_last<3>(abc).empty());
static_assert(ctf::concat(ctf::extents_t<1>{7}, abc) == ctf::extents_t<4>{7, 2, 3, 4});
static_assert(ctf::is_suffix(ctf::extents_t<2>{3, 4}, abc) && ctf::is_suffix(abc, abc));
static_assert(!ctf::is_suffix(ctf::extents_t<2>{2, 3}, abc) && !ctf::is_suffix(ctf::extents_t<4>{1, 2, 3, 4}, abc));
static_assert(ctf::broadcastable(abc, ctf::extents_t<1>{4}) && ctf::broadcastable(ctf::extents_t<1>{4}, abc));
static_assert(!ctf::broadcastable(abc, ctf::extents_t<1>{3}));
static_assert(ctf::broadcast(ctf::extents_t<1>{4}, abc) == abc && ctf::broadcast(abc, ctf::extents_t<2>{3, 4}) == abc);

// Which extents are valid: positive, or a length, or the batch first.
static_assert(ctf::batch_only_leads(ctf::extents_t<3>{B, 2, 3}) && !ctf::batch_only_leads(ctf::extents_t<2>{2, B}));
static_assert(ctf::all_positive_or_batch(ctf::extents_t<3>{B, ctf::upto<9>, 3}));
static_assert(!ctf::all_positive_or_batch(ctf::extents_t<2>{2, 0}) && !ctf::all_positive_or_batch(ctf::extents_t<1>{-5}));
static_assert(ctf::has_length(bld::extents) && !ctf::has_length(abc));

TEST(Shapes, PrintWithUnderscoresAndTheBatchAsB) {
    EXPECT_EQ(ctf::to_string<ctf::shape_of_t<decltype(x)>>(), "[B,_10,_512]");
    EXPECT_EQ((ctf::to_string<ctf::shape<3, 4>>()), "[_3,_4]");
}

TEST(Shapes, LengthsPrintTheirVariableAndMaximum) {
    EXPECT_EQ(ctf::to_string<bld>(), "[B,L<=512,_768]");
    EXPECT_EQ((ctf::to_string<ctf::shape<ctf::upto<128, 1>, ctf::upto<16, 3>>>()), "[L1<=128,L3<=16]");
    EXPECT_EQ(ctf::to_string<ctf::shape<>>(), "[]");
    EXPECT_EQ(ctf::length_name(ctf::upto<9, 2>), "L2");
}

// A run's extents: the batch, a length given or its maximum, elements, another batch.
TEST(Shapes, ExtentValuesGiveEachDeclaredExtentItsRunTimeValue) {
    const ctf::extent_values at{3, {5, 0, 2}};
    EXPECT_EQ(at.of(B), 3u);
    EXPECT_EQ(at.of(64), 64u);
    EXPECT_EQ(at.of(ctf::upto<512>), 5u);
    EXPECT_EQ(at.of(ctf::upto<128, 1>), 128u);  // not given: its maximum
    EXPECT_EQ(at.of(ctf::upto<128, 2>), 2u);
    EXPECT_EQ(at.elements(bld::extents), 3u * 5u * 768u);
    EXPECT_EQ(at.elements(ctf::shape<>::extents), 1u);
    const ctf::extent_values other = at.with_batch(7);
    EXPECT_EQ(other.batch, 7u);
    EXPECT_EQ(other.lengths, at.lengths);
    EXPECT_FALSE(other == at);
    EXPECT_TRUE(other.with_batch(3) == at);
    EXPECT_EQ(ctf::extent_values{}.of(ctf::upto<9>), 9u);  // a number alone is a batch, at the maxima
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

}  // namespace
