// The typed parameters of a generated model (ctformer_add_model(... PARAMS seq=128 heads=8)), as a
// structural type: a model declaration takes them as a template argument (<ctformer/generator.hpp>),
//   CTFORMER_REGISTER_MODEL(my_encoder, P) { return ctf::nn::encoder<P.config(), P.layers>(x); }
// ctformer-gen parses and checks them at build time, before any model is compiled, so a bad one is
// one line naming it; the compile-time checks of the nn blocks stay as the second line of defence.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dsl/nn/config.hpp"
#include "shape/shape.hpp"

namespace ctformer::gen {

enum class mask_param { none, causal, key_padding };

struct params {
    int seq = 128;  // the longest sequence (queries and keys): inputs take any length up to it
    int d_model = 512;
    int heads = 8;
    int kv_heads = 0;  // 0: as many as heads (MHA); 1: MQA; a divisor of heads: GQA
    int d_ff = 2048;
    int layers = 1;
    bool norm_first = false;  // pre-LN, PyTorch's norm_first=True
    nn::activation activation = nn::activation::relu;
    mask_param mask = mask_param::none;

    // The sequence extent to declare inputs with: any length from 1 to seq, at run time.
    constexpr int length() const { return length_extent(seq); }

    constexpr nn::config config() const {
        return {.d_model = d_model,
                .heads = heads,
                .kv_heads = kv_heads,
                .d_ff = d_ff,
                .act = activation,
                .norm = norm_first ? nn::norm_position::pre : nn::norm_position::post};
    }
};

struct param_doc {
    std::string_view name, values, meaning;
};

inline constexpr std::array<param_doc, 9> param_docs{{
    {"seq", "1..65536", "longest sequence of queries and keys; any length up to it runs (default 128)"},
    {"d_model", "1..65536", "model width (default 512)"},
    {"heads", "1..d_model", "attention heads; must divide d_model (default 8)"},
    {"kv_heads", "0..heads", "key/value heads: 0 = heads (MHA), 1 (MQA), a divisor of heads (GQA); default 0"},
    {"d_ff", "1..1048576", "feed-forward width (default 2048)"},
    {"layers", "1..64", "encoder layers (default 1)"},
    {"norm_first", "true|false", "pre-LN instead of post-LN (default false)"},
    {"activation", "relu|gelu|gelu_tanh", "feed-forward activation (default relu)"},
    {"mask", "none|causal|key_padding", "attention mask; key_padding adds a bool input \"key_padding\" [B, L]"},
}};

// A parameter given wrongly: what() is the one line ctformer-gen prints.
struct param_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

namespace detail {
inline int parse_int(std::string_view name, std::string_view text, int low, int high) {
    int value = 0;
    const auto [end, problem] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (problem != std::errc() || end != text.data() + text.size() || value < low || value > high)
        throw param_error(std::string(name) + "=" + std::string(text) + ": expected a whole number from " +
                          std::to_string(low) + " to " + std::to_string(high));
    return value;
}

template <class T, std::size_t N>
T parse_choice(std::string_view name, std::string_view text, const std::array<std::pair<std::string_view, T>, N>& choices) {
    std::string known;
    for (const auto& [word, value] : choices) {
        if (word == text) return value;
        known += (known.empty() ? "" : ", ") + std::string(word);
    }
    throw param_error(std::string(name) + "=" + std::string(text) + ": expected one of " + known);
}

inline void set(params& p, std::string_view name, std::string_view text) {
    using nn::activation;
    if (name == "seq") p.seq = parse_int(name, text, 1, 65536);
    else if (name == "d_model") p.d_model = parse_int(name, text, 1, 65536);
    else if (name == "heads") p.heads = parse_int(name, text, 1, 65536);
    else if (name == "kv_heads") p.kv_heads = parse_int(name, text, 0, 65536);
    else if (name == "d_ff") p.d_ff = parse_int(name, text, 1, 1 << 20);
    else if (name == "layers") p.layers = parse_int(name, text, 1, 64);
    else if (name == "norm_first")
        p.norm_first = parse_choice(name, text, std::array{std::pair{std::string_view("false"), false},
                                                           std::pair{std::string_view("true"), true}});
    else if (name == "activation")
        p.activation = parse_choice(name, text, std::array{std::pair{std::string_view("relu"), activation::relu},
                                                           std::pair{std::string_view("gelu"), activation::gelu},
                                                           std::pair{std::string_view("gelu_tanh"), activation::gelu_tanh}});
    else if (name == "mask")
        p.mask = parse_choice(name, text, std::array{std::pair{std::string_view("none"), mask_param::none},
                                                     std::pair{std::string_view("causal"), mask_param::causal},
                                                     std::pair{std::string_view("key_padding"), mask_param::key_padding}});
    else {
        std::string known;
        for (const param_doc& d : param_docs) known += (known.empty() ? "" : ", ") + std::string(d.name);
        throw param_error("unknown parameter '" + std::string(name) + "' (known: " + known + ")");
    }
}
}  // namespace detail

// The rules between parameters, as nn::config_error states them at compile time.
inline void check(const params& p) {
    const auto fail = [](const std::string& why) { throw param_error(why); };
    if (p.d_model % p.heads != 0)
        fail("heads=" + std::to_string(p.heads) + " does not divide d_model=" + std::to_string(p.d_model));
    if (p.kv_heads != 0 && p.heads % p.kv_heads != 0)
        fail("kv_heads=" + std::to_string(p.kv_heads) + " does not divide heads=" + std::to_string(p.heads));
}

// "name=value" words, each name at most once, over the defaults; throws param_error.
inline params parse(const std::vector<std::string>& words) {
    params p;
    std::vector<std::string> seen;
    for (const std::string& word : words) {
        const std::size_t eq = word.find('=');
        if (eq == std::string::npos || eq == 0) throw param_error("'" + word + "': expected name=value");
        const std::string name = word.substr(0, eq);
        if (std::find(seen.begin(), seen.end(), name) != seen.end()) throw param_error(name + " is given twice");
        seen.push_back(name);
        detail::set(p, name, std::string_view(word).substr(eq + 1));
    }
    check(p);
    return p;
}

// The C++ initializer of p, for the generated parameter header.
inline std::string to_cpp(const params& p) {
    const auto act = activation_name(p.activation);
    const auto mask = p.mask == mask_param::none ? "none" : p.mask == mask_param::causal ? "causal" : "key_padding";
    return "ctformer::gen::params{.seq = " + std::to_string(p.seq) + ", .d_model = " + std::to_string(p.d_model) +
           ", .heads = " + std::to_string(p.heads) + ", .kv_heads = " + std::to_string(p.kv_heads) +
           ", .d_ff = " + std::to_string(p.d_ff) + ", .layers = " + std::to_string(p.layers) +
           ", .norm_first = " + (p.norm_first ? "true" : "false") + ", .activation = ctformer::nn::activation::" +
           act + ", .mask = ctformer::gen::mask_param::" + mask + "}";
}

}  // namespace ctformer::gen
