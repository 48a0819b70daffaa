// A file mapped read-only into memory (POSIX mmap), unmapped when the object goes.
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

#include "errors.hpp"

namespace ctformer {

class mapped_file {
public:
    explicit mapped_file(const std::filesystem::path& path) : name_(path.string()) {
        const int fd = ::open(path.c_str(), O_RDONLY);
        if (fd < 0) throw file_error(name_, "", std::string("cannot open: ") + std::strerror(errno));
        struct stat info {};
        if (::fstat(fd, &info) != 0) {
            ::close(fd);
            throw file_error(name_, "", std::string("cannot read its size: ") + std::strerror(errno));
        }
        size_ = static_cast<std::size_t>(info.st_size);
        if (size_ > 0) {
            void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
            if (mapped == MAP_FAILED) {
                ::close(fd);
                throw file_error(name_, "", std::string("cannot map: ") + std::strerror(errno));
            }
            data_ = static_cast<const std::byte*>(mapped);
        }
        ::close(fd);
    }
    mapped_file(const mapped_file&) = delete;
    mapped_file& operator=(const mapped_file&) = delete;
    ~mapped_file() {
        if (data_) ::munmap(const_cast<std::byte*>(data_), size_);
    }

    std::span<const std::byte> bytes() const { return {data_, size_}; }
    const std::string& name() const { return name_; }

private:
    std::string name_;
    const std::byte* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace ctformer
