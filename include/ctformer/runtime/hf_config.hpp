// A Hugging Face config.json of an encoder of the BERT family (bert, roberta, xlm-roberta) or a
// decoder of the LLaMA family (llama, qwen2, mistral): the sizes a model is declared with, the fields
// HF lets a file leave out given HF's defaults (each model type's own), and everything ctformer
// cannot build refused as one config_error naming the file and the field:
//
//   const ctf::hf_config config = ctf::read_hf_config("bert-base-uncased/config.json");
//   std::puts(config.summary().c_str());  // bert: 12 layers, hidden 768, 12 heads, ...
//
// A file that cannot be opened is a file_error (mapped_file.hpp), as for every file ctformer reads.
#pragma once

#include <array>
#include <climits>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "../core/exceptions.hpp"
#include "../core/kinds.hpp"
#include "../core/text.hpp"
#include "mapped_file.hpp"

namespace ctformer {

struct hf_config {
    std::string model_type;
    int vocab_size = 0, hidden_size = 0, num_hidden_layers = 0, num_attention_heads = 0, intermediate_size = 0,
        max_position_embeddings = 0, type_vocab_size = 2, pad_token_id = 0;
    double norm_eps = 1e-12;  // layer_norm_eps (the BERT family), rms_norm_eps (the LLaMA family)
    activation hidden_act = activation::gelu;
    // The LLaMA family's: key/value heads (GQA), the rotary base, the LM head tied to the embeddings,
    // biases on q/k/v (Qwen2's), and the token ids that end a sequence (eos_token_id, one or a list).
    int num_key_value_heads = 0;
    double rope_theta = 10000.0;
    rope_scaling rope{};  // rope_scaling: none, linear, or llama3 (Llama 3.1 and 3.2)
    int sliding_window = 0;  // Mistral's, where it is shorter than the positions (0: none)
    bool tie_word_embeddings = false, qkv_bias = false;
    std::vector<int> eos_token_ids;
    bool decoder = false;  // of the LLaMA family (hf_model_types says which types are)

    // One line: "bert: 12 layers, hidden 768, 12 heads, intermediate 3072, vocab 30522, positions 512,
    // types 2, gelu, eps 1e-12", or "llama: 22 layers, hidden 2048, 32 heads (4 kv), intermediate 5632,
    // vocab 32000, positions 2048, silu, eps 1e-05, rope_theta 10000, lm_head".
    std::string summary() const {
        std::string heads = std::to_string(num_attention_heads) + " heads";
        if (decoder) heads += " (" + std::to_string(num_key_value_heads) + " kv)";
        std::string text = model_type + ": " + std::to_string(num_hidden_layers) + " layers, hidden " +
                           std::to_string(hidden_size) + ", " + heads + ", intermediate " + std::to_string(intermediate_size) +
                           ", vocab " + std::to_string(vocab_size) + ", positions " + std::to_string(max_position_embeddings) +
                           (decoder ? "" : ", types " + std::to_string(type_vocab_size)) + ", " +
                           activation_name(hidden_act) + ", eps " + exact_text(norm_eps);
        if (decoder)
            text += ", rope_theta " + exact_text(rope_theta) + rope_text() +
                    (sliding_window ? ", sliding_window " + std::to_string(sliding_window) : "") + (qkv_bias ? ", qkv biases" : "") +
                    (tie_word_embeddings ? ", head tied" : ", lm_head");
        return text;
    }

