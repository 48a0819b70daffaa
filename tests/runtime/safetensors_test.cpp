// Reading .safetensors: values in F32, F16 and BF16, metadata, and a typed file_error naming the file
// and tensor for each way a file can be wrong: missing tensor, F64 and non-float dtypes, unknown
// dtype, a file shorter than its header length or than 8 bytes, a header over 100 MB, invalid JSON,
// a name given twice, offsets outside the data, overlapping or not matching shape × dtype, and a
// shape too large to count. A wrong shape is caught where the tensor is used, by its declared shape.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <ctformer/ctformer.hpp>
#include <ctformer/reference/evaluate.hpp>
#include <ctformer/runtime/safetensors.hpp>

#include "support/temp_path.hpp"

namespace {

std::filesystem::path write_file(const std::string& name, const std::string& bytes) {
    const std::filesystem::path path = test::temp_path(name);
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
}

// The 8-byte length (the header's own unless given), the header, the data.
std::string safetensors_bytes(const std::string& header, const std::string& data, std::uint64_t length = ~0ull) {
    if (length == ~0ull) length = header.size();
    std::string bytes(reinterpret_cast<const char*>(&length), 8);
    return bytes + header + data;
}

template <class T>
std::string raw(std::initializer_list<T> values) {
    std::string bytes;
    for (T v : values) bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
    return bytes;
}

// The file_error that opening (and reading every tensor of) the file throws.
ctf::file_error error_of(const std::string& header, const std::string& data, std::uint64_t length = ~0ull) {
    const auto path = write_file("bad.safetensors", safetensors_bytes(header, data, length));
    try {
        ctf::safetensors_file(path).tensors();
    } catch (const ctf::file_error& e) {
        return e;
    }
    ADD_FAILURE() << "no error for header " << header;
    return ctf::file_error("", "", "");
}

void expect_error(const ctf::file_error& e, const std::string& tensor, const std::string& words) {
    EXPECT_EQ(e.tensor(), tensor) << e.what();
    EXPECT_NE(std::string(e.what()).find("bad.safetensors"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
}

TEST(Safetensors, ReadsFloatTypesAndMetadata) {
    const std::string header =
        R"({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},)"
        R"( "h": {"dtype": "F16", "shape": [3], "data_offsets": [16, 22]},)"
        R"( "b": {"dtype": "BF16", "shape": [2], "data_offsets": [22, 26]},)"
        R"( "empty": {"dtype": "F32", "shape": [0, 3], "data_offsets": [26, 26]},)"
        R"( "__metadata__": {"format": "pt"}})";
    const std::string data = raw<float>({1.5f, -2.0f, 0.25f, 1e-3f}) +
                             raw<std::uint16_t>({0x3c00, 0xc000, 0x0001}) +  // 1, -2, the smallest subnormal
                             raw<std::uint16_t>({0x3fc0, 0xbf80});          // 1.5, -1
    const ctf::safetensors_file file(write_file("good.safetensors", safetensors_bytes(header, data)));
    EXPECT_EQ(file.metadata().at("format"), "pt");
    const ctf::tensor_map all = file.tensors();
    EXPECT_EQ(all.at("w").dims, (ctf::dims_t{2, 2}));
    EXPECT_EQ(all.at("w").data, (std::vector<float>{1.5f, -2.0f, 0.25f, 1e-3f}));
    EXPECT_EQ(all.at("h").data, (std::vector<float>{1.0f, -2.0f, 5.9604645e-8f}));
    EXPECT_EQ(all.at("b").data, (std::vector<float>{1.5f, -1.0f}));
    EXPECT_EQ(all.at("empty").dims, (ctf::dims_t{0, 3}));
}

TEST(Safetensors, WritesWhatItReads) {
    const ctf::tensor_map tensors{{"w", ctf::host_tensor<float>({2, 3}, {1, -2, 3.5f, 0, 1e-30f, -7})},
                                  {"b", ctf::host_tensor<float>({1}, {0.25f})},
                                  {"empty", ctf::host_tensor<float>({0})}};
    const auto path = test::temp_path("written.safetensors");
    ctf::write_safetensors(path, tensors, {{"format", "pt"}});
    const ctf::safetensors_file file(path);
    EXPECT_EQ(file.metadata().at("format"), "pt");
    const ctf::tensor_map back = file.tensors();
    ASSERT_EQ(back.size(), 3u);
    for (const auto& [name, t] : tensors) {
        EXPECT_EQ(back.at(name).dims, t.dims) << name;
        EXPECT_EQ(back.at(name).data, t.data) << name;
    }
}

// A checkpoint rewritten in place while it is loaded: the file cut to 1000 bytes once opened. The
// bytes read when it was opened are the tensor's, not a SIGBUS from a mapping past the file's end.
TEST(Safetensors, AFileTruncatedOnceOpenedKeepsWhatWasRead) {
    const ctf::tensor_map tensors{{"w", ctf::host_tensor<float>({256, 1024}, std::vector<float>(256 * 1024, 0.5f))}};
    const auto path = test::temp_path("truncated.safetensors");
    ctf::write_safetensors(path, tensors);
    const ctf::safetensors_file file(path);
    std::filesystem::resize_file(path, 1000);
    EXPECT_EQ(file.tensor("w").data, tensors.at("w").data);
}

TEST(Safetensors, MissingTensorAndDtypesThatAreNotFp32) {
    const std::string header = R"({"d": {"dtype": "F64", "shape": [1], "data_offsets": [0, 8]},)"
                               R"( "i": {"dtype": "I64", "shape": [1], "data_offsets": [8, 16]}})";
    const auto path = write_file("bad.safetensors", safetensors_bytes(header, std::string(16, '\0')));
    const ctf::safetensors_file file(path);
    const auto error_for = [&](const std::string& name) {
        try {
            file.tensor(name);
        } catch (const ctf::file_error& e) {
            return e;
        }
        ADD_FAILURE() << name;
        return ctf::file_error("", "", "");
    };
    expect_error(error_for("absent"), "absent", "no tensor of this name");
    expect_error(error_for("d"), "d", "F64 is refused");
    expect_error(error_for("i"), "i", "not a floating-point type");
}

TEST(Safetensors, TokenIdsOfI32AndI64) {
    const std::string header = R"({"a": {"dtype": "I32", "shape": [2, 2], "data_offsets": [0, 16]},)"
                               R"( "b": {"dtype": "I64", "shape": [3], "data_offsets": [16, 40]},)"
                               R"( "big": {"dtype": "I64", "shape": [2], "data_offsets": [40, 56]},)"
                               R"( "w": {"dtype": "F32", "shape": [1], "data_offsets": [56, 60]}})";
    const std::string data = raw<std::int32_t>({7, -3, 50256, 0}) + raw<std::int64_t>({1, 2147483647, -2}) +
                             raw<std::int64_t>({5, 2147483648}) + raw<float>({0.5f});
    const ctf::safetensors_file file(write_file("ids.safetensors", safetensors_bytes(header, data)));
    EXPECT_EQ(file.ids("a").dims, (ctf::dims_t{2, 2}));
    EXPECT_EQ(file.ids("a").data, (std::vector<std::int32_t>{7, -3, 50256, 0}));
    EXPECT_EQ(file.ids("b").data, (std::vector<std::int32_t>{1, 2147483647, -2}));
    const ctf::tensor_map floats = file.tensors();  // the integer tensors are no weights
    EXPECT_EQ(floats.size(), 1u);
    EXPECT_EQ(floats.at("w").data, std::vector<float>{0.5f});
    try {
        file.ids("big");
        ADD_FAILURE() << "an id past int32";
    } catch (const ctf::file_error& e) {
        EXPECT_EQ(e.tensor(), "big");
        EXPECT_NE(std::string(e.what()).find("the token id 2147483648 at [1] does not fit int32"), std::string::npos) << e.what();
    }
    EXPECT_THROW(file.ids("w"), ctf::file_error);
    EXPECT_THROW(file.tensor("a"), ctf::file_error);
}

TEST(Safetensors, HeaderLengthAndSize) {
    expect_error(error_of("{}", "", 100), "", "runs past the end of the file (10 bytes)");
    expect_error(error_of("{}", "", 200'000'000), "", "over the 100 MB limit");
    expect_error(error_of("", ""), "", "the header length 0 cannot hold a JSON object");
    const auto path = write_file("bad.safetensors", "1234");
    try {
        ctf::safetensors_file{path};
        ADD_FAILURE() << "a 4-byte file";
    } catch (const ctf::file_error& e) {
        expect_error(e, "", "truncated");
    }
}

TEST(Safetensors, InvalidJsonAndNamesTwice) {
    expect_error(error_of(R"({"w": {"dtype": "F32", )", ""), "", "not valid JSON");
    expect_error(error_of("[1, 2]", ""), "", "not a JSON object");
    const std::string twice = R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},)"
                              R"( "w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})";
    expect_error(error_of(twice, std::string(8, '\0')), "w", "appears twice");
    // a key twice inside one entry: the first "dtype" is not quietly overruled by the second
    const std::string dtype_twice = R"({"w": {"dtype": "F64", "dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})";
    expect_error(error_of(dtype_twice, std::string(4, '\0')), "", "\"dtype\" appears twice in one object");
}

