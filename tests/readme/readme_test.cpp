// The README and every page of docs/ are tested: each block that follows a "<!-- mirrors FILE -->"
// line (a C++ excerpt of a file built elsewhere, a command's printed output) has its lines in FILE, in
// order ("..." stands for lines left out). The other C++ blocks are compiled as they are
// (tests/readme/CMakeLists.txt, which lists the pages: CTFORMER_DOC_PAGES).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
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
    std::size_t page_line;
};

std::vector<mirrored_block> mirrored_blocks(const std::vector<std::string>& page) {
    std::vector<mirrored_block> blocks;
    const std::string marker = "<!-- mirrors ";
    for (std::size_t i = 0; i < page.size(); ++i) {
        if (!page[i].starts_with(marker)) continue;
        mirrored_block b{page[i].substr(marker.size(), page[i].find(" -->") - marker.size()), {}, i + 1};
        std::size_t open = i + 1;
        while (open < page.size() && trimmed(page[open]).empty()) ++open;
        EXPECT_TRUE(open < page.size() && page[open].starts_with("```")) << "line " << b.page_line
                                                                         << ": no block after the marker";
        for (std::size_t j = open + 1; j < page.size() && !page[j].starts_with("```"); ++j)
            b.lines.push_back(page[j]);
        blocks.push_back(std::move(b));
    }
    return blocks;
}

// The pages, relative to the source directory: README.md, then docs/*.md.
std::vector<std::string> pages() {
    std::vector<std::string> list;
    std::istringstream in(CTFORMER_DOC_PAGES);
    for (std::string page; std::getline(in, page, ',');) list.push_back(page);
    return list;
}

class Page : public testing::TestWithParam<std::string> {};

TEST_P(Page, MirroredBlocksAreInTheirFiles) {
    const std::string text = read(std::string(CTFORMER_SOURCE_DIR) + "/" + GetParam());
    ASSERT_FALSE(text.empty()) << GetParam() << " is missing or empty";
    for (const mirrored_block& b : mirrored_blocks(lines_of(text))) {
        const std::vector<std::string> file = lines_of(read(std::string(CTFORMER_SOURCE_DIR) + "/" + b.file));
        ASSERT_FALSE(file.empty()) << b.file << " (" << GetParam() << " line " << b.page_line
                                   << ") is missing or empty";
        std::size_t at = 0;
        for (const std::string& line : b.lines) {
            if (trimmed(line).empty() || trimmed(line) == "...") continue;
            while (at < file.size() && trimmed(file[at]) != trimmed(line)) ++at;
            EXPECT_LT(at, file.size()) << GetParam() << " line " << b.page_line << ": '" << line << "' is not in "
                                       << b.file << " (in this order)";
            if (at == file.size()) break;
            ++at;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Docs, Page, testing::ValuesIn(pages()), [](const testing::TestParamInfo<std::string>& p) {
    std::string name = p.param.substr(0, p.param.rfind('.'));
    std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    return name;
});

// The marker is what keeps a block honest: if the pages lost theirs (a typo in the marker, a block
// moved without it), the test above would pass on nothing.
TEST(Docs, PagesHaveMirroredBlocks) {
    std::size_t blocks = 0;
    for (const std::string& page : pages())
        blocks += mirrored_blocks(lines_of(read(std::string(CTFORMER_SOURCE_DIR) + "/" + page))).size();
    EXPECT_GE(blocks, 3u);
    EXPECT_EQ(pages().front(), "README.md");
}

}  // namespace
