// A file's bytes, read whole into memory: a regular file by the size it has when opened, a stream
// (a pipe, a FIFO, /dev/stdin) to its end, up to max_stream_bytes. Read, not mapped: a mapping of a
// file that is truncated while in use (a checkpoint rewritten in place) kills the process with
// SIGBUS, where a read sees the file end early, which is a file_error; and once read, the bytes are
// ours whatever happens to the file. The file is opened non-blocking and its type checked first, so
// a FIFO without a writer is an empty stream, not a hang; a directory is refused by name. A reader
// gives what its format's first bytes must be (start_check), checked before the rest is read: a
// file of something else (/dev/zero, /dev/urandom, a video) is refused at once, not read first.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "../core/exceptions.hpp"

namespace ctformer {

class mapped_file {
public:
    static constexpr std::size_t max_stream_bytes = std::size_t{16} << 30;

    // `check` throws a file_error (naming the file by `name`) where the first `bytes` bytes, or all of
    // a shorter file, are not what the format starts with.
    struct start_check {
        std::size_t bytes = 0;
        std::function<void(const std::string& name, std::span<const std::byte> first)> check;
    };

    explicit mapped_file(const std::filesystem::path& path) : mapped_file(path, start_check{}) {}
    mapped_file(const std::filesystem::path& path, start_check start) : name_(path.string()), start_(std::move(start)) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) throw file_error(name_, "", std::string("cannot open: ") + std::strerror(errno));
        try {
            struct stat info {};
            if (::fstat(fd, &info) != 0) fail("cannot read its size");
            if (S_ISDIR(info.st_mode)) throw file_error(name_, "", "is a directory, not a file");
            if (S_ISREG(info.st_mode)) read_regular(fd, static_cast<std::size_t>(info.st_size));
            else read_stream(fd);
        } catch (...) {
            ::close(fd);
            throw;
        }
        ::close(fd);
    }
    mapped_file(const mapped_file&) = delete;
    mapped_file& operator=(const mapped_file&) = delete;

    std::span<const std::byte> bytes() const { return {data_.get(), size_}; }
    const std::string& name() const { return name_; }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw file_error(name_, "", what + ": " + std::strerror(errno));
    }

    // Exactly `size` bytes: a file that ends sooner was cut short while it was being read.
    void read_regular(int fd, std::size_t size) {
        grow(size);
        while (size_ < size && read_some(fd)) {
        }
        if (size_ < size)
            throw file_error(name_, "", "shrank from " + std::to_string(size) + " to " + std::to_string(size_) +
                                            " bytes while it was being read (is it being rewritten?)");
        check_start(true);
    }

    // Everything the stream holds, blocking for it once the stream is open.
    void read_stream(int fd) {
        const int flags = ::fcntl(fd, F_GETFL);
        if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) fail("cannot read");
        do {
            if (size_ == capacity_) {
                if (size_ >= max_stream_bytes)
                    throw file_error(name_, "", "the stream holds more than " + std::to_string(max_stream_bytes) + " bytes");
                grow(std::min(std::max<std::size_t>(std::size_t{1} << 16, 2 * size_), max_stream_bytes));
            }
        } while (read_some(fd));
        check_start(true);
    }

    // One read() into the free part of the buffer, no further than the start until it is checked;
    // false at the end of the file.
    bool read_some(int fd) {
        const std::size_t end = start_.check && size_ < start_.bytes ? std::min(capacity_, start_.bytes) : capacity_;
        for (;;) {
            const ssize_t got = ::read(fd, data_.get() + size_, end - size_);
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) fail("cannot read");
            size_ += static_cast<std::size_t>(got);
            check_start(false);
            return got > 0;
        }
    }

    // The start checked, once: as soon as it is read, or `at_end` for a shorter file.
    void check_start(bool at_end) {
        if (!start_.check || (!at_end && size_ < start_.bytes)) return;
        const auto check = std::exchange(start_.check, nullptr);
        check(name_, bytes().first(std::min(size_, start_.bytes)));
    }

    // Room for `capacity` bytes, keeping those read (left uninitialized: a file's bytes overwrite it).
    void grow(std::size_t capacity) {
        auto larger = std::make_unique_for_overwrite<std::byte[]>(capacity);
        if (size_) std::memcpy(larger.get(), data_.get(), size_);
        data_ = std::move(larger);
        capacity_ = capacity;
    }

    std::string name_;
    start_check start_;
    std::unique_ptr<std::byte[]> data_;
    std::size_t size_ = 0, capacity_ = 0;
};

// `write(out)` to the file at `path`, opened, written and closed, each step's failure a file_error
// with the system's reason: closing included, where what is buffered meets a full disk or /dev/full.
template <class Write>
void write_file(const std::filesystem::path& path, Write write) {
    const auto reason = [] { return errno ? std::string(": ") + std::strerror(errno) : std::string(); };
    errno = 0;
    std::ofstream out(path, std::ios::binary);
    if (!out) throw file_error(path.string(), "", "cannot open for writing" + reason());
    write(out);
    out.close();
    if (!out) throw file_error(path.string(), "", "write failed" + reason());
}

}  // namespace ctformer
