// The S2 encoder layer (L=128, 512 wide, 8 heads, d_ff 2048, post-LN relu), for the generator.
#include <ctformer/generator.hpp>

CTFORMER_REGISTER_MODEL(s2_encoder, P) {
    return ctf::nn::encoder_layer<P.config()>(ctf::input<"x", ctf::batch, P.length(), P.d_model>());
}
