// A tensor's extents at run time, and where an element of a row-major tensor of them is.
#pragma once

#include <cstddef>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

namespace ctformer {

using dims_t = std::vector<std::size_t>;

inline std::size_t element_count(const dims_t& dims) {
    return std::accumulate(dims.begin(), dims.end(), std::size_t{1}, std::multiplies<>{});
}

// "[2,10,512]"
inline std::string to_string(const dims_t& dims) {
    std::string text = "[";
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (i) text += ',';
        text += std::to_string(dims[i]);
    }
    return text + "]";
}

// {1, 7}: the indices of the element at `flat` in a row-major tensor of `dims`.
inline dims_t index_of(const dims_t& dims, std::size_t flat) {
    dims_t index(dims.size());
    for (std::size_t i = dims.size(); i-- > 0;) {
        index[i] = flat % dims[i];
        flat /= dims[i];
    }
    return index;
}

// "[1,7]"
inline std::string index_text(const dims_t& dims, std::size_t flat) { return to_string(index_of(dims, flat)); }

}  // namespace ctformer
