// The files ctformer-run writes, made safe: checked before any work (each one's directory exists,
// no two outputs share a path, no output is one of the inputs), each written to a temporary file
// beside it, and all renamed into place only once every one is ready. A run that fails part way
// leaves every target as it was.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <ctformer/exceptions.hpp>

namespace run {

namespace fs = std::filesystem;

class output_files {
public:
    // `outputs` to write (empty ones skipped); `inputs` that none of them may overwrite.
    output_files(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs) {
        for (const std::string& path : outputs) {
            if (path.empty()) continue;
            const fs::path dir = fs::absolute(path).parent_path();
            std::error_code error;
            if (!fs::is_directory(dir, error)) throw ctformer::file_error(path, "", "its directory does not exist");
            for (const fs::path& other : targets_)
                if (same_file(other, path)) throw ctformer::file_error(path, "", "is given for two outputs");
            for (const std::string& input : inputs)
                if (!input.empty() && same_file(input, path))
                    throw ctformer::file_error(path, "", "is an input too (" + input + "); it would be overwritten");
            targets_.push_back(path);
        }
    }
    output_files(const output_files&) = delete;
    output_files& operator=(const output_files&) = delete;
    ~output_files() {
        std::error_code ignored;
        if (!committed_)
            for (const fs::path& target : targets_) fs::remove(temporary(target), ignored);
    }

    // Where the output meant for `target` is written first.
    static fs::path temporary(const fs::path& target) {
        return target.string() + ".ctformer-" + std::to_string(::getpid()) + ".tmp";
    }

    // Every output in place.
    void commit() {
        for (const fs::path& target : targets_) {
            std::error_code error;
            fs::rename(temporary(target), target, error);
            if (error) throw ctformer::file_error(target.string(), "", "cannot be written: " + error.message());
        }
        committed_ = true;
    }

private:
    static bool same_file(const fs::path& a, const fs::path& b) {
        std::error_code error;
        if (fs::exists(a, error) && fs::exists(b, error)) return fs::equivalent(a, b, error);
        return fs::weakly_canonical(fs::absolute(a), error) == fs::weakly_canonical(fs::absolute(b), error);
    }

    std::vector<fs::path> targets_;
    bool committed_ = false;
};

}  // namespace run
