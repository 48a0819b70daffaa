// A path in the temporary directory that belongs to the running test alone: ctest runs each test
// as a process of its own, in parallel, so two tests must never write (or map) the same file. The
// files lie in a directory of the process's own, removed with them when the process exits.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace test {

inline const std::filesystem::path& process_temp_dir() {
    static const struct directory {
        std::filesystem::path path =
            std::filesystem::path(::testing::TempDir()) / ("ctformer-test-" + std::to_string(::getpid()));
        directory() { std::filesystem::create_directories(path); }
        ~directory() {
            std::error_code ignored;
            std::filesystem::remove_all(path, ignored);
        }
    } dir;
    return dir.path;
}

inline std::filesystem::path temp_path(const std::string& name) {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string owner = info ? std::string(info->test_suite_name()) + "." + info->name() + "." : "";
    return process_temp_dir() / (owner + name);
}

}  // namespace test
