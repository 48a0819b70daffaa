// Weights by PyTorch's state_dict names.
//
// Loading splits every nn.MultiheadAttention in_proj_weight / in_proj_bias in three, as ctformer
// names Q, K and V apart (pytorch_names.hpp).
// Other names (nn.TransformerEncoderLayer's self_attn.*, linear1.*, norm1.*, nn.TransformerEncoder's
// layers.{i}.*) are ctformer's names already. A module with names of its own (the seeds' W_q.weight,
// ...) is read through a map from ctformer names to the file's:
//
//   auto weights = ctf::load_state_dict("model.safetensors", {{"q_proj_weight", "W_q.weight"}, ...});
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "pytorch_names.hpp"
#include "safetensors.hpp"

namespace ctformer {

// ctformer name -> the name the file uses.
using name_map = std::map<std::string, std::string>;

// Each {prefix}in_proj_weight / in_proj_bias replaced by its three row blocks {prefix}q/k/v_proj_*;
// a block given separately too is a conflicting_tensor.
inline tensor_map split_in_projections(tensor_map tensors) {
    tensor_map split;
    for (auto& [name, t] : tensors) {
        const std::size_t at = name.rfind("in_proj_");
        if (at == std::string::npos || (name.substr(at) != "in_proj_weight" && name.substr(at) != "in_proj_bias")) {
            split.insert_or_assign(name, std::move(t));
            continue;
        }
        if (t.dims.empty() || t.dims[0] % 3 != 0)
            throw shape_mismatch(name, "[3·d, ...] (Q, K and V stacked)", to_string(t.dims));
        dims_t part_dims = t.dims;
        part_dims[0] /= 3;
        const std::size_t part = t.size() / 3;
        const std::string prefix = name.substr(0, at), kind = name.substr(at + 8);  // "weight" or "bias"
        for (std::size_t p = 0; p < 3; ++p) {
            const std::string part_name = prefix + in_projection_parts[p] + "_proj_" + kind;
            if (tensors.contains(part_name)) throw conflicting_tensor(part_name, name, part_name);
            std::vector<float> values(t.data.begin() + p * part, t.data.begin() + (p + 1) * part);
            split.insert_or_assign(part_name, host_tensor<float>(part_dims, std::move(values)));
        }
    }
    return split;
}

// `tensors` with each mapped name read from the file's name; names not in the map are kept. A file
// that also holds a mapped-to name under that name is a conflicting_tensor.
inline tensor_map renamed(tensor_map tensors, const name_map& names, const std::string& file = "the weights") {
    tensor_map moved;
    for (const auto& [ours, theirs] : names) {
        auto node = tensors.extract(theirs);
        if (node.empty()) throw file_error(file, theirs, "no tensor of this name (mapped to '" + ours + "')");
        node.key() = ours;
        moved.insert(std::move(node));
    }
    for (auto& [name, t] : tensors) {
        if (moved.contains(name)) throw conflicting_tensor(name, names.at(name), name);
        moved.emplace(name, std::move(t));
    }
    return moved;
}

// A .safetensors state_dict as ctformer's names, fp32.
inline tensor_map load_state_dict(const std::filesystem::path& path, const name_map& names = {}) {
    const safetensors_file file(path);
    return split_in_projections(renamed(file.tensors(), names, file.name()));
}

}  // namespace ctformer
