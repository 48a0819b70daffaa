// Run-time errors: typed, and each names the tensor and what was expected.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "dims.hpp"
#include "../shape/shape.hpp"

namespace ctformer {

// Every message with its control characters escaped (a newline as \n, ESC as \x1b): the names in
// it may come from a file, and must not reach a terminal as they are.
class error : public std::runtime_error {
public:
    explicit error(const std::string& what) : std::runtime_error(escaped(what)) {}

    static std::string escaped(std::string_view text) {
        static constexpr char hex[] = "0123456789abcdef";
        std::string out;
        for (const char c : text) {
            const auto byte = static_cast<unsigned char>(c);
            if (byte >= 0x20 && byte != 0x7f) out += c;
            else if (c == '\n') out += "\\n";
            else if (c == '\t') out += "\\t";
            else if (c == '\r') out += "\\r";
            else out += std::string("\\x") + hex[byte >> 4] + hex[byte & 15];
        }
        return out;
    }
};

// A tensor the graph reads was not given (and, from bind, `more`: every other one missing and any
// given that the model does not read, as PyTorch's load_state_dict lists them).
class missing_tensor : public error {
public:
    missing_tensor(const std::string& tensor, const std::string& expected_shape, const std::string& more = "")
        : error("ctformer: tensor '" + tensor + "' is missing (expected shape " + expected_shape + ")" + more),
          tensor_(tensor) {}
    const std::string& tensor() const { return tensor_; }

private:
    std::string tensor_;
};

// bind was given tensors the model does not read (a strict bind refuses them, as PyTorch's strict
// load_state_dict does): their names.
class unexpected_tensor : public error {
public:
    explicit unexpected_tensor(const std::vector<std::string>& names)
        : error("ctformer: " + std::to_string(names.size()) + " given tensor(s) the model does not read: " +
                joined(names) + " (bind them with {.strict = false} to allow it)"),
          names_(names) {}
    const std::vector<std::string>& names() const { return names_; }

    static std::string joined(const std::vector<std::string>& names) {
        std::string text;
        for (const std::string& name : names) text += (text.empty() ? "'" : ", '") + name + "'";
        return text;
    }

private:
    std::vector<std::string> names_;
};

// One weight given twice, by two names of the file: a {prefix}in_proj_weight and a separate
// {prefix}q_proj_weight, or a mapped name and the name it maps to. Which one to use would be a guess
// (PyTorch's strict load_state_dict refuses the second as an unexpected key).
class conflicting_tensor : public error {
public:
    conflicting_tensor(const std::string& tensor, const std::string& first, const std::string& second)
        : error("ctformer: tensor '" + tensor + "' is given twice, as '" + first + "' and as '" + second +
                "': keep one of them in the checkpoint"),
          tensor_(tensor) {}
    const std::string& tensor() const { return tensor_; }

private:
    std::string tensor_;
};

// A tensor was given with a shape other than the declared one.
class shape_mismatch : public error {
public:
    shape_mismatch(const std::string& tensor, const std::string& expected, const std::string& found)
        : error("ctformer: tensor '" + tensor + "' has shape " + found + ", expected " + expected),
          tensor_(tensor) {}
    const std::string& tensor() const { return tensor_; }

private:
    std::string tensor_;
};

// A run-time length outside 1 to the maximum its extent was declared with (upto<N>), named by its
// variable: "expected [B,L<=512,_64] (L, a length from 1 to 512, given 600)".
class length_out_of_range : public shape_mismatch {
public:
    length_out_of_range(const std::string& tensor, const std::string& expected, const std::string& found,
                        std::size_t length, const extent_view& extent)
        : shape_mismatch(tensor, expected + " (" + extent.described() + ", given " + std::to_string(length) + ")", found),
          length_(length),
          extent_(extent) {}
    std::size_t length() const { return length_; }
    std::size_t maximum() const { return static_cast<std::size_t>(extent_.maximum); }
    // The declared length: its variable (L, L1, ...) and maximum.
    const extent_view& extent() const { return extent_; }

private:
    std::size_t length_;
    extent_view extent_;
};

// A token id outside the vocabulary of the embedding that reads it: the ids' tensor, where in it
// (index {1, 7}, shown "[1,7]"), the id, and the table's name and row count.
class token_id_out_of_range : public error {
public:
    token_id_out_of_range(const std::string& tensor, const dims_t& index, long long id, const std::string& table,
                          std::size_t vocabulary)
        : error("ctformer: tensor '" + tensor + "' holds the token id " + std::to_string(id) + " at " +
                to_string(index) + ", outside the vocabulary of '" + table + "': ids from 0 to " +
                std::to_string(vocabulary - 1)),
          tensor_(tensor), table_(table), index_(index), id_(id), vocabulary_(vocabulary) {}
    const std::string& tensor() const { return tensor_; }
    const dims_t& index() const { return index_; }
    long long id() const { return id_; }
    std::size_t vocabulary() const { return vocabulary_; }

