// Compiled by encoder_compile_time.sh with -DLAYERS=N: a BERT-base encoder of N layers (768 wide,
// 12 heads, d_ff 3072, gelu, eps 1e-12; x [B, 128, 768]) compiled, bound, run and explained, for
// one SIMD target, as a user's file would be (only compiled, never run). A repeated stack is one
// body: the cost should not grow with N.
#include <iostream>

#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>

constexpr ctf::nn::config bert_base{
    .d_model = 768, .heads = 12, .d_ff = 3072, .act = ctf::nn::activation::gelu, .eps = 1e-12};

int main(int argc, char** argv) {
    auto model = ctf::compile(ctf::nn::encoder<bert_base, LAYERS>(ctf::input<"x", ctf::batch, 128, 768>()));
    if (argc < 2) return 0;
    const ctf::tensor_map tensors;  // a real program reads them from a file (argv[1])
    model.bind(tensors);
    ctf::host_tensor<float> y;
    model.run(tensors, y);
    std::cout << model.explain(1) << argv[1];
}