    // ", rope_scaling linear 4" or ", rope_scaling llama3 32 (1, 4, 8192)": the factor, then llama3's
    // low and high frequency factors and original positions; nothing without a scaling.
    std::string rope_text() const {
        if (rope.type == rope_type::none) return "";
        const std::string factor = exact_text(rope.factor);
        if (rope.type == rope_type::linear) return ", rope_scaling linear " + factor;
        return ", rope_scaling llama3 " + factor + " (" + exact_text(rope.low_freq_factor) + ", " +
               exact_text(rope.high_freq_factor) + ", " + std::to_string(rope.original_positions) + ")";
    }
};

namespace detail {
// The model types read: whether each is a decoder of the LLaMA family, and an encoder's pad_token_id
// when the file gives none (BertConfig's 0, RobertaConfig's and XLMRobertaConfig's 1).
struct hf_model_type {
    bool decoder;
    int default_pad;
};
inline constexpr std::array<std::pair<std::string_view, hf_model_type>, 6> hf_model_types{
    {{"bert", {false, 0}}, {"roberta", {false, 1}}, {"xlm-roberta", {false, 1}}, {"llama", {true, 0}},
     {"qwen2", {true, 0}}, {"mistral", {true, 0}}}};

// hidden_act as HF's ACT2FN names it: "gelu" is the exact erf form; gelu_new and gelu_pytorch_tanh
// are the tanh approximation; silu and swish are both x·σ(x). Others (gelu_fast, quick_gelu, ...) are
// refused, not guessed.
inline constexpr std::array<std::pair<std::string_view, activation>, 6> hf_activations{
    {{"gelu", activation::gelu}, {"gelu_new", activation::gelu_tanh}, {"gelu_pytorch_tanh", activation::gelu_tanh},
     {"relu", activation::relu}, {"silu", activation::silu}, {"swish", activation::silu}}};

// "(a, b, c)": the names a field takes, for its error.
template <class Table>
std::string hf_names(const Table& table) {
    std::string text;
    for (const auto& [name, value] : table) text += (text.empty() ? "(" : ", ") + std::string(name);
    return text + ")";
}

// Each field read with its checks; every problem a config_error naming the file and the field.
class hf_config_reader {
public:
    hf_config_reader(std::string file, nlohmann::json json, std::string prefix = "")
        : file_(std::move(file)), json_(std::move(json)), prefix_(std::move(prefix)) {}

    [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
        throw config_error(file_, prefix_ + field, problem);
    }

    // The object `field` holds, read as a file of its own: its errors name "field.inner".
    hf_config_reader within(const char* field) const {
        const nlohmann::json* value = find(field);
        if (!value || !value->is_object()) fail(field, "expected an object, found " + (value ? shown(*value) : "nothing"));
        return {file_, *value, prefix_ + field + "."};
    }

    // A JSON value as the file spells it, cut short: it goes into a message.
    static std::string shown(const nlohmann::json& value) {
        const std::string text = value.dump();
        return text.size() <= 40 ? text : text.substr(0, 37) + "...";
    }

    const nlohmann::json* find(const char* field) const {
        const auto found = json_.find(field);
        return found == json_.end() ? nullptr : &*found;
    }

    // An integer field within int; `fallback` where the file leaves it out (none: it is required).
    int integer(const char* field, std::optional<int> fallback = std::nullopt) const {
        const nlohmann::json* value = find(field);
        if (!value) {
            if (!fallback) fail(field, "is missing (a required field)");
            return *fallback;
        }
        if (!value->is_number_integer()) fail(field, "expected an integer, found " + shown(*value));
        if (value->is_number_unsigned() ? value->get<unsigned long long>() > INT_MAX : value->get<long long>() < INT_MIN)
            fail(field, shown(*value) + " is out of range");
        return value->get<int>();
    }

    // A width, a count: at least 1.
    int positive(const char* field, std::optional<int> fallback = std::nullopt) const {
        const int n = integer(field, fallback);
        if (n < 1) fail(field, "must be positive, found " + std::to_string(n));
        return n;
    }

    std::optional<std::string> text(const char* field) const {
        const nlohmann::json* value = find(field);
        if (!value) return std::nullopt;
        if (!value->is_string()) fail(field, "expected a string, found " + shown(*value));
        return value->get<std::string>();
    }

    // A string field's value looked up in `table`, refused with the names it takes.
    template <class Table>
    auto one_of(const char* field, const std::string& name, const Table& table) const {
        for (const auto& [known, value] : table)
            if (known == name) return value;
        fail(field, shown(nlohmann::json(name)) + " is not supported " + hf_names(table));
    }

    // A number field; `fallback` where the file leaves it out (none: it is required).
    double number(const char* field, std::optional<double> fallback = std::nullopt) const {
        const nlohmann::json* value = find(field);
        if (!value) {
            if (!fallback) fail(field, "is missing (a required field)");
            return *fallback;
        }
        if (!value->is_number()) fail(field, "expected a number, found " + shown(*value));
        return value->get<double>();
    }

