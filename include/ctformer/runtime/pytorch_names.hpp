// PyTorch's names for the tensors ctformer names otherwise. nn.MultiheadAttention keeps Q, K and V
// in one {prefix}in_proj_weight [3·d, d] (and in_proj_bias [3·d]) when they share the model width;
// ctformer's attention blocks name them apart, {prefix}q_proj_weight, ... (as PyTorch itself does
// when kdim or vdim differ). load_state_dict splits them; bind's errors name them as the file does.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ctformer {

inline constexpr const char* in_projection_parts[] = {"q", "k", "v"};

// {prefix, kind} of "{prefix}q_proj_weight" and its k and v siblings (kind "weight" or "bias").
inline std::optional<std::pair<std::string, std::string>> in_projection_part(const std::string& name) {
    for (const char* part : in_projection_parts) {
        const std::string infix = std::string(part) + "_proj_";
        const std::size_t at = name.rfind(infix);
        if (at == std::string::npos) continue;
        const std::string kind = name.substr(at + infix.size());
        if (kind == "weight" || kind == "bias") return std::pair{name.substr(0, at), kind};
    }
    return std::nullopt;
}

// Names with their extents: each {prefix}q/k/v_proj_{kind} triple that is there whole, of one
// shape, shown as PyTorch's one {prefix}in_proj_{kind} of three times the rows.
inline std::vector<std::pair<std::string, std::vector<int>>> as_pytorch_names(
    const std::vector<std::pair<std::string, std::vector<int>>>& names) {
    const std::map<std::string, std::vector<int>> all(names.begin(), names.end());
    std::set<std::string> folded;
    std::vector<std::pair<std::string, std::vector<int>>> shown;
    for (const auto& [name, extents] : names) {
        if (folded.contains(name)) continue;
        if (const auto part = in_projection_part(name)) {
            const auto& [prefix, kind] = *part;
            std::vector<std::string> triple;
            for (const char* p : in_projection_parts) triple.push_back(prefix + p + "_proj_" + kind);
            const auto same = [&](const std::string& t) { return all.contains(t) && all.at(t) == extents; };
            if (same(triple[0]) && same(triple[1]) && same(triple[2])) {
                std::vector<int> stacked = extents;
                if (!stacked.empty()) stacked[0] *= 3;
                shown.emplace_back(prefix + "in_proj_" + kind, stacked);
                folded.insert(triple.begin(), triple.end());
                continue;
            }
        }
        shown.emplace_back(name, extents);
    }
    return shown;
}

}  // namespace ctformer
