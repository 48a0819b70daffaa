// ctformer-run --model DIR (model_dir.hpp). The encoder runs the ids; the pooler or the sentence
// embedding, when asked for, runs on its hidden state. With an attention mask of right padding, a
// pooled result comes from a mixed-length run (the padding costs nothing and is never read); the
// hidden state is computed for every row, the padding's too, as BertModel returns it.
#include "model_dir.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <ctformer/runtime/checkpoint.hpp>
#include <ctformer/runtime/hf_config.hpp>
#include <ctformer/runtime/mixed_lengths.hpp>
#include <ctformer/runtime/npy.hpp>

#include "configurations.hpp"
#include "memory.hpp"
#include "outputs.hpp"

namespace run {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view ids_name = "input_ids", mask_name = "attention_mask", types_name = "token_type_ids";
// nn::bert_pooler's weights: a BertModel checkpoint holds them whatever this run returns.
const std::set<std::string, std::less<>> pooler_weights{"pooler.dense.weight", "pooler.dense.bias"};

// The sizes a geometry has, in config.json's terms (hf_config::summary words them).
ctf::hf_config as_hf_config(const ctf::nn::bert_config& g) {
    ctf::hf_config c;
    c.model_type = g.family == ctf::nn::bert_family::bert ? "bert" : "roberta";
    c.vocab_size = g.vocabulary;
    c.hidden_size = g.d_model;
    c.num_hidden_layers = g.layers;
    c.num_attention_heads = g.heads;
    c.intermediate_size = g.d_ff;
    c.max_position_embeddings = g.positions;
    c.type_vocab_size = g.token_types;
    c.norm_eps = g.eps;
    c.hidden_act = g.act;
    return c;
}

bool matches(const ctf::nn::bert_config& g, const ctf::hf_config& c) {
    const ctf::hf_config want = as_hf_config(g);
    return c.model_type == want.model_type && c.vocab_size == want.vocab_size && c.hidden_size == want.hidden_size &&
           c.num_hidden_layers == want.num_hidden_layers && c.num_attention_heads == want.num_attention_heads &&
           c.intermediate_size == want.intermediate_size && c.max_position_embeddings == want.max_position_embeddings &&
           c.type_vocab_size == want.type_vocab_size && c.norm_eps == want.norm_eps &&
           c.hidden_act == want.hidden_act;
}

// The model's name for CMake: the folder's name as an identifier ("all-MiniLM-L6-v2" -> all_minilm_l6_v2).
std::string target_name(const fs::path& dir) {
    std::string name;
    for (const char ch : fs::absolute(dir).lexically_normal().filename().string())
        name += std::isalnum(static_cast<unsigned char>(ch)) ? static_cast<char>(std::tolower(static_cast<unsigned char>(ch))) : '_';
    if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) name = "model_" + name;
    return name;
}

// The geometry config.json gives, or a config_error saying which line builds it.
const bert_geometry& matching_geometry(const fs::path& dir, const ctf::hf_config& c) {
    for (const bert_geometry& g : bert_geometries)
        if (matches(g.config, c)) return g;
    std::string built;
    for (const bert_geometry& g : bert_geometries) built += (built.empty() ? "" : ", ") + std::string(g.name);
    const fs::path file = fs::absolute(dir / "config.json").lexically_normal();
    throw ctf::config_error((dir / "config.json").string(), "",
                            c.summary() + " is not one of ctformer-run's models (" + built + "); build it with " +
                                "ctformer_add_model(" + target_name(dir) + " HF_CONFIG " + file.string() + ")");
}

// The ids, the mask and the token types, checked against each other and the model; the mask (all
// ones when not given) as a float input, the rest as token ids.
struct token_inputs {
    ctf::id_map ids;
    ctf::tensor_map inputs;
    bool masked = false;  // a mask was given
};

ctf::id_tensor read_ids(const std::string& file, const bert_geometry& g) {
    ctf::id_tensor ids = ctf::read_npy_ids(file);
    const ctf::dims_t& d = ids.dims;
    const std::size_t longest = static_cast<std::size_t>(g.config.positions);
    if (d.size() != 2 || d[0] < 1 || d[1] < 1 || d[1] > longest)
        throw ctf::file_error(file, std::string(ids_name), "shape " + ctf::to_string(d) +
                                                                ", expected [batch, length] with length 1 to " +
                                                                std::to_string(longest) + " (model " + std::string(g.name) + ")");
    return ids;
}

