// Norms over the last axis:
//   layer_norm(x, γ, β, eps)  (x - mean) / sqrt(var + eps) · γ + β, var biased (as PyTorch)
//   rms_norm(x, γ, eps)       x / sqrt(mean(x²) + eps) · γ, as LLaMA's RMSNorm (eps 1e-6 as its default)
//   l2_normalize(x)           x / max(‖x‖₂, 1e-12), as torch.nn.functional.normalize (sentence embeddings)
#pragma once

#include <string>

#include "../bind.hpp"

namespace ctformer {

struct layer_norm_op {
    static constexpr const char* name = "layer_norm";
    double eps;
    std::string detail() const { return "eps=" + number_text(eps); }
};

template <operand X, operand G, operand B>
using layer_norm_error = first_failure_t<
    check<shape_of_t<G>::rank == 1 && std::is_same_v<shape_of_t<G>, shape_of_t<B>> &&
              last(extents_of<G>) == last(extents_of<X>),
          CTF_LAYER_NORM_PARAMS_DO_NOT_FIT_INPUT<input_is<shape_of_t<X>>, gamma_is<shape_of_t<G>>,
                                                 beta_is<shape_of_t<B>>>>,
    outcome<no_ids_t<X, G, B>>, outcome<names_agree_t<X, G, B>>>;

template <operand X, operand G, operand B, class Failure = layer_norm_error<X, G, B>>
    requires has_error<Failure>
Failure layer_norm(X, G, B, double eps = 1e-5);

template <operand X, operand G, operand B>
    requires no_error<layer_norm_error<X, G, B>>
auto layer_norm(X x, G gamma, B beta, double eps = 1e-5) {
    return combine([eps](auto v, auto g, auto b) {
        return make_node<shape_of_t<X>>(layer_norm_op{eps}, std::move(v), std::move(g), std::move(b));
    }, std::move(x), std::move(gamma), std::move(beta));
}

struct rms_norm_op {
    static constexpr const char* name = "rms_norm";
    double eps;
    std::string detail() const { return "eps=" + number_text(eps); }
};

template <operand X, operand G>
using rms_norm_error = first_failure_t<
    check<shape_of_t<G>::rank == 1 && last(extents_of<G>) == last(extents_of<X>),
          CTF_RMS_NORM_GAIN_DOES_NOT_FIT_INPUT<input_is<shape_of_t<X>>, gamma_is<shape_of_t<G>>>>,
    outcome<no_ids_t<X, G>>, outcome<names_agree_t<X, G>>>;

template <operand X, operand G, class Failure = rms_norm_error<X, G>>
    requires has_error<Failure>
Failure rms_norm(X, G, double eps = 1e-6);

template <operand X, operand G>
    requires no_error<rms_norm_error<X, G>>
auto rms_norm(X x, G gamma, double eps = 1e-6) {
    return combine([eps](auto v, auto g) { return make_node<shape_of_t<X>>(rms_norm_op{eps}, std::move(v), std::move(g)); },
                   std::move(x), std::move(gamma));
}

struct l2_normalize_op {
    static constexpr const char* name = "l2_normalize";
    static constexpr double least_norm = 1e-12;
};

template <operand X>
auto l2_normalize(X x) {
    return combine([](auto v) { return make_node<shape_of_t<X>>(l2_normalize_op{}, std::move(v)); }, std::move(x));
}

}  // namespace ctformer
