// Run-time errors: typed, and each names the tensor and what was expected.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace ctformer {

class error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A tensor the graph reads was not given.
class missing_tensor : public error {
public:
    missing_tensor(const std::string& tensor, const std::string& expected_shape)
        : error("ctformer: tensor '" + tensor + "' is missing (expected shape " + expected_shape + ")"),
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

}  // namespace ctformer
