// An encoder stack of P.layers layers, for the generator.
#include <ctformer/generator.hpp>

CTFORMER_REGISTER_MODEL(small_encoder, P) {
    auto x = ctf::input<"x", ctf::batch, P.length(), P.d_model>();
    return ctf::gen::with_mask<P>([&](auto... mask) { return ctf::nn::encoder<P.config(), P.layers>(x, mask...); });
}
