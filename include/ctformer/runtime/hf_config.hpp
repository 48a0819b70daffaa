// A Hugging Face config.json of an encoder (BERT, RoBERTa, XLM-RoBERTa): the sizes a model is
// declared with, the fields HF lets a file leave out given HF's defaults, and everything ctformer
// cannot build refused as one config_error naming the file and the field:
//
//   const ctf::hf_config config = ctf::read_hf_config("bert-base-uncased/config.json");
//   std::puts(config.summary().c_str());  // bert: 12 layers, hidden 768, 12 heads, ...
//
// A file that cannot be opened is a file_error (mapped_file.hpp), as for every file ctformer reads.
#pragma once

#include <array>
#include <charconv>
#include <climits>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "../core/exceptions.hpp"
#include "../core/kinds.hpp"
#include "mapped_file.hpp"

namespace ctformer {

struct hf_config {
    std::string model_type;
    int vocab_size = 0, hidden_size = 0, num_hidden_layers = 0, num_attention_heads = 0, intermediate_size = 0,
        max_position_embeddings = 0, type_vocab_size = 2, pad_token_id = 0;
    double layer_norm_eps = 1e-12;
    activation hidden_act = activation::gelu;

    // One line: "bert: 12 layers, hidden 768, 12 heads, intermediate 3072, vocab 30522, positions 512,
    // types 2, gelu, eps 1e-12".
    std::string summary() const {
        char eps[32];
        char* end = std::to_chars(eps, eps + sizeof eps, layer_norm_eps).ptr;  // shortest exact
        return model_type + ": " + std::to_string(num_hidden_layers) + " layers, hidden " + std::to_string(hidden_size) +
               ", " + std::to_string(num_attention_heads) + " heads, intermediate " + std::to_string(intermediate_size) +
               ", vocab " + std::to_string(vocab_size) + ", positions " + std::to_string(max_position_embeddings) +
               ", types " + std::to_string(type_vocab_size) + ", " + activation_name(hidden_act) + ", eps " +
               std::string(eps, end);
    }
};

namespace detail {
// The model types read, each with its pad_token_id when the file gives none (BertConfig's 0,
// RobertaConfig's and XLMRobertaConfig's 1).
inline constexpr std::array<std::pair<std::string_view, int>, 3> hf_model_types{
    {{"bert", 0}, {"roberta", 1}, {"xlm-roberta", 1}}};

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
    hf_config_reader(std::string file, nlohmann::json json) : file_(std::move(file)), json_(std::move(json)) {}

    [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
        throw config_error(file_, field, problem);
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

    double number(const char* field, double fallback) const {
        const nlohmann::json* value = find(field);
        if (!value) return fallback;
        if (!value->is_number()) fail(field, "expected a number, found " + shown(*value));
        return value->get<double>();
    }

private:
    std::string file_;
    nlohmann::json json_;
};
}  // namespace detail

// The config.json at `file`, checked: a supported model_type, the sizes present, positive and of
// JSON integers, heads dividing hidden_size, a known hidden_act, absolute positions.
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
    const int default_pad = read.one_of("model_type", c.model_type, detail::hf_model_types);
    c.vocab_size = read.positive("vocab_size");
    c.hidden_size = read.positive("hidden_size");
    c.num_hidden_layers = read.positive("num_hidden_layers");
    c.num_attention_heads = read.positive("num_attention_heads");
    c.intermediate_size = read.positive("intermediate_size");
    c.max_position_embeddings = read.positive("max_position_embeddings");
    c.type_vocab_size = read.positive("type_vocab_size", 2);
    c.pad_token_id = read.integer("pad_token_id", default_pad);
    c.layer_norm_eps = read.number("layer_norm_eps", 1e-12);
    c.hidden_act = read.one_of("hidden_act", read.text("hidden_act").value_or("gelu"), detail::hf_activations);

    if (c.hidden_size % c.num_attention_heads != 0)
        read.fail("num_attention_heads", std::to_string(c.num_attention_heads) + " does not divide hidden_size " +
                                             std::to_string(c.hidden_size));
    if (c.pad_token_id < 0 || c.pad_token_id >= c.vocab_size)
        read.fail("pad_token_id", std::to_string(c.pad_token_id) + " is outside the vocabulary (0 to " +
                                      std::to_string(c.vocab_size - 1) + ")");
    if (!(c.layer_norm_eps > 0)) read.fail("layer_norm_eps", "must be positive, found " + std::to_string(c.layer_norm_eps));
    // relative_key and relative_key_query add learned distance embeddings to the scores: not built here.
    if (const auto positions = read.text("position_embedding_type"); positions && *positions != "absolute")
        read.fail("position_embedding_type", detail::hf_config_reader::shown(*positions) + " is not supported (absolute)");
    return c;
}

}  // namespace ctformer
