// The GEMM kernel against the reference evaluator, on every Highway target compiled in, for row
// counts with and without tails (1, 7, 8, 10, 37, 129) and widths that do not fill whole panels.
// Tolerance: inputs are uniform in [-1, 1] and weights in ±1/√K, so outputs are O(1); fp32 sums of K
// products against the double reference stay within 1e-5 + 1e-4·|want|. bf16 is checked against the
// reference given the same bf16-rounded W and x, to the same tolerance (its products are exact, its
// sums fp32), on each of its kernels this target runs here: widened, and AVX512-BF16's dot products
// where the CPU has them (TestBf16Units names the ones not run).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gemm_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <bit>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>

#include <hwy/highway.h>
#include <hwy/tests/hwy_gtest.h>

#include <ctformer/ctformer.hpp>
#include <ctformer/kernels/gemm-inl.h>
#include <ctformer/reference/evaluate.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include "support/compare.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::tests::HWY_NAMESPACE {
namespace k = ctformer::kernels;
namespace kt = ctformer::kernels::HWY_NAMESPACE;
namespace hn = hwy::HWY_NAMESPACE;

// The same epilogue, in the DSL: act(x·Wᵀ + b) + r.
template <class Epilogue, class X, class W, class B, class R>
auto as_expression(X x, W w, B b, R r) {
    auto product = [&] {
        if constexpr (Epilogue::bias) return linear(x, w, b);
        else return linear(x, w);
    }();
    auto activated = activate<Epilogue::act>(product);
    if constexpr (Epilogue::residual) return activated + r;
    else return activated;
}

// W and A rounded to bf16 as the kernels round them: the bf16 kernels must then agree with the
// reference to fp32's accuracy, which checks the pair layouts and the products, not only the rounding.
std::vector<float> as_bf16(std::vector<float> w) {
    for (float& x : w) x = k::bfloat16_to_float(k::bfloat16_bits(x));
    return w;
}

// The micro-kernels this target runs here: fp32, bf16 widened, and bf16's dot products where the
// target is 512 bits wide and the CPU has AVX512-BF16 (kt::unit_for).
std::vector<k::gemm_unit> units_here() {
    std::vector<k::gemm_unit> units{k::gemm_unit::fp32, k::gemm_unit::bf16_widened};
    if (kt::unit_for(k::precision::bf16) == k::gemm_unit::bf16_dot) units.push_back(k::gemm_unit::bf16_dot);
    return units;
}

k::precision precision_of(k::gemm_unit unit) { return unit == k::gemm_unit::fp32 ? k::precision::fp32 : k::precision::bf16; }

// The inputs given, in bf16 for a bf16 unit.
void round_for(k::gemm_unit unit, tensor_map& in, std::initializer_list<const char*> names) {
    if (unit != k::gemm_unit::fp32)
        for (const char* name : names) in.at(name).data = as_bf16(in.at(name).data);
}

template <std::size_t N, std::size_t K, class Epilogue>
void check(std::size_t m, k::gemm_unit unit) {
    auto x = input<"x", batch, int(K)>();
    auto w = weight<"W", int(N), int(K)>();
    auto b = weight<"b", int(N)>();
    auto r = input<"r", batch, int(N)>();
    auto expr = as_expression<Epilogue>(x, w, b, r);
    tensor_map in = reference::random_inputs(linear(x, w, b) + r, m);  // every operand
    round_for(unit, in, {"W", "x"});
    const auto want = reference::evaluate(expr, in);

    const float* bias = Epilogue::bias ? in.at("b").data.data() : nullptr;
    auto packed = kt::pack_weight(N, K, in.at("W").data.data(), bias, precision_of(unit));
    packed.unit = unit;
    std::vector<float> got(m * N, -12345.0f);
    kt::gemm(m, in.at("x").data.data(), packed, got.data(),
             {.act = Epilogue::act, .residual = Epilogue::residual ? in.at("r").data.data() : nullptr});
    test::expect_close(got, want, {.atol = 1e-5, .rtol = 1e-4},
                       std::string("gemm ") + k::unit_name(unit) + " m=" + std::to_string(m) + " N=" +
                           std::to_string(N) + " K=" + std::to_string(K));
}

