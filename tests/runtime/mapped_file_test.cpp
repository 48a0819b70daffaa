// Reading a file's bytes (mapped_file): a file cut short while it is read is a file_error naming it,
// and a device or stream that is not of the format asked for is refused at its first bytes, not read
// to its end (/dev/zero and /dev/urandom never end).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <ctformer/runtime/mapped_file.hpp>
#include <ctformer/runtime/npy.hpp>
#include <ctformer/runtime/safetensors.hpp>

#include "support/temp_path.hpp"

namespace ctf = ctformer;

namespace {

// The file truncated to 100 bytes between reading its first 16 and the rest: deterministic, where
// truncating it from another process would race the read.
TEST(MappedFile, AFileCutShortWhileReadIsAFileError) {
    static const std::filesystem::path path = test::temp_path("shrinking.bin");
    std::ofstream(path, std::ios::binary) << std::string(1 << 20, 'x');
    const ctf::mapped_file::start_check cut_short{16, [](const std::string&, std::span<const std::byte> first) {
                                                       EXPECT_EQ(first.size(), 16u);
                                                       std::filesystem::resize_file(path, 100);
                                                   }};
    try {
        ctf::mapped_file file(path, cut_short);
        ADD_FAILURE() << "read " << file.bytes().size() << " bytes";
    } catch (const ctf::file_error& e) {
        EXPECT_EQ(e.file(), path.string());
        EXPECT_NE(std::string(e.what()).find("shrank from 1048576 to 100 bytes while it was being read"),
                  std::string::npos) << e.what();
    }
}

TEST(MappedFile, TheStartOfAShortFileIsCheckedWhole) {
    const std::filesystem::path path = test::temp_path("short.bin");
    std::ofstream(path, std::ios::binary) << "abc";
    std::size_t checked = 0;
    const ctf::mapped_file file(path, {16, [&](const std::string&, std::span<const std::byte> first) { checked = first.size(); }});
    EXPECT_EQ(checked, 3u);
    EXPECT_EQ(file.bytes().size(), 3u);
}

// Each refused within a moment, naming the device, where reading first took up to 16 GiB and a minute.
TEST(MappedFile, EndlessDevicesAreRefusedAtTheirFirstBytes) {
    const auto expect_refused = [](const char* device, auto read, const std::string& words) {
        const auto start = std::chrono::steady_clock::now();
        try {
            read(device);
            ADD_FAILURE() << device << " was read";
        } catch (const ctf::file_error& e) {
            EXPECT_EQ(e.file(), device);
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << device;
    };
    const auto npy = [](const char* path) { ctf::read_npy(path); };
    const auto ids = [](const char* path) { ctf::read_npy_ids(path); };
    const auto safetensors = [](const char* path) { ctf::safetensors_file{path}; };
    expect_refused("/dev/zero", npy, "not a .npy file");
    expect_refused("/dev/urandom", npy, "not a .npy file");
    expect_refused("/dev/zero", ids, "not a .npy file");
    expect_refused("/dev/zero", safetensors, "the header length 0 cannot hold a JSON object");
    expect_refused("/dev/urandom", safetensors, "the header length");
}

}  // namespace
