// The README is tested: each block that follows a "<!-- mirrors FILE -->" line (a C++ excerpt of a
// file built elsewhere, a command's printed output) has its lines in FILE, in order ("..." stands for
// lines left out). The other C++ blocks are compiled as they are (tests/readme/CMakeLists.txt).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::string trimmed(const std::string& s) {
    const std::size_t begin = s.find_first_not_of(" \t"), end = s.find_last_not_of(" \t\r");
    return begin == std::string::npos ? "" : s.substr(begin, end - begin + 1);
}

std::string read(const std::string& path) {
    std::stringstream text;
    text << std::ifstream(path).rdbuf();
    return text.str();
}

struct mirrored_block {
    std::string file;
    std::vector<std::string> lines;
    std::size_t readme_line;
};

std::vector<mirrored_block> mirrored_blocks(const std::vector<std::string>& readme) {
    std::vector<mirrored_block> blocks;
    const std::string marker = "<!-- mirrors ";
    for (std::size_t i = 0; i < readme.size(); ++i) {
        if (!readme[i].starts_with(marker)) continue;
        mirrored_block b{readme[i].substr(marker.size(), readme[i].find(" -->") - marker.size()), {}, i + 1};
        std::size_t open = i + 1;
        while (open < readme.size() && trimmed(readme[open]).empty()) ++open;
        EXPECT_TRUE(open < readme.size() && readme[open].starts_with("```")) << "README line " << b.readme_line
                                                                             << ": no block after the marker";
        for (std::size_t j = open + 1; j < readme.size() && !readme[j].starts_with("```"); ++j)
            b.lines.push_back(readme[j]);
        blocks.push_back(std::move(b));
    }
    return blocks;
}

TEST(Readme, MirroredBlocksAreInTheirFiles) {
    const std::vector<mirrored_block> blocks = mirrored_blocks(lines_of(read(CTFORMER_SOURCE_DIR "/README.md")));
    EXPECT_GE(blocks.size(), 3u);
    for (const mirrored_block& b : blocks) {
        const std::vector<std::string> file = lines_of(read(std::string(CTFORMER_SOURCE_DIR) + "/" + b.file));
        ASSERT_FALSE(file.empty()) << b.file << " (README line " << b.readme_line << ") is missing or empty";
        std::size_t at = 0;
        for (const std::string& line : b.lines) {
            if (trimmed(line).empty() || trimmed(line) == "...") continue;
            while (at < file.size() && trimmed(file[at]) != trimmed(line)) ++at;
            EXPECT_LT(at, file.size()) << "README line " << b.readme_line << ": '" << line << "' is not in "
                                       << b.file << " (in this order)";
            if (at == file.size()) break;
            ++at;
        }
    }
}

}  // namespace
