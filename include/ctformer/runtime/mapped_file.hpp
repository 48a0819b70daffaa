// A file's bytes, read-only: a regular file mapped into memory (POSIX mmap), unmapped when the
// object goes; a stream (a pipe, a FIFO, /dev/stdin) read to its end, up to max_stream_bytes. The
// file is opened non-blocking and its type checked first, so a FIFO without a writer is an empty
// stream, not a hang; a directory is refused by name.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

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
            if (S_ISREG(info.st_mode)) map(fd, static_cast<std::size_t>(info.st_size));
            else read_stream(fd);
        } catch (...) {
            ::close(fd);
            throw;
        }
        ::close(fd);
    }
    mapped_file(const mapped_file&) = delete;
    mapped_file& operator=(const mapped_file&) = delete;
    ~mapped_file() {
        if (mapped_) ::munmap(const_cast<std::byte*>(data_), size_);
    }

    std::span<const std::byte> bytes() const { return {data_, size_}; }
    const std::string& name() const { return name_; }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw file_error(name_, "", what + ": " + std::strerror(errno));
    }

    void map(int fd, std::size_t size) {
        size_ = size;
        if (size_ == 0) return;
        void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (mapped == MAP_FAILED) fail("cannot map");
        data_ = static_cast<const std::byte*>(mapped);
        mapped_ = true;
    }

    // Everything the stream holds, blocking for it once the stream is open.
    void read_stream(int fd) {
        const int flags = ::fcntl(fd, F_GETFL);
        if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) fail("cannot read");
        std::size_t used = 0;
        for (;;) {
            if (used == stream_.size()) {
                if (used >= max_stream_bytes)
                    throw file_error(name_, "", "the stream holds more than " + std::to_string(max_stream_bytes) + " bytes");
                stream_.resize(std::max<std::size_t>(std::size_t{1} << 16, 2 * used));
            }
            const ssize_t got = ::read(fd, stream_.data() + used, std::min(stream_.size(), max_stream_bytes) - used);
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) fail("cannot read");
            if (got == 0) break;
            used += static_cast<std::size_t>(got);
        }
        stream_.resize(used);
        data_ = stream_.data();
        size_ = used;
    }

    std::string name_;
    const std::byte* data_ = nullptr;
    std::size_t size_ = 0;
    bool mapped_ = false;
    std::vector<std::byte> stream_;
};

}  // namespace ctformer