    // The same error `sequences` sequences further into the batch: a chunk's, told as the batch's.
    token_id_out_of_range in_batch_from(std::size_t sequences) const {
        dims_t index = index_;
        index.at(0) += sequences;
        return at(std::move(index));
    }
    // The same error at `index`: where the id is in the tensor as the user gave it.
    token_id_out_of_range at(dims_t index) const { return {tensor_, std::move(index), id_, table_, vocabulary_}; }

private:
    std::string tensor_, table_;
    dims_t index_;
    long long id_;
    std::size_t vocabulary_;
};

// A run option (or command-line option) outside the values it takes.
// A decoding step would run past its KV cache's capacity (runtime/kv_cache.hpp).
class cache_full : public error {
public:
    cache_full(std::size_t capacity, std::size_t sequence, std::size_t filled, std::size_t tokens)
        : error("ctformer: the KV cache holds " + std::to_string(capacity) + " positions per sequence, " +
                std::to_string(filled) + " of them filled in sequence " + std::to_string(sequence) + ": " + std::to_string(tokens) +
                " more token(s) do not fit (start a new decoding, or declare a longer maximum length)"),
          capacity_(capacity) {}
    std::size_t capacity() const { return capacity_; }

private:
    std::size_t capacity_;
};

class invalid_option : public error {
public:
    invalid_option(const std::string& option, const std::string& value, const std::string& expected)
        : error("ctformer: " + option + " = " + value + ": expected " + expected) {}
};

// Memory for a run could not be had: names what was being allocated and how much.
class out_of_memory : public error {
public:
    out_of_memory(const std::string& what, std::size_t bytes)
        : error("ctformer: out of memory: " + what + " needs " + std::to_string(bytes) + " bytes"), bytes_(bytes) {}
    std::size_t bytes() const { return bytes_; }

private:
    std::size_t bytes_;
};

// A file that cannot be trusted, or does not hold what was asked of it: names the file and, where
// there is one, the tensor.
class file_error : public error {
public:
    file_error(const std::string& file, const std::string& tensor, const std::string& problem)
        : error("ctformer: " + file + (tensor.empty() ? "" : ", tensor '" + tensor + "'") + ": " + problem),
          file_(file),
          tensor_(tensor) {}
    const std::string& file() const { return file_; }
    const std::string& tensor() const { return tensor_; }

private:
    std::string file_;
    std::string tensor_;
};

// A model's configuration file (a Hugging Face config.json) that ctformer cannot build from: names
// the file and, where there is one, the field, "ctformer: config.json: hidden_act: ...".
class config_error : public error {
public:
    config_error(const std::string& file, const std::string& field, const std::string& problem)
        : error("ctformer: " + file + ": " + (field.empty() ? "" : field + ": ") + problem), file_(file), field_(field) {}
    const std::string& file() const { return file_; }
    const std::string& field() const { return field_; }

private:
    std::string file_;
    std::string field_;
};

}  // namespace ctformer
