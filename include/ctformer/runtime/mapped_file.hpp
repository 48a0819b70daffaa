// A file's bytes, read whole into memory: a regular file by the size it has when opened, a stream
// (a pipe, a FIFO, /dev/stdin) to its end, up to max_stream_bytes. Read, not mapped: a mapping of a
// file that is truncated while in use (a checkpoint rewritten in place) kills the process with
// SIGBUS, where a read sees the file end early, which is a file_error; and once read, the bytes are
// ours whatever happens to the file. The file is opened non-blocking and its type checked first, so
// a FIFO without a writer is an empty stream, not a hang; a directory is refused by name.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "../exceptions.hpp"

namespace ctformer {

class mapped_file {
public:
    static constexpr std::size_t max_stream_bytes = std::size_t{16} << 30;

    explicit mapped_file(const std::filesystem::path& path) : name_(path.string()) {
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
    }

    // One read() into the free part of the buffer; false at the end of the file.
    bool read_some(int fd) {
        for (;;) {
            const ssize_t got = ::read(fd, data_.get() + size_, capacity_ - size_);
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) fail("cannot read");
            size_ += static_cast<std::size_t>(got);
            return got > 0;
        }
    }

    // Room for `capacity` bytes, keeping those read (left uninitialized: a file's bytes overwrite it).
    void grow(std::size_t capacity) {
        auto larger = std::make_unique_for_overwrite<std::byte[]>(capacity);
        if (size_) std::memcpy(larger.get(), data_.get(), size_);
        data_ = std::move(larger);
        capacity_ = capacity;
    }

    std::string name_;
    std::unique_ptr<std::byte[]> data_;
    std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace ctformer
