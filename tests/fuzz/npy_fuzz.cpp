// libFuzzer target: any bytes given to the .npy reader either read, or throw ctformer::error.
#include <cstddef>
#include <cstdint>

#include <ctformer/runtime/npy.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        ctformer::npy_from_bytes("fuzz.npy", {reinterpret_cast<const std::byte*>(data), size});
    } catch (const ctformer::error&) {
    }
    return 0;
}
