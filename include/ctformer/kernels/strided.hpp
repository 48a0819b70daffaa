// A matrix whose row i starts at data + i · stride: one head inside [L, heads · D] has stride heads · D.
#pragma once

#include <cstddef>

namespace ctformer::kernels {

template <class T>
struct strided_rows {
    T* data;
    std::size_t stride;
    T* row(std::size_t i) const { return data + i * stride; }
    strided_rows from(std::size_t i) const { return {row(i), stride}; }  // rows i, i + 1, ...
};

}  // namespace ctformer::kernels
