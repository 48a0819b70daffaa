// .npy files: what write_npy writes, read_npy reads back (shapes of rank 0, 1 and 3, and an empty one; the header
// padded to 64 bytes as numpy does); other dtypes, Fortran order, a short file and a file that is not
// .npy throw file_error naming the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <ctformer/runtime/npy.hpp>

#include "support/temp_path.hpp"

namespace ctf = ctformer;

namespace {

std::filesystem::path temp(const std::string& name) { return test::temp_path(name); }

TEST(Npy, WriteThenRead) {
    for (const ctf::dims_t& dims : {ctf::dims_t{}, ctf::dims_t{5}, ctf::dims_t{2, 3, 4}, ctf::dims_t{0, 3}}) {
        ctf::host_tensor<float> t(dims);
        for (std::size_t i = 0; i < t.size(); ++i) t[i] = 0.5f * static_cast<float>(i) - 3.0f;
        ctf::write_npy(temp("t.npy"), t);
        EXPECT_EQ((std::filesystem::file_size(temp("t.npy")) - 4 * t.size()) % 64, 0u) << "header padded to 64 bytes";
        const ctf::host_tensor<float> back = ctf::read_npy(temp("t.npy"));
        EXPECT_EQ(back.dims, t.dims);
        EXPECT_EQ(back.data, t.data);
    }
}

// What cannot be written is a file_error, also where the failure shows only when the file is closed
// (a tensor smaller than the stream's buffer, on a full device).
TEST(Npy, AWriteThatFailsIsAnError) {
    for (const ctf::dims_t& dims : {ctf::dims_t{2}, ctf::dims_t{512, 512}}) {
        try {
            ctf::write_npy("/dev/full", ctf::host_tensor<float>(dims));
            ADD_FAILURE() << "written to /dev/full: " << ctf::to_string(dims);
        } catch (const ctf::file_error& e) {
            EXPECT_EQ(e.file(), "/dev/full");
            EXPECT_NE(std::string(e.what()).find("write failed: No space left on device"), std::string::npos) << e.what();
        }
    }
}

// A numpy-style file with the given header dict and `data_bytes` bytes of data.
std::filesystem::path npy_with(const std::string& dict, std::size_t data_bytes) {
    std::string header = dict;
    header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ').push_back('\n');
    const std::uint16_t length = static_cast<std::uint16_t>(header.size());
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + std::string(reinterpret_cast<const char*>(&length), 2);
    bytes += header + std::string(data_bytes, '\0');
    std::ofstream(temp("bad.npy"), std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return temp("bad.npy");
}

void expect_refused(const std::filesystem::path& path, const std::string& words) {
    try {
        ctf::read_npy(path);
        ADD_FAILURE() << "no error, expected: " << words;
    } catch (const ctf::file_error& e) {
        EXPECT_EQ(e.file(), path.string());
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
}

TEST(Npy, RefusesWhatIsNotFloat32InCOrder) {
    expect_refused(npy_with("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 16), "is not float32");
    expect_refused(npy_with("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16), "Fortran order");
    expect_refused(npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 20), "truncated");
    expect_refused(npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (x), }", 0), "not a tuple of counts");
    // found by the fuzzer: an extent too large to allocate is refused before any allocation
    expect_refused(npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 8), }", 8),
                   "truncated");
    expect_refused(npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }", 0),
                   "too large to count");
    std::ofstream(temp("text.npy")) << "not numpy at all";
    expect_refused(temp("text.npy"), "not a .npy file");
}

// numpy reads 'f4', '=f4' and '|f4' as native float32 (and 'i4', '|i8' as native integers): so does ctformer.
TEST(Npy, NativeByteOrderDescrsAreTakenAsNumpyTakesThem) {
    for (const char* descr : {"f4", "=f4", "|f4", "<f4"}) {
        const auto t = ctf::read_npy(npy_with(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (2,), }", 8));
        EXPECT_EQ(t.dims, ctf::dims_t{2}) << descr;
    }
    for (const char* descr : {"i4", "=i4", "|i4", "i8", "|i8"}) {
        const auto ids = ctf::read_npy_ids(npy_with(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (2,), }", 16));
        EXPECT_EQ(ids.dims, ctf::dims_t{2}) << descr;
    }
    for (const char* descr : {"f8", "|f2", "f", "f44", "<", ""})
        expect_refused(npy_with(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (2,), }", 16),
                       std::string("dtype '") + descr + "' is not float32");
}

// An attention mask of 0s and 1s in any dtype numpy and Hugging Face give one (bool, integers of
// either sign and byte order, float32), as 0.0f and 1.0f; any other value named where it is.
std::filesystem::path mask_with(const std::string& descr, const std::string& data) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2, 2), }";
    header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ').push_back('\n');
    const std::uint16_t length = static_cast<std::uint16_t>(header.size());
    const std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + std::string(reinterpret_cast<const char*>(&length), 2) + header + data;
    std::ofstream(temp("mask.npy"), std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return temp("mask.npy");
}

TEST(Npy, MasksAreReadFromEveryDtypeOfZerosAndOnes) {
    const std::vector<float> want{1, 1, 1, 0};
    const std::string one8("\x01\0\0\0\0\0\0\0", 8), zero8(8, '\0'), one8_big("\0\0\0\0\0\0\0\x01", 8);
    EXPECT_EQ(ctf::read_npy_mask(mask_with("|b1", std::string("\x01\x01\x01\x00", 4))).data, want);
    EXPECT_EQ(ctf::read_npy_mask(mask_with("<i8", one8 + one8 + one8 + zero8)).data, want);
    EXPECT_EQ(ctf::read_npy_mask(mask_with(">i8", one8_big + one8_big + one8_big + zero8)).data, want);
    EXPECT_EQ(ctf::read_npy_mask(mask_with("<u2", std::string("\x01\0\x01\0\x01\0\0\0", 8))).data, want);
    const float f[] = {1, 1, 1, 0};
    const auto mask = ctf::read_npy_mask(mask_with("<f4", std::string(reinterpret_cast<const char*>(f), sizeof f)));
    EXPECT_EQ(mask.data, want);
    EXPECT_EQ(mask.dims, (ctf::dims_t{2, 2}));
    const auto refused = [](const std::filesystem::path& path, const std::string& words) {
        try {
            ctf::read_npy_mask(path);
            ADD_FAILURE() << "no error, expected: " << words;
        } catch (const ctf::file_error& e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    };
    refused(mask_with("<i8", one8 + one8 + one8 + std::string(8, '\xff')), "holds -1 at [1,1]: a mask holds 0 (padding) and 1");
    refused(mask_with("|i1", std::string("\x01\x02\x01\x00", 4)), "holds 2 at [0,1]");
    refused(mask_with("<f8", std::string(32, '\0')), "dtype '<f8' is not a mask");
    refused(mask_with("<i4", std::string(15, '\0')), "truncated");
}

// The header is the Python dict literal it is, not text to search: what numpy refuses is refused.
TEST(Npy, HeaderIsParsedAsTheDictItIs) {
    // a string value holding "'descr': '<f4'" before the real float64 descr: not read as float32
    expect_refused(npy_with("{'note': \"'descr': '<f4'\", 'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 16),
                   "a key numpy does not write: 'note'");
    expect_refused(npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 1 0, 512), }", 0),
                   "not a Python dict literal");
    expect_refused(npy_with("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8),
                   "gives 'descr' twice");
    expect_refused(npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (5), }", 20), "is a number, not a tuple");
    expect_refused(npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (05,), }", 20), "leading zero");
    expect_refused(npy_with("{'descr': '<f4', 'shape': (2,), }", 8), "needs 'descr', 'fortran_order' and 'shape'");
    expect_refused(npy_with("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", 8), "not True or False");
    expect_refused(npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } trailing", 8), "after its dict");
    // and what numpy takes, however it is spaced or quoted
    const auto t = ctf::read_npy(npy_with("{ \"descr\" : \"<f4\" , 'fortran_order':False,'shape':( 2 , 3 ) }", 24));
    EXPECT_EQ(t.dims, (ctf::dims_t{2, 3}));
    EXPECT_EQ(ctf::read_npy(npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 4)).dims, ctf::dims_t{});
}

}  // namespace
