// A dense row-major tensor in ordinary memory, with run-time dims: what users hand to ctformer and
// what the reference evaluator returns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "dims.hpp"
#include "exceptions.hpp"

namespace ctformer {

// Why a token id read from a file's int64 values cannot be int32 ("the token id 2147483648 at [1]
// does not fit int32"), or "" when it fits.
inline std::string id_past_int32(std::int64_t id, const dims_t& dims, std::size_t at) {
    if (id >= std::numeric_limits<std::int32_t>::min() && id <= std::numeric_limits<std::int32_t>::max()) return "";
    return "the token id " + std::to_string(id) + " at " + index_text(dims, at) + " does not fit int32";
}

template <class T>
struct host_tensor {
    dims_t dims;
    std::vector<T> data;

    host_tensor() = default;
    explicit host_tensor(dims_t shape) : dims(std::move(shape)), data(element_count(dims)) {}
    host_tensor(dims_t shape, std::vector<T> values) : dims(std::move(shape)), data(std::move(values)) {
        if (data.size() != element_count(dims))
            throw error(std::string("ctformer: ") + std::to_string(data.size()) +
                        " values cannot fill shape " + to_string(dims));
    }

    std::size_t size() const { return data.size(); }
    T& operator[](std::size_t i) { return data[i]; }
    const T& operator[](std::size_t i) const { return data[i]; }
};

// Inputs and weights by name. Boolean masks are given as floats: non-zero means true.
using tensor_map = std::map<std::string, host_tensor<float>, std::less<>>;

// Token ids (an id_input's values, e.g. [B, L]) and the id inputs by name.
using id_tensor = host_tensor<std::int32_t>;
using id_map = std::map<std::string, id_tensor, std::less<>>;

// The id_map of a graph without token ids.
inline const id_map& no_ids() {
    static const id_map none;
    return none;
}

}  // namespace ctformer
