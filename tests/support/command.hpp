// Running a command line as a user would, for the tests of ctformer's command-line tools: its exit
// status and everything it printed (stdout and stderr together).
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "temp_path.hpp"

namespace test {

struct outcome {
    int status;
    std::string printed;
};

inline outcome run_command(const std::string& command) {
    const std::string printed = temp_path("printed.txt").string();
    const int status = std::system((command + " >" + printed + " 2>&1").c_str());
    std::stringstream text;
    text << std::ifstream(printed).rdbuf();
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str()};
}

}  // namespace test
