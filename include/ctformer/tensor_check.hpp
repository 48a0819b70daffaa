// Checking a tensor the user gives against its declared shape: present, and with the declared
// extents; the batch extent is set by the first batched tensor and must agree among the rest.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "shape/shape.hpp"
#include "host_tensor.hpp"

namespace ctformer {

// The dims of declared extents, the batch filled in.
inline dims_t dims_of(std::span<const int> extents, std::size_t batch_size) {
    dims_t result;
    for (int e : extents) result.push_back(e == batch ? batch_size : static_cast<std::size_t>(e));
    return result;
}

template <class Shape>
dims_t dims_of(std::size_t batch_size) {
    return dims_of(Shape::extents, batch_size);
}

// The tensor `name` of `given`, checked against `extents`; throws missing_tensor or shape_mismatch.
inline const host_tensor<float>& checked_tensor(const tensor_map& given, std::string_view name,
                                                std::span<const int> extents, std::optional<std::size_t>& batch_size) {
    const auto found = given.find(name);
    if (found == given.end()) throw missing_tensor(std::string(name), extents_text(extents));
    const host_tensor<float>& t = found->second;
    const bool batched = !extents.empty() && extents[0] == batch;
    if (batched && !batch_size && t.dims.size() == extents.size()) batch_size = t.dims[0];
    if (t.dims.size() != extents.size() || t.dims != dims_of(extents, batch_size.value_or(0))) {
        const std::string batch_text = batched && batch_size ? " with B=" + std::to_string(*batch_size) : "";
        throw shape_mismatch(std::string(name), extents_text(extents) + batch_text, to_string(t.dims));
    }
    return t;
}

template <class Shape>
const host_tensor<float>& checked_tensor(const tensor_map& given, std::string_view name,
                                         std::optional<std::size_t>& batch_size) {
    return checked_tensor(given, name, Shape::extents, batch_size);
}

}  // namespace ctformer
