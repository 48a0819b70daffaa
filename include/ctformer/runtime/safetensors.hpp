// Reading (and writing, F32) .safetensors files (the format of huggingface/safetensors, what PyTorch users save):
//
//   8 bytes        N, the header length, little-endian
//   N bytes        JSON {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...,
//                        "__metadata__": {"key": "value", ...}}
//   the rest       the data; offsets count from its first byte
//
// The file is read whole into memory (read, not mapped: see mapped_file.hpp), its header length
// checked before the rest is read. Every entry is checked when the file is opened, before any byte
// of data is used: the header length (within the file, at most 100 MB, at least 2 bytes), the JSON,
// each key once in each of its objects (a tensor's name, an entry's "dtype"), a known dtype,
// offsets inside the data and exactly shape × dtype bytes long, no two tensors overlapping.
// F32, F16 and BF16 tensors read as fp32 (tensor()), I32 and I64 as int32 token ids (ids()); F64 is
// refused (ctformer computes in fp32: convert the file, e.g. with tensor.float(), knowing what is
// lost). Problems throw file_error naming the file and the tensor.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "../core/host_tensor.hpp"
#include "../kernels/bfloat16.hpp"
#include "mapped_file.hpp"

namespace ctformer {

static_assert(std::endian::native == std::endian::little, "ctformer reads little-endian files in place");

struct safetensors_entry {
    std::string dtype;
    dims_t shape;
    std::size_t begin = 0, end = 0;  // byte offsets into the data
};

namespace detail {
// Bytes per element of the dtypes safetensors defines; 0 for a name it does not.
inline std::size_t dtype_bytes(std::string_view dtype) {
    static const std::map<std::string_view, std::size_t> sizes{
        {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"I64", 8}, {"I32", 4},
        {"I16", 2}, {"I8", 1},  {"U64", 8}, {"U32", 4}, {"U16", 2},  {"U8", 1},     {"BOOL", 1}};
    const auto found = sizes.find(dtype);
    return found == sizes.end() ? 0 : found->second;
}

// IEEE half precision to single: sign, 5-bit exponent, 10-bit mantissa; subnormals, inf and NaN kept.
inline float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    if (exponent == 0) {
        const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
        return sign ? -magnitude : magnitude;
    }
    const std::uint32_t bits = exponent == 31 ? sign | 0x7f800000u | (mantissa << 13)
                                              : sign | ((exponent + 112) << 23) | (mantissa << 13);
    return std::bit_cast<float>(bits);
}
}  // namespace detail

class safetensors_file {
public:
    static constexpr std::size_t max_header_bytes = 100'000'000;

    explicit safetensors_file(const std::filesystem::path& path)
        : mapping_(std::make_shared<const mapped_file>(path, mapped_file::start_check{8, &header_length})),
          name_(mapping_->name()) {
        read(mapping_->bytes());
    }

    // From bytes in memory that outlive the object (the fuzz target); `name` stands for the file.
    safetensors_file(std::string name, std::span<const std::byte> bytes) : name_(std::move(name)) { read(bytes); }

    const std::string& name() const { return name_; }

    const std::map<std::string, std::string>& metadata() const { return metadata_; }
    const std::map<std::string, safetensors_entry, std::less<>>& entries() const { return entries_; }

    // One tensor as fp32.
    host_tensor<float> tensor(std::string_view tensor_name) const {
        const auto& [stored_name, e] = entry(tensor_name);
        host_tensor<float> t(e.shape);
        const std::byte* from = data_.data() + e.begin;
        if (e.dtype == "F32") {
            if (t.size()) std::memcpy(t.data.data(), from, t.size() * sizeof(float));
        } else if (e.dtype == "F16" || e.dtype == "BF16") {
            for (std::size_t i = 0; i < t.size(); ++i) {
                std::uint16_t bits = 0;
                std::memcpy(&bits, from + 2 * i, 2);
                t[i] = e.dtype == "F16" ? detail::half_to_float(bits) : kernels::bfloat16_to_float(bits);
            }
        } else if (e.dtype == "F64") {
            fail(stored_name, "dtype F64 is refused: ctformer computes in fp32; convert the file to F32 "
                               "(e.g. tensor.float() before saving), knowing what is lost");
        } else {
            fail(stored_name, "dtype " + e.dtype + " is not a floating-point type (F32, F16 or BF16)" +
                                   (is_integer(e.dtype) ? "; token ids are read with ids()" : ""));
        }
        return t;
    }