template <std::size_t N, std::size_t K, class Epilogue>
void check_rows() {
    for (k::gemm_unit unit : units_here())
        // Every tail of 4- and 6-row tiles; 7 and 8 rows stream as one tile of 8 (padded), slice by slice.
        for (std::size_t m : {1, 2, 5, 7, 8, 10, 11, 37, 129}) check<N, K, Epilogue>(m, unit);
}

// K long enough to be cut into blocks (of kBlockSteps, gemm_panels) on every target, odd, with
// every epilogue term, so the bias goes in before the first block and the activation and residual
// after the last; 400 rows span several row blocks.
void TestBlocks() {
    for (k::gemm_unit unit : units_here())
        for (std::size_t m : {3, 37, 400}) check<40, 2731, epilogue<true, activation::gelu, true>>(m, unit);
}

// Rounding to bf16: to the nearest, ties to even, overflow to infinity, NaN kept.
void TestBfloat16Rounding() {
    EXPECT_EQ(k::bfloat16_bits(1.0f), 0x3f80);
    EXPECT_EQ(k::bfloat16_bits(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // a tie, to the even
    EXPECT_EQ(k::bfloat16_bits(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // a tie, to the even
    EXPECT_EQ(k::bfloat16_bits(std::bit_cast<float>(0x3f808001u)), 0x3f81);
    EXPECT_EQ(k::bfloat16_bits(-2.5f), 0xc020);
    EXPECT_EQ(k::bfloat16_bits(std::numeric_limits<float>::max()), 0x7f80);
    EXPECT_TRUE(std::isnan(k::bfloat16_to_float(k::bfloat16_bits(std::numeric_limits<float>::quiet_NaN()))));
    EXPECT_TRUE(std::isnan(k::bfloat16_to_float(k::bfloat16_bits(std::bit_cast<float>(0x7f800001u)))));

    // The packings' vector roundings give the same bits: the widened kernel's, in place, and
    // AVX512-BF16's pairs (where this target runs them; for normal values: it flushes subnormals).
    std::vector<float> x{1.0f, std::bit_cast<float>(0x3f808000u), std::bit_cast<float>(0x3f818000u),
                         std::bit_cast<float>(0x3f808001u), -2.5f, std::numeric_limits<float>::max(), 1e-3f, -7.0e5f};
    for (int i = 0; i < 37; ++i) x.push_back(std::sin(float(i)) * 3.0f);  // 45 in all: a tail past 32
    std::vector<float> rounded = x;
    kt::round_to_bfloat16(rounded.data(), rounded.size());
    for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(std::bit_cast<std::uint32_t>(rounded[i]), std::uint32_t{k::bfloat16_bits(x[i])} << 16) << i;
    std::vector<float> nan{std::bit_cast<float>(0x7f800001u)};
    kt::round_to_bfloat16(nan.data(), 1);
    EXPECT_TRUE(std::isnan(nan[0]));
#ifdef CTFORMER_GEMM_BF16_DOT
    if (!k::bf16_dot::available()) return;
    std::vector<float> pairs(x.size() / 2 + 2, -1.0f);
    k::bf16_dot::to_pairs(x.data(), x.size(), pairs.data());
    for (std::size_t i = 0; i < x.size(); i += 2) {
        const std::uint32_t high = i + 1 < x.size() ? k::bfloat16_bits(x[i + 1]) : 0;
        EXPECT_EQ(std::bit_cast<std::uint32_t>(pairs[i / 2]), (k::bfloat16_bits(x[i]) | high << 16)) << i;
    }
    EXPECT_EQ(pairs[x.size() / 2 + 1], -1.0f);  // nothing past the pairs written
#endif
}

void TestPlainShapes() {
    check_rows<64, 64, plain>();
    check_rows<13, 9, plain>();    // N not a whole panel, odd K
    check_rows<100, 130, plain>();
    // K of one step: a block of 40000 rows, whose bf16 pairs are as many as its steps.
    for (k::gemm_unit unit : units_here()) check<13, 1, plain>(40000, unit);
}

void TestEpilogues() {
    check_rows<40, 33, epilogue<true, activation::none, false>>();
    check_rows<40, 33, epilogue<true, activation::relu, false>>();
    check_rows<40, 33, epilogue<true, activation::gelu, false>>();
    check_rows<40, 33, epilogue<true, activation::none, true>>();
    check_rows<40, 33, epilogue<false, activation::relu, true>>();
    check_rows<40, 33, epilogue<false, activation::silu, true>>();
}

// The gated GEMM, act(x·W_gateᵀ + b_g) · (x·W_upᵀ + b_u) + r, against the same in the DSL, packed from
// [W_gate | W_up] as fuse_gated joins them. Gate and up have distinct values, so a swapped half or a
// gate panel paired with the wrong up panel shows; C's scratch starts as NaN, so an output written
// from a panel that was never computed shows too.
template <std::size_t F, std::size_t K, class Epilogue>
void check_gated(std::size_t m, k::gemm_unit unit) {
    auto x = input<"x", batch, int(K)>();
    auto gate = weight<"gate", int(F), int(K)>();
    auto up = weight<"up", int(F), int(K)>();
    auto gate_bias = weight<"gate_bias", int(F)>();
    auto up_bias = weight<"up_bias", int(F)>();
    auto r = input<"r", batch, int(F)>();
    const auto product = [&](auto w, auto b) {
        if constexpr (Epilogue::bias) return linear(x, w, b);
        else return linear(x, w);
    };
    auto gated = activate<Epilogue::act>(product(gate, gate_bias)) * product(up, up_bias);
    auto expr = [&] {
        if constexpr (Epilogue::residual) return gated + r;
        else return gated;
    }();
    tensor_map in = reference::random_inputs(linear(x, gate, gate_bias) * linear(x, up, up_bias) + r, m);  // every operand
    round_for(unit, in, {"gate", "up", "x"});
    const auto want = reference::evaluate(expr, in);

    const auto joined = [&](const char* first, const char* second) {
        std::vector<float> both = in.at(first).data;
        both.insert(both.end(), in.at(second).data.begin(), in.at(second).data.end());
        return both;
    };
    const auto biases = joined("gate_bias", "up_bias");
    auto packed = kt::pack_gated_weight(F, K, joined("gate", "up").data(), Epilogue::bias ? biases.data() : nullptr,
                                        precision_of(unit));
    packed.unit = unit;
    std::vector<float> scratch(m * packed.n, std::numeric_limits<float>::quiet_NaN()), got(m * F, -12345.0f);
    kt::gemm(m, in.at("x").data.data(), packed, scratch.data(),
             {.act = Epilogue::act, .gated_out = got.data(), .residual = Epilogue::residual ? in.at("r").data.data() : nullptr});
    test::expect_close(got, want, {.atol = 1e-5, .rtol = 1e-4},
                       std::string("gated gemm ") + k::unit_name(unit) + " m=" + std::to_string(m) + " F=" +
                           std::to_string(F) + " K=" + std::to_string(K));
}

// Rotary positions in the epilogue, against the reference's turn of the product: the first Columns of
// N columns in heads of 16 (across panels on every target but AVX-512's), sequences of 7 rows, each
// row at its place in its sequence; 7, 14 and 420 rows (streamed, one block, several), and K = 600
// cut into blocks (the heads turned once, after the last).
template <rotary_spec S, std::size_t N, std::size_t K, std::size_t Columns>
void check_rotary(std::size_t sequences) {
    constexpr std::size_t length = 7, pairs = S.dims() / 2;
    auto x = input<"x", batch, int(length), int(K)>();
    auto product = linear(x, weight<"W", int(N), int(K)>(), weight<"b", int(N)>());
    const tensor_map in = reference::random_inputs(product, sequences);
    auto want = reference::evaluate(product, in);
    reference::turn_heads(want, S, Columns);
    std::vector<float> angles(length * 2 * pairs);
    for (std::size_t i = 0; i < angles.size(); ++i)
        angles[i] = float(rotary_table<S>::at(int(i / (2 * pairs)), int(i % (2 * pairs)), int(2 * pairs)));

    const std::size_t m = sequences * length;
    const auto packed = kt::pack_weight(N, K, in.at("W").data.data(), in.at("b").data.data());
    std::vector<float> got(m * N, -12345.0f);
    kernels::epilogue_args args;
    args.rotary = {.angles = angles.data(), .columns = Columns, .head_dim = std::size_t(S.head_dim), .pairs = pairs,
                   .half = S.pairing == rotary_pairing::half, .position = {.length = length}};
    kt::gemm(m, in.at("x").data.data(), packed, got.data(), args);
    test::expect_close(got, want, {.atol = 1e-5, .rtol = 1e-4}, "rotary gemm m=" + std::to_string(m) + " " + rotary_text(S));
}

void TestRotary() {
    constexpr rotary_spec gptj{.head_dim = 16, .rotary_dims = 10, .pairing = rotary_pairing::interleaved};
    for (std::size_t sequences : {1, 2, 60}) {
        check_rotary<rotary_spec{.head_dim = 16, .theta = 500000}, 80, 33, 48>(sequences);
        check_rotary<gptj, 80, 600, 80>(sequences);
    }
}

void TestGated() {
    for (k::gemm_unit unit : units_here()) {
        for (std::size_t m : {1, 5, 8, 11, 37}) check_gated<40, 33, epilogue<false, activation::silu, false, true>>(m, unit);
        check_gated<13, 9, epilogue<true, activation::gelu, true, true>>(10, unit);  // F under one panel
        for (std::size_t m : {3, 400}) check_gated<72, 1100, epilogue<false, activation::silu, true, true>>(m, unit);
    }
}

// Which bf16 kernel a bf16 weight packs for here, and the kernels not run here, named: AVX512-BF16's
// on a CPU without it, or on a target narrower than 512 bits. (AMX tiles are not built.)
void TestBf16Units() {
    const auto packed = kt::pack_weight(3, 2, std::vector<float>(6, 1.0f).data(), nullptr, k::precision::bf16);
    EXPECT_EQ(packed.unit, kt::unit_for(k::precision::bf16));
    if (packed.unit == k::gemm_unit::bf16_dot) return;
    const bool wide = hn::Lanes(hn::ScalableTag<float>()) == 16 && HWY_ARCH_X86;
    std::cout << "[ NOT RUN  ] gemm bf16 avx512bf16 on " << hwy::TargetName(HWY_TARGET) << ": "
              << (!wide ? "the target's vectors are narrower than 512 bits" : "this CPU lacks AVX512-BF16") << "\n";
}

}  // namespace ctformer::tests::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ctformer::tests {
HWY_BEFORE_TEST(GemmKernel);
HWY_EXPORT_AND_TEST_P(GemmKernel, TestPlainShapes);
HWY_EXPORT_AND_TEST_P(GemmKernel, TestEpilogues);
HWY_EXPORT_AND_TEST_P(GemmKernel, TestGated);
HWY_EXPORT_AND_TEST_P(GemmKernel, TestRotary);
HWY_EXPORT_AND_TEST_P(GemmKernel, TestBlocks);
HWY_EXPORT_AND_TEST_P(GemmKernel, TestBfloat16Rounding);
HWY_EXPORT_AND_TEST_P(GemmKernel, TestBf16Units);
}  // namespace ctformer::tests
#endif