// A tensor given beside the ids must have their shape.
template <class T>
T beside_ids(T t, const std::string& file, std::string_view name, const ctf::dims_t& ids) {
    if (t.dims != ids)
        throw ctf::file_error(file, std::string(name), "shape " + ctf::to_string(t.dims) + ", expected " +
                                                           ctf::to_string(ids) + " (input_ids' shape)");
    return t;
}

token_inputs read_inputs(const model_request& r, const bert_geometry& g) {
    token_inputs in;
    ctf::id_tensor ids = read_ids(r.input_ids, g);
    const ctf::dims_t dims = ids.dims;
    in.ids.emplace(ids_name, std::move(ids));
    in.ids.emplace(types_name, r.token_type_ids.empty()
                                   ? ctf::id_tensor(dims)  // token type 0 everywhere, as BertModel without them
                                   : beside_ids(ctf::read_npy_ids(r.token_type_ids), r.token_type_ids, types_name, dims));
    in.masked = !r.attention_mask.empty();
    ctf::host_tensor<float> mask(dims, std::vector<float>(ctf::element_count(dims), 1.0f));
    if (in.masked) mask = beside_ids(ctf::read_npy_mask(r.attention_mask), r.attention_mask, mask_name, dims);
    in.inputs.emplace(mask_name, std::move(mask));
    return in;
}

// The file an input came from, for an error the run finds in it.
std::string file_of(const model_request& r, std::string_view tensor) {
    return tensor == types_name ? r.token_type_ids : tensor == mask_name ? r.attention_mask : r.input_ids;
}

// The checkpoint's weights by BertModel's names: a model with a head keeps its base under "bert."
// (or "roberta.").
ctf::tensor_map checkpoint_weights(const fs::path& dir) {
    return ctf::without_prefix(ctf::without_prefix(ctf::load_checkpoint(dir), "bert."), "roberta.");
}

// The bytes of the checkpoint's files, for the memory check.
std::size_t checkpoint_bytes(const fs::path& dir) {
    std::size_t bytes = 0;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(dir, error))
        if (entry.path().extension() == ".safetensors" && entry.is_regular_file(error)) bytes += entry.file_size(error);
    return bytes;
}

std::string mebibytes(std::size_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }

void refuse_what_cannot_fit(const ctf::any_model& encoder, const model_request& r, const ctf::extent_values& at) {
    const std::size_t weights = 3 * checkpoint_bytes(r.dir), run = encoder.run_bytes(at, r.threads);
    const std::size_t available = available_memory();
    if (run + weights > available)
        throw ctf::file_error(r.input_ids, "", "a run of these ids needs about " + mebibytes(run + weights) + " (" +
                                                   mebibytes(run) + " for the run, " + mebibytes(weights) +
                                                   " for the weights), and " + mebibytes(available) + " are available");
}

// A weight the checkpoint lacks, named with the checkpoint's folder.
ctf::file_error in_checkpoint(const model_request& r, const ctf::error& e) {
    const std::string what = e.what();
    return ctf::file_error(r.dir, "", what.substr(what.find(' ') + 1));
}

// The pooler's weights, taken out of the checkpoint's (moved, not copied): the encoder is bound to
// the rest.
ctf::tensor_map take_pooler_weights(ctf::tensor_map& weights) {
    ctf::tensor_map pooler;
    for (const std::string& name : pooler_weights)
        if (auto found = weights.extract(name)) pooler.insert(std::move(found));
    return pooler;
}

// The encoder bound to the checkpoint (its pooler taken out). Strictly, a tensor it does not read
// (a pretraining checkpoint's cls.predictions.*) is named and refused; --non-strict binds the rest
// and returns how many it ignored. Only a strict bind that refuses returns before packing anything.
std::size_t bind_encoder(ctf::any_model& encoder, const ctf::tensor_map& weights, const model_request& r) {
    std::vector<std::string> unread;
    try {
        encoder.bind(weights, {.strict = true, .precision = r.precision});
        return 0;
    } catch (const ctf::missing_tensor& e) {
        throw in_checkpoint(r, e);
    } catch (const ctf::unexpected_tensor& e) {
        unread = e.names();
    }
    if (!r.non_strict)
        throw ctf::file_error(r.dir, "", std::to_string(unread.size()) + " tensor(s) the model does not read: " +
                                             ctf::unexpected_tensor::joined(unread) + " (run with --non-strict to allow it)");
    encoder.bind(weights, {.strict = false, .precision = r.precision});
    return unread.size();
}

