// A path in the temporary directory that belongs to the running test alone: ctest runs each test
// as a process of its own, in parallel, so two tests must never write (or map) the same file.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace test {

inline std::filesystem::path temp_path(const std::string& name) {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string owner = info ? std::string(info->test_suite_name()) + "." + info->name() + "." : "";
    return std::filesystem::path(::testing::TempDir()) / (owner + name);
}

}  // namespace test