TEST(Safetensors, EntriesAndOffsets) {
    const std::string data(16, '\0');
    expect_error(error_of(R"({"w": {"dtype": "F32", "shape": [1]}})", data), "w", "needs \"dtype\"");
    expect_error(error_of(R"({"w": {"dtype": "F33", "shape": [1], "data_offsets": [0, 4]}})", data), "w",
                 "unknown dtype F33");
    expect_error(error_of(R"({"w": {"dtype": "F32", "shape": [8], "data_offsets": [0, 32]}})", data), "w",
                 "outside the 16-byte data");
    expect_error(error_of(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [8, 4]}})", data), "w",
                 "outside");
    expect_error(error_of(R"({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 12]}})", data), "w",
                 "hold 12 bytes; shape [2,2] of F32 needs 16");
    expect_error(error_of(R"({"w": {"dtype": "F32", "shape": [4611686018427387904, 4], "data_offsets": [0, 16]}})",
                          data),
                 "w", "larger than the file's data");
    const std::string overlap = R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},)"
                                R"( "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})";
    expect_error(error_of(overlap, data), "b", "overlaps tensor 'a'");
}

// A name holding a newline and a terminal escape reaches the message escaped, not as it is.
TEST(Safetensors, NamesFromTheFileAreEscapedInMessages) {
    const ctf::file_error e = error_of(R"({"evil\n\u001b[2J": {"dtype": "F33", "shape": [1], "data_offsets": [0, 4]}})",
                                       std::string(4, '\0'));
    EXPECT_EQ(e.tensor(), "evil\n\x1b[2J");  // the name itself, as the file has it
    const std::string what = e.what();
    EXPECT_NE(what.find("tensor 'evil\\n\\x1b[2J': unknown dtype F33"), std::string::npos) << what;
    EXPECT_EQ(what.find_first_of("\n\x1b"), std::string::npos) << what;
}

TEST(Safetensors, WrongShapeIsCaughtByTheDeclaredShape) {
    const std::string header = R"({"W": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}})";
    const ctf::safetensors_file file(write_file("shape.safetensors", safetensors_bytes(header, std::string(16, '\0'))));
    const auto declared = ctf::weight<"W", 2, 3>();
    try {
        ctf::reference::evaluate(declared, file.tensors());
        ADD_FAILURE() << "W [2,2] for [2,3]";
    } catch (const ctf::shape_mismatch& e) {
        EXPECT_EQ(e.tensor(), "W");
        EXPECT_NE(std::string(e.what()).find("expected [_2,_3]"), std::string::npos) << e.what();
    }
}

}  // namespace
