// Causal multi-head self-attention, declared for the generator.
#include <ctformer/generator.hpp>

CTFORMER_REGISTER_MODEL(my_attention, P) {
    auto x = ctf::input<"x", ctf::batch, P.length(), P.d_model>();
    return ctf::gen::with_mask<P>([&](auto... mask) { return ctf::nn::multi_head_attention<P.config()>(x, mask...); });
}
