// The weights a compiled model holds: each weight leaf, checked against its declared shape and
// copied at bind time; tables known at compile time (positional encoding), made once.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "../passes/match.hpp"
#include "tensor_check.hpp"

namespace ctformer::runtime {

class weight_store {
public:
    // Every weight among Leaves, from `given` by name.
    template <class... Leaves>
    void bind(leaf_set<Leaves...>, const tensor_map& given) {
        std::map<std::string, std::vector<float>, std::less<>> checked;
        (take<Leaves>(given, checked), ...);
        plain_ = std::move(checked);
    }

    const float* plain(std::string_view name) const {
        const auto found = plain_.find(name);
        if (found == plain_.end()) throw missing_tensor(std::string(name), "(bind the weights before run)");
        return found->second.data();
    }

    bool bound() const { return !plain_.empty(); }

    template <class Table, class Shape>
    static const float* constant() {
        static const std::vector<float> table = [] {
            constexpr int rows = Shape::extents[0], cols = Shape::extents[1];
            std::vector<float> values(rows * cols);
            for (int r = 0; r < rows; ++r)
                for (int c = 0; c < cols; ++c) values[r * cols + c] = static_cast<float>(Table::at(r, c, cols));
            return values;
        }();
        return table.data();
    }

private:
    template <class Leaf>
    static void take(const tensor_map& given, std::map<std::string, std::vector<float>, std::less<>>& into) {
        if constexpr (has_role<Leaf, role::weight>) {
            std::optional<std::size_t> no_batch;
            into.insert_or_assign(std::string(Leaf::name.view()),
                                  checked_tensor<typename Leaf::shape>(given, Leaf::name.view(), no_batch).data);
        }
    }

    std::map<std::string, std::vector<float>, std::less<>> plain_;
};

template <class... Leaves>
std::string joined_names(leaf_set<Leaves...>) {
    std::string text;
    ((text.append(text.empty() ? "" : ",").append(Leaves::name.view())), ...);
    return text;
}

// Which packed panels a gemm node reads: the names of its weight and bias leaves.
template <class E>
const std::string& gemm_key() {
    static const std::string key = [] {
        std::string text = joined_names(leaves_t<child_t<E, 1>>{});
        if constexpr (epilogue_of<E>::bias) text.append("|").append(joined_names(leaves_t<child_t<E, 2>>{}));
        return text;
    }();
    return key;
}

}  // namespace ctformer::runtime
