// libFuzzer target, structure-aware: the bytes choose an .npy header dict piece by piece, from what
// numpy writes and what it refuses (each key once or twice or not at all, unknown keys, values of
// the wrong kind, (5) for (5,), numbers with leading zeros or spaces inside, stray text), knowing
// as they go whether numpy would take it. The reader is held to that: it reads a header exactly
// when the header is one numpy reads (as float32, C order), and then with the shape the dict says.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <ctformer/runtime/npy.hpp>

namespace {

class choices {
public:
    choices(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    unsigned pick(unsigned count) { return at_ < size_ ? data_[at_++] % count : 0; }

private:
    const std::uint8_t* data_;
    std::size_t size_, at_ = 0;
};

struct header {
    std::string text;
    bool valid = true;  // as numpy, then ctformer (float32, C order), would take it
    ctformer::dims_t shape;
};

std::string space(choices& c) { return std::string(c.pick(3), ' '); }

void value_of_shape(choices& c, header& h) {
    const unsigned count = c.pick(4);
    std::string text = "(";
    h.shape.clear();
    for (unsigned i = 0; i < count; ++i) {
        const unsigned extent = c.pick(4);
        h.shape.push_back(extent);
        switch (c.pick(8)) {
            case 0: text += "0" + std::to_string(extent), h.valid = h.valid && extent == 0; break;  // 03; 00 is 0
            case 1: text += std::to_string(extent) + " 1", h.valid = false; break;           // "1 1"
            case 2: text += "-" + std::to_string(extent + 1), h.valid = false; break;
            default: text += std::to_string(extent);
        }
        if (i + 1 < count || (count == 1 && c.pick(4) != 0) || (count > 1 && c.pick(2))) text += "," + space(c);
        else if (count == 1) h.valid = false;  // (5) is a number
    }
    h.text += text + ")";
}

void value_for(choices& c, header& h, const std::string& key) {
    const unsigned kind = c.pick(6);
    if (key == "descr" && kind < 4) {
        const char* descrs[] = {"'<f4'", "'>f4'", "'<f8'", "\"<f4\""};
        h.text += descrs[kind];
        h.valid = h.valid && kind != 2;
    } else if (key == "fortran_order" && kind < 4) {
        h.text += kind < 3 ? "False" : "True";
        h.valid = h.valid && kind < 3;
    } else if (key == "shape" && kind < 5) {
        value_of_shape(c, h);
    } else {  // a value numpy would not take for this key (or any value, for a key it does not know)
        const char* wrong_descr[] = {"False", "(2,)", "None", "[2]", "'descr': '<f4'"};
        const char* wrong_flag[] = {"'<f4'", "(2,)", "None", "0", "'False'"};
        const char* wrong_shape[] = {"'<f4'", "False", "None", "[2]", "2"};
        const char** wrong = key == "descr" ? wrong_descr : key == "fortran_order" ? wrong_flag : wrong_shape;
        h.text += key == "junk" ? "'x'" : wrong[c.pick(5)];
        h.valid = false;
    }
}

header make_header(choices& c) {
    header h;
    const char* keys[] = {"descr", "fortran_order", "shape", "junk"};
    int seen[4] = {0, 0, 0, 0};
    h.text = "{" + space(c);
    const unsigned entries = c.pick(6);
    for (unsigned e = 0; e < entries; ++e) {
        const unsigned k = c.pick(8) % 4 == 3 && c.pick(2) ? 3 : (e < 3 && c.pick(4) ? e : c.pick(3));
        ++seen[k];
        h.text += "'" + std::string(keys[k]) + "'" + space(c) + ":" + space(c);
        value_for(c, h, keys[k]);
        if (e + 1 < entries || c.pick(2)) h.text += "," + space(c);
    }
    h.valid = h.valid && seen[0] == 1 && seen[1] == 1 && seen[2] == 1 && seen[3] == 0;
    h.text += "}";
    if (c.pick(16) == 0) h.text += " x", h.valid = false;  // text after the dict
    return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    choices c(data, size);
    header h = make_header(c);
    std::string padded = h.text;
    padded.append((64 - (10 + padded.size() + 1) % 64) % 64, ' ').push_back('\n');
    std::size_t elements = 1;
    for (std::size_t e : h.shape) elements *= e;
    const std::uint16_t length = static_cast<std::uint16_t>(padded.size());
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + std::string(reinterpret_cast<const char*>(&length), 2) +
                        padded + std::string(4 * elements, '\0');
    try {
        const ctformer::host_tensor<float> t =
            ctformer::npy_from_bytes("fuzz.npy", {reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()});
        if (!h.valid || t.dims != h.shape) std::abort();  // read what numpy refuses, or the wrong shape
    } catch (const ctformer::file_error&) {
        if (h.valid) std::abort();  // refused what numpy reads
    }
    return 0;
}
