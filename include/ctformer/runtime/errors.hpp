// Run-time errors: typed, and each names the tensor and what was expected.
#pragma once

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

}  // namespace ctformer
