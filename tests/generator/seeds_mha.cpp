// The seeds' multi-head attention, for the generator: PARAMS seq=10 d_model=512 heads=8.
#include <ctformer/generator.hpp>

CTFORMER_REGISTER_MODEL(seeds_mha, P) {
    auto x = ctf::input<"x", ctf::batch, P.length(), P.d_model>();
    return ctf::gen::with_mask<P>([&](auto... mask) { return ctf::nn::multi_head_attention<P.config()>(x, mask...); });
}