    // A number that must be positive (an epsilon, a rotary base).
    double positive_number(const char* field, std::optional<double> fallback = std::nullopt) const {
        const double x = number(field, fallback);
        if (!(x > 0)) fail(field, "must be positive, found " + shown(*find(field)));
        return x;
    }

    bool flag(const char* field, bool fallback) const {
        const nlohmann::json* value = find(field);
        if (!value) return fallback;
        if (!value->is_boolean()) fail(field, "expected true or false, found " + shown(*value));
        return value->get<bool>();
    }

    // Whether the file gives the field a value other than null.
    bool given(const char* field) const {
        const nlohmann::json* value = find(field);
        return value && !value->is_null();
    }

    // Token ids: one, a list of them, or none (absent or null).
    std::vector<int> ids(const char* field) const {
        const nlohmann::json* value = find(field);
        if (!value || value->is_null()) return {};
        if (!value->is_array()) return {integer(field)};
        std::vector<int> all;
        for (const nlohmann::json& id : *value) {
            if (!id.is_number_integer()) fail(field, "expected token ids, found " + shown(*value));
            all.push_back(id.get<int>());
        }
        return all;
    }

private:
    std::string file_;
    nlohmann::json json_;
    std::string prefix_;  // "outer." for an object within the file
};
}  // namespace detail

namespace detail {
// BertConfig's fields besides the sizes: token types, the pad token, LayerNorm's epsilon, absolute positions.
inline void read_bert_fields(const hf_config_reader& read, hf_config& c, int default_pad) {
    c.type_vocab_size = read.positive("type_vocab_size", 2);
    c.pad_token_id = read.integer("pad_token_id", default_pad);
    c.norm_eps = read.positive_number("layer_norm_eps", 1e-12);
    c.hidden_act = read.one_of("hidden_act", read.text("hidden_act").value_or("gelu"), hf_activations);
    if (c.pad_token_id < 0 || c.pad_token_id >= c.vocab_size)
        read.fail("pad_token_id", std::to_string(c.pad_token_id) + " is outside the vocabulary (0 to " +
                                      std::to_string(c.vocab_size - 1) + ")");
    // relative_key and relative_key_query add learned distance embeddings to the scores: not built here.
    if (const auto positions = read.text("position_embedding_type"); positions && *positions != "absolute")
        read.fail("position_embedding_type", hf_config_reader::shown(*positions) + " is not supported (absolute)");
}

// rope_scaling's rope_type (or its older spelling, type) and numbers, checked as Hugging Face's
// rope_config_validation checks them: "default" is none; linear and llama3 are built; dynamic, yarn,
// longrope and the others are refused.
inline rope_scaling read_rope_scaling(const hf_config_reader& read) {
    static constexpr std::array<std::pair<std::string_view, rope_type>, 3> types{
        {{"default", rope_type::none}, {"linear", rope_type::linear}, {"llama3", rope_type::llama3}}};
    const char* type_field = read.find("rope_type") ? "rope_type" : "type";
    const std::optional<std::string> type = read.text(type_field);
    if (!type) read.fail("rope_type", "is missing; supported: " + hf_names(types));
    rope_scaling r{.type = read.one_of(type_field, *type, types)};
    if (r.type == rope_type::none) return r;
    r.factor = read.number("factor");
    if (!(r.factor >= 1)) read.fail("factor", "must be at least 1, found " + exact_text(r.factor));
    if (r.type == rope_type::llama3) {
        r.low_freq_factor = read.positive_number("low_freq_factor");
        r.high_freq_factor = read.positive_number("high_freq_factor");
        r.original_positions = read.positive("original_max_position_embeddings");
        if (!(r.low_freq_factor < r.high_freq_factor))
            read.fail("low_freq_factor", exact_text(r.low_freq_factor) + " must be less than high_freq_factor " +
                                             exact_text(r.high_freq_factor));
    }
    return r;
}

// LlamaConfig's, Qwen2Config's and MistralConfig's fields besides the sizes. Their defaults agree
// (rms_norm_eps 1e-6, rope_theta 10000, silu, untied) but for the KV heads (LLaMA's: as many as
// the heads; Qwen2's 32; Mistral's 8) and Mistral's sliding window (4096 where the file gives none;
// null: none; kept only where it is shorter than the positions, a banded causal mask). What
// ctformer does not build is refused: rotary scalings other than linear and Llama 3.1's llama3
// (YaRN, dynamic NTK), biases on o_proj or the MLP, a head_dim other than hidden_size / heads, and
// Qwen2's sliding window (on the layers past max_window_layers only: the layers are one body).
inline void read_llama_fields(const hf_config_reader& read, hf_config& c) {
    const int default_kv_heads = c.model_type == "qwen2" ? 32 : c.model_type == "mistral" ? 8 : c.num_attention_heads;
    c.num_key_value_heads = read.positive("num_key_value_heads", default_kv_heads);
    c.norm_eps = read.positive_number("rms_norm_eps", 1e-6);
    c.rope_theta = read.positive_number("rope_theta", 10000.0);
    c.hidden_act = read.one_of("hidden_act", read.text("hidden_act").value_or("silu"), hf_activations);
    c.tie_word_embeddings = read.flag("tie_word_embeddings", false);
    c.qkv_bias = c.model_type == "qwen2";
    c.eos_token_ids = read.ids("eos_token_id");
    if (c.num_attention_heads % c.num_key_value_heads != 0)
        read.fail("num_key_value_heads", std::to_string(c.num_key_value_heads) + " does not divide num_attention_heads " +
                                             std::to_string(c.num_attention_heads));
    if (read.given("rope_scaling")) c.rope = read_rope_scaling(read.within("rope_scaling"));
    for (const char* bias : {"attention_bias", "mlp_bias"})
        if (read.flag(bias, false)) read.fail(bias, "true is not supported (LLaMA's linear layers have no biases)");
    if (read.given("head_dim") && read.integer("head_dim") * c.num_attention_heads != c.hidden_size)
        read.fail("head_dim", std::to_string(read.integer("head_dim")) + " is not hidden_size / num_attention_heads (" +
                                  std::to_string(c.hidden_size / c.num_attention_heads) + ")");
    const bool mistral = c.model_type == "mistral";
    if ((mistral || read.flag("use_sliding_window", false)) && (read.given("sliding_window") || (mistral && !read.find("sliding_window")))) {
        const int window = read.positive("sliding_window", 4096);
        if (window < c.max_position_embeddings && !mistral)
            read.fail("sliding_window", std::to_string(window) + " is shorter than max_position_embeddings " +
                                            std::to_string(c.max_position_embeddings) +
                                            ": Qwen2's window on some layers only is not supported");
        if (window < c.max_position_embeddings) c.sliding_window = window;
    }
}
}  // namespace detail

// The config.json at `file`, checked: a supported model_type, the sizes present, positive and of
// JSON integers, heads dividing hidden_size, a known hidden_act, and the family's own fields.
inline hf_config read_hf_config(const std::filesystem::path& file) {
    const mapped_file bytes(file);
    const auto* text = reinterpret_cast<const char*>(bytes.bytes().data());
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(text, text + bytes.bytes().size());
    } catch (const nlohmann::json::exception& e) {
        throw config_error(bytes.name(), "", std::string("is not valid JSON: ") + e.what());
    }
    if (!json.is_object()) throw config_error(bytes.name(), "", "is not a JSON object");
    const detail::hf_config_reader read(bytes.name(), std::move(json));

    hf_config c;
    const std::optional<std::string> type = read.text("model_type");
    if (!type) read.fail("model_type", "is missing; supported: " + detail::hf_names(detail::hf_model_types));
    c.model_type = *type;
    const detail::hf_model_type kind = read.one_of("model_type", c.model_type, detail::hf_model_types);
    c.decoder = kind.decoder;
    c.vocab_size = read.positive("vocab_size");
    c.hidden_size = read.positive("hidden_size");
    c.num_hidden_layers = read.positive("num_hidden_layers");
    c.num_attention_heads = read.positive("num_attention_heads");
    c.intermediate_size = read.positive("intermediate_size");
    c.max_position_embeddings = read.positive("max_position_embeddings");
    if (c.hidden_size % c.num_attention_heads != 0)
        read.fail("num_attention_heads", std::to_string(c.num_attention_heads) + " does not divide hidden_size " +
                                             std::to_string(c.hidden_size));
    if (c.decoder) detail::read_llama_fields(read, c);
    else detail::read_bert_fields(read, c, kind.default_pad);
    return c;
}

}  // namespace ctformer
