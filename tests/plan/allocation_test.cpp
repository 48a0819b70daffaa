// The memory a plan asks for: the attention's per-thread scratch, bounded whatever the length, and
// the activations' slots, reused once dead, so that a deeper stack costs no more.
#include <gtest/gtest.h>

#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>

namespace {
constexpr ctf::nn::config cfg{.d_model = 64, .heads = 4, .d_ff = 128};
auto x = ctf::input<"x", ctf::batch, 37, 64>();

// One key block and one query tile (of up to 256 queries): bounded, whatever the length; the plan
// reports the kernel's bytes at the model's lengths.
TEST(Plan, AttentionScratchDoesNotGrowWithTheSequence) {
    using scratch = ctformer::kernels::HWY_NAMESPACE::attention_scratch<16, 16>;  // cfg's heads: 16 wide
    EXPECT_EQ(scratch::bytes(2048, 2048), scratch::bytes(512, 512));
    EXPECT_LT(scratch::bytes(16, 16), scratch::bytes(512, 512));  // a short sequence: a shorter block and tile
    for (std::size_t lq = 1; lq <= 300; ++lq)  // the lengths are run-time: the longest's scratch holds any shorter run
        for (std::size_t lk = 1; lk <= 300; lk += 7) ASSERT_LE(scratch::bytes(lq, lk), scratch::bytes(300, 300));
    std::size_t planned = 0;
    const auto model = ctf::compile(ctf::nn::encoder_layer<cfg>(x));
    for (const auto& step : model.program().steps)
        if (step.kernel.find("fused_attention") != std::string::npos) planned = step.scratch_bytes;
    EXPECT_EQ(planned, scratch::bytes(37, 37));
}

// Slots are reused once dead, and a repeat's body the same in every iteration: depth costs no memory.
TEST(Plan, ActivationMemoryDoesNotGrowWithDepth) {
    const auto one = ctf::compile(ctf::nn::encoder<cfg, 1>(x));
    const auto twelve = ctf::compile(ctf::nn::encoder<cfg, 12>(x));
    const std::size_t bytes_1 = ctf::plan::allocate(one.program(), {8}).bytes();
    const std::size_t bytes_12 = ctf::plan::allocate(twelve.program(), {8}).bytes();
    EXPECT_GT(bytes_1, 0u);
    EXPECT_LE(bytes_12, bytes_1 + bytes_1 / 10);
    // and less than one buffer per value: an encoder layer's 8 values of [8, 37, 64] or wider
    EXPECT_LT(bytes_1, 8 * 8 * 37 * 64 * sizeof(float));
}
}  // namespace