// The pooled result's graph bound (the pooler's weights; sentence embeddings have none), or null for
// the hidden state.
std::unique_ptr<ctf::any_model> pooled_head(const bert_geometry& g, const model_request& r, const ctf::tensor_map& pooler) {
    if (r.result == model_result::hidden_state) return nullptr;
    auto head = r.result == model_result::pooler ? g.pooler() : g.sentence_embedding();
    try {
        head->bind(r.result == model_result::pooler ? pooler : ctf::tensor_map{}, {});
    } catch (const ctf::missing_tensor& e) {  // a checkpoint without a pooler (BertForMaskedLM's)
        throw in_checkpoint(r, e);
    }
    return head;
}

// The batch's lengths, for a pooled result of a right-padded mask; none where every row is full, the
// mask pads elsewhere, or the whole hidden state is returned.
std::vector<std::size_t> mixed_lengths(const token_inputs& in, const model_request& r) {
    if (!in.masked || r.result == model_result::hidden_state) return {};
    const ctf::host_tensor<float>& mask = in.inputs.at(std::string(mask_name));
    const auto lengths = ctf::runtime::lengths_of_mask(mask);
    if (!lengths || std::all_of(lengths->begin(), lengths->end(), [&](std::size_t l) { return l == mask.dims[1]; })) return {};
    return *lengths;
}

const char* result_name(model_result result) {
    switch (result) {
        case model_result::pooler: return "pooler_output";
        case model_result::sentence_embedding: return "sentence_embedding";
        default: return "last_hidden_state";
    }
}

}  // namespace

int run_model_dir(const model_request& r) {
    const ctf::hf_config config = ctf::read_hf_config(fs::path(r.dir) / "config.json");
    const bert_geometry& g = matching_geometry(r.dir, config);
    const auto encoder = g.encoder();
    if (r.input_ids.empty() && r.explain) {
        std::cout << encoder->explain(1);
        return 0;
    }
    output_files outputs({r.output}, {r.input_ids, r.attention_mask, r.token_type_ids});
    const token_inputs in = read_inputs(r, g);
    const ctf::dims_t& dims = in.ids.at(std::string(ids_name)).dims;
    const ctf::extent_values at{dims[0], {dims[1]}};
    refuse_what_cannot_fit(*encoder, r, at);

    ctf::tensor_map weights = checkpoint_weights(r.dir);
    const ctf::tensor_map pooler = take_pooler_weights(weights);
    const std::size_t ignored = bind_encoder(*encoder, weights, r);
    const auto head = pooled_head(g, r, pooler);

    std::vector<ctf::runtime::step_record> records;
    ctf::runtime::run_options options{.threads = r.threads, .profile = r.profile ? &records : nullptr,
                                      .lengths = mixed_lengths(in, r)};
    ctf::host_tensor<float> hidden, pooled;
    const auto start = std::chrono::steady_clock::now();
    try {
        encoder->run(in.inputs, in.ids, hidden, options);
    } catch (const ctf::token_id_out_of_range& e) {  // named with its file, at [b, l] of the file's batch
        const std::string what = e.what();
        throw ctf::file_error(file_of(r, e.tensor()), "", what.substr(what.find(' ') + 1));
    }
    if (head) {
        ctf::tensor_map head_inputs{{std::string(mask_name), in.inputs.at(std::string(mask_name))}};
        head_inputs.emplace(std::string(hidden_state_name), std::move(hidden));
        head->run(head_inputs, pooled, {.threads = r.threads});
    }
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;

    const ctf::host_tensor<float>& y = head ? pooled : hidden;
    ctf::write_npy(outputs.path_for(r.output), y);
    outputs.commit();
    if (r.explain) std::cout << encoder->explain(at);
    if (r.profile) std::cout << encoder->profile(records, at, r.threads);
    if (ignored) std::cout << "--non-strict: ignored " << ignored << " tensor(s) of the checkpoint the model does not read\n";
    std::cout << g.name << ": " << r.input_ids << " " << ctf::to_string(dims) << " -> " << result_name(r.result) << " "
              << ctf::to_string(y.dims) << " " << r.output << (options.lengths.empty() ? "" : " (by the mask's lengths)")
              << " in " << took.count() << " ms\n";
    return 0;
}

void print_model_geometries(std::ostream& out) {
    for (const bert_geometry& g : bert_geometries)
        out << "  " << g.name << std::string(18 - g.name.size(), ' ') << g.about << "\n"
            << std::string(20, ' ') << as_hf_config(g.config).summary() << "\n";
}

}  // namespace run
