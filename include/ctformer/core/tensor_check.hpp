// Checking a tensor the user gives against its declared shape: present, and with the declared
// extents. The batch and each length variable (upto<N>) are set by the first tensor that has them
// and must agree among the rest; a length is 1 to its maximum.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "exceptions.hpp"
#include "../shape/shape.hpp"
#include "host_tensor.hpp"

namespace ctformer {

// The dims of declared extents for a run of the given extents.
inline dims_t dims_of(std::span<const int> extents, const extent_values& at) {
    dims_t result;
    for (std::size_t i = 0; i < extents.size(); ++i) result.push_back(at.of(extents, i));
    return result;
}

template <class Shape>
dims_t dims_of(const extent_values& at) {
    return dims_of(Shape::extents, at);
}

// The run-time extents as the tensors checked so far set them.
struct extents_seen {
    std::optional<std::size_t> batch;
    std::array<std::optional<std::size_t>, max_lengths> lengths;

    // The run's extents: unseen lengths at their maxima, an unseen batch 1.
    extent_values values() const {
        extent_values at{batch.value_or(1)};
        for (int v = 0; v < max_lengths; ++v) at.lengths[v] = lengths[v].value_or(0);
        return at;
    }

    // Declared extent e given as `given`: false if it disagrees with what is set.
    bool take(int e, std::size_t given) {
        std::optional<std::size_t>* set = e == ctformer::batch ? &batch : is_length(e) ? &lengths[length_variable(e)] : nullptr;
        if (!set) return given == static_cast<std::size_t>(e);
        if (!*set) *set = given;
        return **set == given;
    }

    // "[B,L<=512,_512] with B=2, L=10": what was expected, with the values already set.
    std::string expected(std::span<const int> extents) const {
        std::string known;
        const auto add = [&](const std::string& name, const std::optional<std::size_t>& v) {
            if (!v) return;
            known += known.empty() ? " with " : ", ";
            known += name;  // appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "=" + ...
            known += '=';
            known += std::to_string(*v);
        };
        for (std::size_t i = 0; i < extents.size(); ++i) {
            if (std::find(extents.begin(), extents.begin() + i, extents[i]) != extents.begin() + i) continue;
            const extent_view e = extent_view::of(extents[i]);
            if (e.is_batch()) add(e.name(), batch);
            if (e.is_length()) add(e.name(), lengths[e.variable]);
        }
        return extents_text(extents) + known;
    }
};

// The tensor `name` of `given` (a tensor_map, or an id_map), checked against `extents`; throws
// missing_tensor, shape_mismatch or length_out_of_range.
template <class T>
const host_tensor<T>& checked_tensor(const std::map<std::string, host_tensor<T>, std::less<>>& given, std::string_view name,
                                     std::span<const int> extents, extents_seen& seen) {
    const auto found = given.find(name);
    if (found == given.end()) throw missing_tensor(std::string(name), extents_text(extents));
    const host_tensor<T>& t = found->second;
    const extents_seen before = seen;  // for the message
    const auto mismatch = [&] { return shape_mismatch(std::string(name), before.expected(extents), to_string(t.dims)); };
    if (t.dims.size() != extents.size()) throw mismatch();
    for (std::size_t i = 0; i < extents.size(); ++i) {
        const extent_view e = extent_view::of(extents[i]);
        if (e.is_length() && (t.dims[i] == 0 || t.dims[i] > static_cast<std::size_t>(e.maximum)))
            throw length_out_of_range(std::string(name), extents_text(extents), to_string(t.dims), t.dims[i], e);
        if (!seen.take(extents[i], t.dims[i])) throw mismatch();
    }
    return t;
}

template <class Shape, class T>
const host_tensor<T>& checked_tensor(const std::map<std::string, host_tensor<T>, std::less<>>& given, std::string_view name,
                                     extents_seen& seen) {
    return checked_tensor(given, name, Shape::extents, seen);
}

}  // namespace ctformer
