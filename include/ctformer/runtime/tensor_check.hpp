// Checking a tensor the user gives against its declared shape: present, and with the declared
// extents; the batch extent is set by the first batched tensor and must agree among the rest.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "../shape/shape.hpp"
#include "host_tensor.hpp"

namespace ctformer {

template <class Shape>
dims_t dims_of(std::size_t batch_size) {
    dims_t result;
    for (int e : Shape::extents) result.push_back(e == batch ? batch_size : static_cast<std::size_t>(e));
    return result;
}

// The tensor `name` of `given`, checked against Shape; throws missing_tensor or shape_mismatch.
template <class Shape>
const host_tensor<float>& checked_tensor(const tensor_map& given, std::string_view name,
                                         std::optional<std::size_t>& batch_size) {
    const auto found = given.find(name);
    if (found == given.end()) throw missing_tensor(std::string(name), to_string<Shape>());
    const host_tensor<float>& t = found->second;
    if (Shape::batched && !batch_size && t.dims.size() == Shape::rank) batch_size = t.dims[0];
    if (t.dims.size() != Shape::rank || t.dims != dims_of<Shape>(batch_size.value_or(0))) {
        const std::string batch_text =
            Shape::batched && batch_size ? std::string(" with B=") + std::to_string(*batch_size) : "";
        throw shape_mismatch(std::string(name), to_string<Shape>() + batch_text, to_string(t.dims));
    }
    return t;
}

}  // namespace ctformer