    // Token ids, stored I32 or I64; an I64 id outside int32 is refused, naming where it is.
    id_tensor ids(std::string_view tensor_name) const {
        const auto& [stored_name, e] = entry(tensor_name);
        if (!is_integer(e.dtype)) fail(stored_name, "dtype " + e.dtype + " is not token ids (I32 or I64)");
        id_tensor t(e.shape);
        const std::byte* from = data_.data() + e.begin;
        for (std::size_t i = 0; i < t.size(); ++i) {
            std::int64_t id = 0;
            if (e.dtype == "I64") {
                std::memcpy(&id, from + 8 * i, 8);
            } else {
                std::int32_t narrow = 0;
                std::memcpy(&narrow, from + 4 * i, 4);
                id = narrow;
            }
            if (const std::string why = id_past_int32(id, t.dims, i); !why.empty()) fail(stored_name, why);
            t[i] = static_cast<std::int32_t>(id);
        }
        return t;
    }

    // Every tensor of the file as fp32, by name, but integer ones (token ids, and buffers such as
    // Hugging Face's position_ids, which are no weights): those are read with ids().
    tensor_map tensors() const {
        tensor_map all;
        for (const auto& [tensor_name, entry] : entries_)
            if (!is_integer(entry.dtype)) all.emplace(tensor_name, tensor(tensor_name));
        return all;
    }

    // Whether a dtype holds token ids (read with ids()), not weights.
    static bool is_integer(std::string_view dtype) { return dtype == "I32" || dtype == "I64"; }

private:

    // The entry of that name, with the name as the file spells it.
    const std::pair<const std::string, safetensors_entry>& entry(std::string_view tensor_name) const {
        const auto found = entries_.find(tensor_name);
        if (found == entries_.end()) fail(std::string(tensor_name), "no tensor of this name in the file");
        return *found;
    }

    [[noreturn]] void fail(const std::string& tensor_name, const std::string& problem) const {
        throw file_error(name_, tensor_name, problem);
    }

    // The header length, from the first 8 bytes: at most 100 MB, and room for a JSON object. Enough
    // to tell a .safetensors file from anything else (/dev/zero, /dev/urandom) before the rest is read.
    static std::uint64_t header_length(const std::string& name, std::span<const std::byte> first) {
        if (first.size() < 8)
            throw file_error(name, "", "truncated: " + std::to_string(first.size()) + " bytes, not even the 8-byte header length");
        std::uint64_t length = 0;
        std::memcpy(&length, first.data(), 8);
        if (length > max_header_bytes)
            throw file_error(name, "", "the header length " + std::to_string(length) + " is over the 100 MB limit");
        if (length < 2)
            throw file_error(name, "", "the header length " + std::to_string(length) + " cannot hold a JSON object");
        return length;
    }

    // The header length, the JSON and every entry, checked.
    void read(std::span<const std::byte> bytes) {
        const std::uint64_t length = header_length(name_, bytes);
        if (length > bytes.size() - 8)
            fail("", "the header length " + std::to_string(length) + " runs past the end of the file (" +
                         std::to_string(bytes.size()) + " bytes)");
        data_ = bytes.subspan(8 + length);
        read_header(bytes.subspan(8, length));
        check_no_overlaps();
    }

