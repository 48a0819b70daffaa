// The files ctformer-run writes, made safe: checked before any work (each one's directory exists,
// the system takes its name, no two outputs share a path, no output is one of the inputs), and written so
// that a run that fails part way leaves every one as it was. A symbolic link is followed to what it
// names. A regular file (or one not there yet) is written to a short-named temporary beside it, and
// all are renamed into place only once every one is ready; SIGINT, SIGTERM, SIGHUP or SIGPIPE
// before then removes the temporaries. Anything else (a device such as /dev/null or /dev/full, a
// FIFO) is written through, never replaced by a regular file.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <ctformer/core/exceptions.hpp>

namespace run {

namespace fs = std::filesystem;

class output_files {
public:
    // `outputs` to write (empty ones skipped); `inputs` that none of them may overwrite.
    output_files(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs) {
        for (const std::string& path : outputs) {
            if (path.empty()) continue;
            output o = resolved(path, targets_.size());
            for (const output& other : targets_)
                if (same_file(other.file, o.file)) throw ctformer::file_error(path, "", "is given for two outputs");
            for (const std::string& input : inputs)
                if (!input.empty() && same_file(input, o.file))
                    throw ctformer::file_error(path, "", "is an input too (" + input + "); it would be overwritten");
            targets_.push_back(std::move(o));
        }
        arm_signals();
    }
    output_files(const output_files&) = delete;
    output_files& operator=(const output_files&) = delete;
    ~output_files() {
        disarm_signals();
        std::error_code ignored;
        if (!committed_)
            for (const output& o : targets_)
                if (!o.temporary.empty()) fs::remove(o.temporary, ignored);
    }

    // Where the output meant for `target` (as given) is written: its temporary, or the file itself
    // where it is written through.
    fs::path path_for(const std::string& target) const {
        for (const output& o : targets_)
            if (o.given == target) return o.temporary.empty() ? o.file : o.temporary;
        throw ctformer::file_error(target, "", "is not one of the outputs");
    }

    // Every output in place.
    void commit() {
        for (const output& o : targets_) {
            if (o.temporary.empty()) continue;
            std::error_code error;
            fs::rename(o.temporary, o.file, error);
            if (error) throw ctformer::file_error(o.given, "", "cannot be written: " + error.message());
        }
        committed_ = true;
    }

private:
    struct output {
        std::string given;
        fs::path file;       // what `given` names, symbolic links followed
        fs::path temporary;  // none where the file is written through
    };

    // `path` followed through symbolic links, and how it is written: by a temporary renamed over a
    // regular file (or one not there yet), in a directory that exists; through, anything else but a
    // directory. A path the system cannot take (a name too long) is refused for that reason.
    static output resolved(const std::string& path, std::size_t index) {
        std::error_code error;
        const fs::file_status status = fs::status(path, error);  // through every link
        if (error && status.type() != fs::file_type::not_found)
            throw ctformer::file_error(path, "", "cannot be used: " + error.message());
        if (status.type() == fs::file_type::directory) throw ctformer::file_error(path, "", "is a directory");
        if (status.type() != fs::file_type::regular && status.type() != fs::file_type::not_found)
            return {path, path, {}};
        fs::path file = fs::absolute(path);
        while (fs::is_symlink(file, error)) {  // a link to a file not there yet: that file is written
            const fs::path to = fs::read_symlink(file, error);
            file = to.is_absolute() ? to : file.parent_path() / to;
        }
        const fs::path dir = file.parent_path();
        const fs::file_status dir_status = fs::status(dir, error);
        if (dir_status.type() == fs::file_type::not_found) throw ctformer::file_error(path, "", "its directory does not exist");
        if (error) throw ctformer::file_error(path, "", "its directory cannot be used: " + error.message());
        if (dir_status.type() != fs::file_type::directory) throw ctformer::file_error(path, "", "its directory is not a directory");
        return {path, file, dir / (".ctformer-" + std::to_string(::getpid()) + "-" + std::to_string(index) + ".tmp")};
    }

    static bool same_file(const fs::path& a, const fs::path& b) {
        std::error_code error;
        if (fs::exists(a, error) && fs::exists(b, error)) return fs::equivalent(a, b, error);
        return fs::weakly_canonical(fs::absolute(a), error) == fs::weakly_canonical(fs::absolute(b), error);
    }

    // The temporaries removed by a signal that ends the process: only what is async-signal-safe
    // (unlink, signal, raise) runs in the handler, over paths fixed before it is installed.
    static inline std::vector<const char*> armed_;
    static constexpr int stopping_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

    static void remove_and_stop(int number) {
        for (const char* temporary : armed_) ::unlink(temporary);
        ::signal(number, SIG_DFL);
        ::raise(number);
    }

    void arm_signals() {
        for (const output& o : targets_)
            if (!o.temporary.empty()) armed_.push_back(o.temporary.c_str());
        struct sigaction action {};
        action.sa_handler = &remove_and_stop;
        for (std::size_t i = 0; i < std::size(stopping_signals); ++i) {
            ::sigaction(stopping_signals[i], nullptr, &previous_[i]);
            if (previous_[i].sa_handler != SIG_IGN) ::sigaction(stopping_signals[i], &action, nullptr);  // kept ignored
        }
    }

    void disarm_signals() {
        for (std::size_t i = 0; i < std::size(stopping_signals); ++i) ::sigaction(stopping_signals[i], &previous_[i], nullptr);
        armed_.clear();
    }

    std::vector<output> targets_;
    struct sigaction previous_[std::size(stopping_signals)] {};
    bool committed_ = false;
};

}  // namespace run
