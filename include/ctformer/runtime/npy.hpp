// NumPy's .npy files of fp32 in C order, for inputs and outputs:
//
//   "\x93NUMPY", version (1, 2 or 3, and 0), header length (2 bytes in version 1, 4 after), then a
//   dict {'descr': '<f4', 'fortran_order': False, 'shape': (2, 10, 512), } padded with spaces to a
//   multiple of 64 bytes and ending in '\n' (npy_header.hpp parses it); then the values.
//
// read_npy takes what numpy reads as a float32 array, little- or big-endian ('<f4', '>f4', and the
// native 'f4', '=f4', '|f4'),
// read_npy_ids an int32 or int64 one (token ids), read_npy_mask a bool, integer or float32 one of 0s
// and 1s (an attention mask, as 0.0f and 1.0f); anything else (another dtype, Fortran order, a short
// file) throws file_error naming the file.
// write_npy writes version 1.0.
#pragma once

#include <algorithm>
#include <bit>
#include <charconv>
#include <cctype>
#include <cstdint>
#include <limits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "../core/host_tensor.hpp"
#include "mapped_file.hpp"
#include "npy_header.hpp"

namespace ctformer {

namespace detail {
inline constexpr std::string_view npy_magic = "\x93NUMPY";

// Whether `dims` elements of `element_bytes` fit in `available` bytes (no overflow on the way).
inline bool fits(const dims_t& dims, std::size_t element_bytes, std::size_t available) {
    if (std::find(dims.begin(), dims.end(), std::size_t{0}) != dims.end()) return true;
    std::size_t bytes = element_bytes;
    for (std::size_t extent : dims) {
        if (bytes > available / extent) return false;
        bytes *= extent;
    }
    return bytes <= available;
}


// A .npy file's header and where its values begin, checked up to the dtype.
struct npy_contents {
    npy_header header;
    const char* values;
    std::size_t available;  // bytes from `values` to the end
};

// Where the header dict lies, from the magic, the version and the header length: the first 12
// bytes (or all of a shorter file) are enough to tell a .npy file from anything else.
struct npy_prelude {
    std::size_t header_begin, header_length;
};
inline constexpr std::size_t npy_prelude_bytes = 12;

inline npy_prelude npy_prelude_of(const std::string& name, std::span<const std::byte> bytes) {
    const auto* text = reinterpret_cast<const char*>(bytes.data());
    if (bytes.size() < 10 || std::string_view(text, 6) != npy_magic)
        throw file_error(name, "", "not a .npy file (no \\x93NUMPY magic)");
    const int major = static_cast<unsigned char>(text[6]);
    const std::size_t length_bytes = major == 1 ? 2 : 4;
    if (major < 1 || major > 3 || bytes.size() < 8 + length_bytes)
        throw file_error(name, "", "unsupported .npy version " + std::to_string(major));
    std::uint32_t header_length = 0;
    std::memcpy(&header_length, text + 8, length_bytes);
    return {8 + length_bytes, header_length};
}

// A file read for read_npy or read_npy_ids: refused at its first bytes unless they are a .npy's.
inline mapped_file npy_file(const std::filesystem::path& path) {
    return mapped_file(path, {npy_prelude_bytes, [](const std::string& name, std::span<const std::byte> first) {
                                  npy_prelude_of(name, first);
                              }});
}

inline npy_contents npy_parts(const std::string& name, std::span<const std::byte> bytes) {
    const auto* text = reinterpret_cast<const char*>(bytes.data());
    const auto [header_begin, header_length] = npy_prelude_of(name, bytes);
    const std::size_t data_begin = header_begin + header_length;
    if (data_begin > bytes.size()) throw file_error(name, "", "truncated: the .npy header runs past the end");
    npy_header header = parse_npy_header(std::string_view(text + header_begin, header_length), name);
    if (header.fortran_order) throw file_error(name, "", "Fortran order; save a C-order array (numpy.ascontiguousarray)");
    return {std::move(header), text + data_begin, bytes.size() - data_begin};
}

// The file holds the header's shape of `element_bytes` values.
inline void check_fits(const std::string& name, const npy_contents& c, std::size_t element_bytes) {
    if (!fits(c.header.shape, element_bytes, c.available))
        throw file_error(name, "", "truncated: shape " + to_string(c.header.shape) + " needs more than the " +
                                       std::to_string(c.available) + " bytes of data the file has");
}

// A descr as numpy reads it: a byte order ('<' little, '>' big; '=', '|' or none: native), a kind
// and a size in bytes: "<f4" is {'f', 4}, "|i8" {'i', 8}; {} for anything else.
struct npy_dtype {
    char kind = 0;
    std::size_t bytes = 0;
    bool swapped = false;  // stored in the other byte order than this machine's
};

inline npy_dtype npy_dtype_of(std::string_view descr) {
    bool big = std::endian::native == std::endian::big;
    if (!descr.empty() && (descr[0] == '<' || descr[0] == '>' || descr[0] == '=' || descr[0] == '|')) {
        if (descr[0] == '<' || descr[0] == '>') big = descr[0] == '>';
        descr.remove_prefix(1);
    }
    if (descr.size() != 2 || !std::isdigit(static_cast<unsigned char>(descr[1]))) return {};
    return {descr[0], static_cast<std::size_t>(descr[1] - '0'), big != (std::endian::native == std::endian::big)};
}

// Value i of unsigned integers of Bits, byte-swapped when `swapped`.
template <class Bits>
Bits stored_bits(const char* values, std::size_t i, bool swapped) {
    Bits bits;
    std::memcpy(&bits, values + i * sizeof(Bits), sizeof(Bits));
    if (!swapped) return bits;
    if constexpr (sizeof(Bits) == 2) return __builtin_bswap16(bits);
    else if constexpr (sizeof(Bits) == 4) return __builtin_bswap32(bits);
    else return __builtin_bswap64(bits);
}

// Value i of a bool, integer or float32 array as numpy prints it ("1", "-3", "0.5"; "1" for True).
inline std::string npy_value_text(const char* values, std::size_t i, const npy_dtype& dtype) {
    std::uint64_t bits = 0;
    switch (dtype.bytes) {
        case 1: bits = static_cast<unsigned char>(values[i]); break;
        case 2: bits = stored_bits<std::uint16_t>(values, i, dtype.swapped); break;
        case 4: bits = stored_bits<std::uint32_t>(values, i, dtype.swapped); break;
        default: bits = stored_bits<std::uint64_t>(values, i, dtype.swapped); break;
    }
    if (dtype.kind == 'f') {
        const float f = std::bit_cast<float>(static_cast<std::uint32_t>(bits));
        if (f == 0.0f || f == 1.0f) return f == 0.0f ? "0" : "1";
        char text[32];
        return std::string(text, std::to_chars(text, text + sizeof text, f).ptr);
    }
    if (dtype.kind != 'i') return std::to_string(bits);
    const int unused = 64 - 8 * static_cast<int>(dtype.bytes);  // sign-extended from the stored width
    return std::to_string(static_cast<std::int64_t>(bits << unused) >> unused);
}
}  // namespace detail

// From bytes in memory (the fuzz target); `name` stands for the file.
inline host_tensor<float> npy_from_bytes(const std::string& name, std::span<const std::byte> bytes) {
    const detail::npy_contents c = detail::npy_parts(name, bytes);
    const std::string& descr = c.header.descr;
    const detail::npy_dtype dtype = detail::npy_dtype_of(descr);
    if (dtype.kind != 'f' || dtype.bytes != 4) throw file_error(name, "", "dtype '" + descr + "' is not float32 ('<f4')");
    detail::check_fits(name, c, sizeof(float));
    host_tensor<float> t(c.header.shape);
    if (t.size()) std::memcpy(t.data.data(), c.values, t.size() * sizeof(float));
    if (dtype.swapped)
        for (float& v : t.data) v = std::bit_cast<float>(__builtin_bswap32(std::bit_cast<std::uint32_t>(v)));
    return t;
}

inline host_tensor<float> read_npy(const std::filesystem::path& path) {
    const mapped_file file = detail::npy_file(path);
    return npy_from_bytes(file.name(), file.bytes());
}

// Token ids: what numpy reads as an int32 or int64 array ('<i4', '<i8', big-endian or native); an
// int64 id outside int32 is a file_error naming where it is.
inline id_tensor npy_ids_from_bytes(const std::string& name, std::span<const std::byte> bytes) {
    const detail::npy_contents c = detail::npy_parts(name, bytes);
    const std::string& descr = c.header.descr;
    const detail::npy_dtype dtype = detail::npy_dtype_of(descr);
    const bool wide = dtype.bytes == 8;
    if (dtype.kind != 'i' || (dtype.bytes != 4 && !wide))
        throw file_error(name, "", "dtype '" + descr + "' is not token ids: int32 ('<i4') or int64 ('<i8')");
    detail::check_fits(name, c, wide ? 8 : 4);
    id_tensor t(c.header.shape);
    for (std::size_t i = 0; i < t.size(); ++i) {
        const std::int64_t id = wide ? static_cast<std::int64_t>(detail::stored_bits<std::uint64_t>(c.values, i, dtype.swapped))
                                     : static_cast<std::int32_t>(detail::stored_bits<std::uint32_t>(c.values, i, dtype.swapped));
        if (const std::string why = id_past_int32(id, t.dims, i); !why.empty()) throw file_error(name, "", why);
        t[i] = static_cast<std::int32_t>(id);
    }
    return t;
}

inline id_tensor read_npy_ids(const std::filesystem::path& path) {
    const mapped_file file = detail::npy_file(path);
    return npy_ids_from_bytes(file.name(), file.bytes());
}

// An attention mask: what numpy reads as a bool ('|b1'), integer ('<i1' to '<i8', '|u1') or float32
// array of 0s and 1s (Hugging Face's attention_mask is int64), as 0.0f and 1.0f; any other value is a
// file_error naming where it is.
inline host_tensor<float> npy_mask_from_bytes(const std::string& name, std::span<const std::byte> bytes) {
    const detail::npy_contents c = detail::npy_parts(name, bytes);
    const std::string& descr = c.header.descr;
    const detail::npy_dtype dtype = detail::npy_dtype_of(descr);
    const bool integer = (dtype.kind == 'i' || dtype.kind == 'u') &&
                         (dtype.bytes == 1 || dtype.bytes == 2 || dtype.bytes == 4 || dtype.bytes == 8);
    if (!integer && !(dtype.kind == 'b' && dtype.bytes == 1) && !(dtype.kind == 'f' && dtype.bytes == 4))
        throw file_error(name, "", "dtype '" + descr + "' is not a mask: bool ('|b1'), an integer ('<i8') or float32 ('<f4')");
    detail::check_fits(name, c, dtype.bytes);
    host_tensor<float> t(c.header.shape);
    for (std::size_t i = 0; i < t.size(); ++i) {
        const std::string value = detail::npy_value_text(c.values, i, dtype);
        if (value != "0" && value != "1")
            throw file_error(name, "", "holds " + value + " at " + index_text(t.dims, i) +
                                           ": a mask holds 0 (padding) and 1 (a real token)");
        t[i] = value == "1" ? 1.0f : 0.0f;
    }
    return t;
}

inline host_tensor<float> read_npy_mask(const std::filesystem::path& path) {
    const mapped_file file = detail::npy_file(path);
    return npy_mask_from_bytes(file.name(), file.bytes());
}

inline void write_npy(const std::filesystem::path& path, const host_tensor<float>& t) {
    std::string shape = "(";
    for (std::size_t d : t.dims) shape += std::to_string(d) + ", ";
    if (t.dims.size() == 1) shape.resize(shape.size() - 1);  // "(5,)"
    else if (!t.dims.empty()) shape.resize(shape.size() - 2);
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + "), }";
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ').push_back('\n');
    const std::uint16_t length = static_cast<std::uint16_t>(header.size());
    write_file(path, [&](std::ofstream& out) {
        out.write(detail::npy_magic.data(), 6).put('\x01').put('\x00');
        out.write(reinterpret_cast<const char*>(&length), 2).write(header.data(), static_cast<std::streamsize>(header.size()));
        out.write(reinterpret_cast<const char*>(t.data.data()), static_cast<std::streamsize>(t.size() * sizeof(float)));
    });
}

}  // namespace ctformer
