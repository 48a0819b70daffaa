// The header of a .npy file: the repr of a Python dict, {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 10, 512), }, parsed as the literal it is (numpy reads it with ast.literal_eval), and
// checked as numpy checks it: the keys descr, fortran_order and shape, each exactly once and nothing
// else; descr a string, fortran_order True or False, shape a tuple of non-negative integers. What
// numpy refuses (a tuple that is not one, "(2, 1 0, 512)", a key inside a string value) is refused,
// by file_error naming the file and what is wrong.
#pragma once

#include <cctype>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "../core/host_tensor.hpp"

namespace ctformer {

struct npy_header {
    std::string descr;
    bool fortran_order = false;
    dims_t shape;
};

namespace detail {
class npy_header_parser {
public:
    npy_header_parser(std::string_view text, const std::string& file) : text_(text), file_(file) {}

    npy_header parse() {
        std::optional<std::string> descr;
        std::optional<bool> fortran_order;
        std::optional<dims_t> shape;
        expect('{');
        while (!consume('}')) {
            const std::string key = string_literal();
            expect(':');
            if (key == "descr") once(descr, key) = string_literal();
            else if (key == "fortran_order") once(fortran_order, key) = boolean();
            else if (key == "shape") once(shape, key) = tuple_of_counts();
            else fail("the .npy header has a key numpy does not write: '" + key + "'");
            if (!consume(',')) {
                expect('}');
                break;
            }
        }
        space();
        if (at_ != text_.size()) fail("the .npy header has text after its dict");
        if (!descr || !fortran_order || !shape) fail("the .npy header needs 'descr', 'fortran_order' and 'shape'");
        return {*descr, *fortran_order, *shape};
    }

private:
    [[noreturn]] void fail(const std::string& problem) const { throw file_error(file_, "", problem); }

    template <class T>
    T& once(std::optional<T>& slot, const std::string& key) const {
        if (slot) fail("the .npy header gives '" + key + "' twice");
        return slot.emplace();
    }

    void space() {
        while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
    }
    bool consume(char c) {
        space();
        if (at_ < text_.size() && text_[at_] == c) return ++at_, true;
        return false;
    }
    void expect(char c) {
        if (!consume(c)) fail(std::string("the .npy header is not a Python dict literal: expected '") + c + "' at byte " +
                              std::to_string(at_));
    }

    // '...' or "...", backslash escapes taken as the character they escape.
    std::string string_literal() {
        space();
        const char quote = at_ < text_.size() ? text_[at_] : '\0';
        if (quote != '\'' && quote != '"') fail("the .npy header has a key or value that is not a string at byte " + std::to_string(at_));
        std::string value;
        for (++at_; at_ < text_.size() && text_[at_] != quote; ++at_) {
            if (text_[at_] == '\\' && at_ + 1 < text_.size()) ++at_;
            value += text_[at_];
        }
        if (at_ == text_.size()) fail("the .npy header has an unterminated string");
        ++at_;
        return value;
    }

    bool boolean() {
        space();
        for (const auto& [word, value] : {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}})
            if (text_.substr(at_, word.size()) == word) {
                at_ += word.size();
                return value;
            }
        fail("the .npy header's fortran_order is not True or False");
    }

    // (), (5,), (2, 3) or (2, 3,): a tuple; (5) is the number 5, which numpy refuses as a shape.
    dims_t tuple_of_counts() {
        expect('(');
        dims_t dims;
        bool comma_after_last = false;
        while (!consume(')')) {
            dims.push_back(count());
            comma_after_last = consume(',');
            if (!comma_after_last) {
                expect(')');
                break;
            }
        }
        if (dims.size() == 1 && !comma_after_last) fail("the .npy shape is a number, not a tuple (numpy writes (n,))");
        return dims;
    }

    // A non-negative decimal integer, as Python reads one (no leading zeros but in zero itself).
    std::size_t count() {
        space();
        const std::size_t begin = at_;
        std::size_t value = 0;
        for (; at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_])); ++at_) {
            if (value > (std::numeric_limits<std::size_t>::max() - 9) / 10)
                fail("the .npy shape has an extent too large to count");
            value = value * 10 + static_cast<std::size_t>(text_[at_] - '0');
        }
        if (at_ == begin) fail("the .npy shape is not a tuple of counts at byte " + std::to_string(at_));
        if (text_[begin] == '0' && value != 0) fail("the .npy shape has a number with a leading zero");  // 007; 00 is 0
        return value;
    }

    std::string_view text_;
    const std::string& file_;
    std::size_t at_ = 0;
};
}  // namespace detail

inline npy_header parse_npy_header(std::string_view text, const std::string& file) {
    return detail::npy_header_parser(text, file).parse();
}

}  // namespace ctformer