    void read_header(std::span<const std::byte> header) {
        const auto* text = reinterpret_cast<const char*>(header.data());
        // Each key once in every object: a tensor's name in the header, "dtype" in an entry, ...
        std::vector<std::set<std::string>> seen;
        const auto each_key_once = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
            using event_t = nlohmann::json::parse_event_t;
            if (event == event_t::object_start) seen.emplace_back();
            if (event == event_t::object_end) seen.pop_back();
            if (event == event_t::key && !seen.back().insert(parsed.get<std::string>()).second) {
                if (depth == 1) fail(parsed.get<std::string>(), "the name appears twice in the header");
                fail("", "the key \"" + parsed.get<std::string>() + "\" appears twice in one object of the header");
            }
            return true;
        };
        nlohmann::json json;
        try {
            json = nlohmann::json::parse(text, text + header.size(), each_key_once);
        } catch (const nlohmann::json::exception& e) {
            fail("", std::string("the header is not valid JSON: ") + e.what());
        }
        if (!json.is_object()) fail("", "the header is not a JSON object");
        for (const auto& [key, value] : json.items()) {
            if (key == "__metadata__") read_metadata(value);
            else entries_.emplace(key, checked_entry(key, value));
        }
    }

    void read_metadata(const nlohmann::json& value) {
        if (!value.is_object()) fail("__metadata__", "is not an object of strings");
        for (const auto& [key, text] : value.items()) {
            if (!text.is_string()) fail("__metadata__", "the value of '" + key + "' is not a string");
            metadata_.emplace(key, text.get<std::string>());
        }
    }

    safetensors_entry checked_entry(const std::string& tensor_name, const nlohmann::json& value) const {
        const auto is_count = [](const nlohmann::json& j) { return j.is_number_unsigned(); };
        if (!value.is_object() || !value.contains("dtype") || !value["dtype"].is_string() ||
            !value.contains("shape") || !value["shape"].is_array() ||
            !std::all_of(value["shape"].begin(), value["shape"].end(), is_count) || !value.contains("data_offsets") ||
            !value["data_offsets"].is_array() || value["data_offsets"].size() != 2 ||
            !std::all_of(value["data_offsets"].begin(), value["data_offsets"].end(), is_count))
            fail(tensor_name, "the entry needs \"dtype\", \"shape\" (counts) and \"data_offsets\" [begin, end]");
        safetensors_entry e{value["dtype"].get<std::string>(), value["shape"].get<dims_t>(),
                            value["data_offsets"][0].get<std::size_t>(), value["data_offsets"][1].get<std::size_t>()};
        const std::size_t element_bytes = detail::dtype_bytes(e.dtype);
        if (element_bytes == 0) fail(tensor_name, "unknown dtype " + e.dtype);
        if (e.begin > e.end || e.end > data_.size())
            fail(tensor_name, "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                                  "] lie outside the " + std::to_string(data_.size()) + "-byte data");
        const std::size_t expected = expected_bytes(tensor_name, e.shape, element_bytes);
        if (e.end - e.begin != expected)
            fail(tensor_name, "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "] hold " +
                                  std::to_string(e.end - e.begin) + " bytes; shape " + to_string(e.shape) + " of " +
                                  e.dtype + " needs " + std::to_string(expected));
        return e;
    }

    // shape × element size, refusing sizes that overflow (a crafted shape must not wrap around).
    std::size_t expected_bytes(const std::string& tensor_name, const dims_t& shape, std::size_t element_bytes) const {
        std::size_t bytes = element_bytes;
        for (std::size_t extent : shape) {
            if (extent != 0 && bytes > data_.size() / extent)
                fail(tensor_name, "shape " + to_string(shape) + " is larger than the file's data");
            bytes *= extent;
        }
        return bytes;
    }

    void check_no_overlaps() const {
        std::vector<std::pair<std::size_t, const std::string*>> starts;
        for (const auto& [tensor_name, e] : entries_)
            if (e.end > e.begin) starts.emplace_back(e.begin, &tensor_name);
        std::sort(starts.begin(), starts.end());
        for (std::size_t i = 1; i < starts.size(); ++i) {
            const safetensors_entry& previous = entries_.at(*starts[i - 1].second);
            if (starts[i].first < previous.end)
                fail(*starts[i].second, "its data overlaps tensor '" + *starts[i - 1].second + "'");
        }
    }

    std::shared_ptr<const mapped_file> mapping_;  // the file's bytes; none for bytes given
    std::string name_;
    std::span<const std::byte> data_;
    std::map<std::string, safetensors_entry, std::less<>> entries_;
    std::map<std::string, std::string> metadata_;
};

enum class stored_as { f32, bf16 };

// Every tensor as F32 (or BF16, each value rounded to the nearest), in name order, with the metadata:
// what safetensors.torch.save_file writes, and what safetensors_file reads back.
inline void write_safetensors(const std::filesystem::path& path, const tensor_map& tensors,
                              const std::map<std::string, std::string>& metadata = {}, stored_as dtype = stored_as::f32) {
    const std::size_t element = dtype == stored_as::f32 ? 4 : 2;
    nlohmann::json header = nlohmann::json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    std::size_t offset = 0;
    for (const auto& [name, t] : tensors) {
        const std::size_t bytes = t.size() * element;
        header[name] = {{"dtype", element == 4 ? "F32" : "BF16"}, {"shape", t.dims}, {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    const std::string text = header.dump();
    const std::uint64_t length = text.size();
    write_file(path, [&](std::ofstream& out) {
        out.write(reinterpret_cast<const char*>(&length), 8).write(text.data(), static_cast<std::streamsize>(length));
        for (const auto& [name, t] : tensors) {
            if (dtype == stored_as::f32) {
                out.write(reinterpret_cast<const char*>(t.data.data()), static_cast<std::streamsize>(t.size() * sizeof(float)));
                continue;
            }
            std::vector<std::uint16_t> bits(t.size());
            std::transform(t.data.begin(), t.data.end(), bits.begin(), kernels::bfloat16_bits);
            out.write(reinterpret_cast<const char*>(bits.data()), static_cast<std::streamsize>(bits.size() * 2));
        }
    });
}

}  // namespace ctformer
