// A Hugging Face checkpoint folder's weights by the names the files give them: dir/model.safetensors,
// or else the shards that dir/model.safetensors.index.json lists, its "weight_map" naming each
// tensor's shard (a file in dir):
//
//   {"metadata": {"total_size": 438000000}, "weight_map": {"embeddings.word_embeddings.weight":
//    "model-00001-of-00002.safetensors", ...}}
//
// checkpoint(dir) reads each file once (safetensors_file) and holds the map to the shards both ways:
// a tensor listed for a shard that lacks it, or a shard holding a tensor not listed for it, is a
// file_error naming the shard and the tensor, since a map and shards that disagree were not saved
// together. It is a weight_source: bind() widens each F16 or BF16 tensor to fp32 only as it binds
// it, so a BF16 checkpoint is never held in fp32 whole. Integer buffers (position_ids) are left out.
// Names are kept as the files spell them, less a prefix if asked (a model with a head's, "bert.");
// load_checkpoint(dir) is every tensor at once, as fp32.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "mapped_file.hpp"
#include "safetensors.hpp"
#include "weight_source.hpp"

namespace ctformer {

inline constexpr const char* hf_weights_file = "model.safetensors";
inline constexpr const char* hf_index_file = "model.safetensors.index.json";

namespace detail {
// The index's weight_map, checked: JSON, an object of strings, each shard a plain file name (a
// name reaching out of the folder, "../x", is refused: the index says where to read).
inline std::map<std::string, std::string> hf_weight_map(const std::filesystem::path& index) {
    const mapped_file bytes(index);
    const auto* text = reinterpret_cast<const char*>(bytes.bytes().data());
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(text, text + bytes.bytes().size());
    } catch (const nlohmann::json::exception& e) {
        throw file_error(bytes.name(), "", std::string("is not valid JSON: ") + e.what());
    }
    if (!json.is_object() || !json.contains("weight_map") || !json["weight_map"].is_object())
        throw file_error(bytes.name(), "", "needs a \"weight_map\" object: tensor name -> shard file");
    std::map<std::string, std::string> shard_of;
    for (const auto& [tensor, shard] : json["weight_map"].items()) {
        if (!shard.is_string()) throw file_error(bytes.name(), tensor, "its shard is not a file name: " + shard.dump());
        const std::string name = shard.get<std::string>();
        if (name.empty() || name == "." || name == ".." || std::filesystem::path(name).filename() != name)
            throw file_error(bytes.name(), tensor, "its shard \"" + name + "\" is not a file name in the checkpoint's folder");
        shard_of.emplace(tensor, name);
    }
    if (shard_of.empty()) throw file_error(bytes.name(), "", "the weight_map lists no tensors");
    return shard_of;
}

inline bool file_exists(const std::filesystem::path& path) {
    std::error_code ignored;
    return std::filesystem::exists(path, ignored);
}
}  // namespace detail

// A tensor's name less `prefix` ("bert.embeddings..." → "embeddings..."): a checkpoint of a model with
// a head names its base model's tensors so; the head's own ("classifier.weight") keep theirs.
inline std::string base_name(const std::string& name, std::string_view prefix) {
    return !prefix.empty() && name.starts_with(prefix) ? name.substr(prefix.size()) : name;
}

class checkpoint final : public weight_source {
public:
    explicit checkpoint(const std::filesystem::path& dir, std::string_view prefix = "") {
        const std::filesystem::path single = dir / hf_weights_file, index = dir / hf_index_file;
        if (detail::file_exists(single)) {
            add(safetensors_file(single), prefix);
            return;
        }
        if (!detail::file_exists(index))
            throw file_error(dir.string(), "", std::string("holds neither ") + hf_weights_file + " nor " + hf_index_file);
        const std::map<std::string, std::string> shard_of = detail::hf_weight_map(index);
        std::map<std::string, std::set<std::string>> listed;  // shard -> its tensors, each shard once
        for (const auto& [tensor, shard] : shard_of) listed[shard].insert(tensor);
        for (const auto& [shard, tensors] : listed) {
            const std::filesystem::path path = dir / shard;
            if (!detail::file_exists(path))
                throw file_error(path.string(), "", "is missing: " + index.string() + " lists " +
                                                        std::to_string(tensors.size()) + " tensor(s) in it");
            safetensors_file file(path);
            for (const std::string& tensor : tensors)
                if (!file.entries().contains(tensor))
                    throw file_error(file.name(), tensor, "not in the shard, though " + index.string() + " lists it there");
            for (const auto& [tensor, entry] : file.entries()) {
                if (tensors.contains(tensor)) continue;
                const auto elsewhere = shard_of.find(tensor);
                throw file_error(file.name(), tensor, "in the shard, though " + index.string() + " lists it " +
                                                          (elsewhere == shard_of.end() ? std::string("for no shard")
                                                                                       : "in " + elsewhere->second));
            }
            add(std::move(file), prefix);
        }
    }

    std::map<std::string, dims_t> shapes() const override {
        std::map<std::string, dims_t> all;
        for (const auto& [name, at] : places_) all.emplace(name, files_[at.file].entries().find(at.stored)->second.shape);
        return all;
    }
    host_tensor<float> tensor(const std::string& name) const override {
        const place& at = places_.at(name);
        return files_[at.file].tensor(at.stored);
    }
    // Every tensor at once.
    tensor_map tensors() const {
        tensor_map all;
        for (const auto& [name, at] : places_) all.emplace(name, tensor(name));
        return all;
    }

private:
    void add(safetensors_file file, std::string_view prefix) {
        for (const auto& [stored, entry] : file.entries()) {
            if (safetensors_file::is_integer(entry.dtype)) continue;
            const std::string name = base_name(stored, prefix);
            if (const auto [at, added] = places_.try_emplace(name, place{files_.size(), stored}); !added)
                throw conflicting_tensor(name, at->second.stored, stored);
        }
        files_.push_back(std::move(file));
    }

    struct place {
        std::size_t file;    // in files_
        std::string stored;  // its name in the file
    };
    std::vector<safetensors_file> files_;
    std::map<std::string, place> places_;  // by the name it is bound by
};

// Every floating-point tensor of the checkpoint in `dir`, fp32, by the files' names.
inline tensor_map load_checkpoint(const std::filesystem::path& dir) { return checkpoint(dir).tensors(); }

// `tensors` by a base model's names: each "{prefix}name" (a checkpoint of a model with a head,
// BertForSequenceClassification's "bert.embeddings...") renamed "name"; the head's own tensors
// ("classifier.weight", "cls.predictions...") and names without the prefix are kept as they are. A
// name given both ways is a conflicting_tensor.
inline tensor_map without_prefix(tensor_map tensors, std::string_view prefix) {
    tensor_map base;
    for (auto& [name, tensor] : tensors) {
        const std::string renamed = base_name(name, prefix);
        if (!base.try_emplace(renamed, std::move(tensor)).second)
            throw conflicting_tensor(renamed, renamed, std::string(prefix) + renamed);
    }
    return base;
}

}  // namespace ctformer
